"""The wheel as users get it: everything vmodtool reads at run time inside.

The wheel is ``$VMODTOOL_WHEEL`` (``.ci/run`` builds one with ``python -m
build`` and installs it alone outside the source tree) or, without it, one
built here from a copy of the source (``pip wheel``, which fetches the
build backend when it is not installed).  Each file the package opens at run
time must be in it: the fonts and their licence, the scenario schema, the
``init`` starter, the HTML report's page, script and style, ``py.typed``, and
every file of the bundled ``templates/`` and ``counters/`` art."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO

#: what the package reads at run time, by path inside the wheel
REQUIRED = [
    "vmodtool/py.typed",
    "vmodtool/data/scenario.schema.json",
    "vmodtool/data/starter/scenario.yaml",
    "vmodtool/data/fonts/DejaVuSans.ttf",
    "vmodtool/data/fonts/DejaVuSans-Bold.ttf",
    "vmodtool/data/fonts/DejaVuSansCondensed.ttf",
    "vmodtool/data/fonts/DejaVuSansCondensed-Bold.ttf",
    "vmodtool/data/fonts/LICENSE-DejaVu.txt",
    "vmodtool/report/assets/report.html",
    "vmodtool/report/assets/report.js",
    "vmodtool/report/assets/report.css",
]

#: the source files and folders a wheel is built from
_SOURCE = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "CHANGELOG.md", "vmodtool", "templates", "counters")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    given = os.environ.get("VMODTOOL_WHEEL")
    if given:
        return Path(given)
    src = tmp_path_factory.mktemp("src")
    for name in _SOURCE:
        path = REPO / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        elif path.exists():
            shutil.copy2(path, src / name)
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(src)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.fail(f"the wheel could not be built:\n{done.stderr[-2000:]}")
    (built,) = out.glob("vmodtool-*.whl")
    return built


def _names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as zf:
        return set(zf.namelist())


def test_the_wheel_holds_every_file_read_at_run_time(wheel: Path) -> None:
    names = _names(wheel)
    missing = [name for name in REQUIRED if name not in names]
    assert not missing, f"{wheel.name} lacks {missing}"


def test_the_wheel_holds_the_bundled_templates_and_art(wheel: Path) -> None:
    names = _names(wheel)
    for folder in ("templates", "counters"):
        source = REPO / folder
        if not source.is_dir():
            continue
        for path in sorted(p for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
            rel = path.relative_to(REPO).as_posix()
            if path.name == "README.md" and path.parent == source:
                continue                    # the folder's own README is for the repository
            assert any(name.endswith("/" + rel) for name in names if name.startswith("vmodtool/")), \
                f"{wheel.name} lacks {rel}"


def test_the_wheel_holds_every_module_of_the_package(wheel: Path) -> None:
    names = _names(wheel)
    modules = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "vmodtool").rglob("*.py")
                     if "__pycache__" not in p.parts)
    assert [m for m in modules if m not in names] == []


def test_the_wheel_metadata_names_the_version_and_the_command(wheel: Path) -> None:
    from vmodtool import __version__

    names = _names(wheel)
    assert wheel.name.startswith(f"vmodtool-{__version__}-")
    with zipfile.ZipFile(wheel) as zf:
        dist = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        assert "vmodtool = vmodtool.launcher:main" in zf.read(dist).decode()
        meta = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert f"Version: {__version__}" in meta and "Requires-Python: >=3.10" in meta
    assert "Provides-Extra: dask" in meta
