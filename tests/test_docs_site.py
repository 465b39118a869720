"""The documentation site (``mkdocs.yml``) and the README as its front page:
every page the nav names exists and every guide is in the nav (a missing
target fails ``mkdocs build --strict``, a page left out is never reached),
the README stays a front page, and every link from the README or a guide to
another page of the repository's docs finds its file.  ``mkdocs build
--strict`` itself runs in CI (``.ci/run``) with the ``docs`` extra."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)#\s]+)(?:#[^)]*)?\)")


def nav_pages(nav: object) -> list[str]:
    """Every page file a MkDocs nav names."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, list):
        return [page for item in nav for page in nav_pages(item)]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_pages(value)]
    return []


@pytest.fixture(scope="module")
def config() -> dict[str, object]:
    text = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    loaded = yaml.safe_load(text)
    assert isinstance(loaded, dict)
    return loaded


def test_the_nav_names_pages_that_exist(config: dict[str, object]) -> None:
    pages = nav_pages(config["nav"])
    assert "reference/cli.md" in pages and "reference/api.md" in pages
    assert [p for p in pages if not (DOCS / p).is_file()] == []


def test_every_guide_is_in_the_nav(config: dict[str, object]) -> None:
    pages = set(nav_pages(config["nav"]))
    guides = {p.relative_to(DOCS).as_posix() for p in (DOCS / "guide").glob("*.md")}
    assert guides - pages == set(), "add these pages to mkdocs.yml's nav"
    assert {"guide/integrity.md", "guide/security.md", "guide/performance.md"} <= guides


def test_the_site_is_strict_and_generates_its_references(config: dict[str, object]) -> None:
    assert config["strict"] is True
    assert "mkdocs-click" in config["markdown_extensions"]        # type: ignore[operator]
    assert "::: mkdocs-click" in (DOCS / "reference" / "cli.md").read_text(encoding="utf-8")
    assert "\n::: vmodtool." in (DOCS / "reference" / "api.md").read_text(encoding="utf-8")


def test_the_readme_is_a_front_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    # the two Quick-start commands, exactly (CI runs the second as written)
    assert "```sh\npython -m pip install . && vmodtool audit examples/modern-tactical/logs/game-1.vlog " \
           "--scenario examples/modern-tactical/scenario.yaml\n```" in readme
    assert "```sh\npython -m pip install '.[test]' && python -m pytest\n```" in readme


@pytest.mark.parametrize("page", [REPO / "README.md", *sorted((DOCS / "guide").glob("*.md")), DOCS / "index.md"],
                         ids=lambda p: p.relative_to(REPO).as_posix())
def test_links_to_pages_find_their_file(page: Path) -> None:
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue                                    # http://, mailto: …
        if not (page.parent / target).exists():
            broken.append(target)
    assert broken == []
