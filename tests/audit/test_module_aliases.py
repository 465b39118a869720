"""A module renamed between versions (issue 43, item 7): the scenario's
``module.aliases`` names its earlier names, and a log saved with one of them
is audited with a warning naming both names; without the alias the audit
stops with a remedy that names the line to add."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from vmodtool.cli import cli

MODERN = Path(__file__).resolve().parents[2] / "examples" / "modern-tactical"
LOG = MODERN / "logs" / "game-1.vlog"
OLD = "Quneitra Gap, 1985"
NEW = "Quneitra Gap (second edition)"


def _renamed(tmp_path: Path, aliases: str | None) -> Path:
    folder = tmp_path / "modern-tactical"
    shutil.copytree(MODERN, folder, ignore=shutil.ignore_patterns("logs"))
    path = folder / "scenario.yaml"
    text = path.read_text("utf-8").replace(f'title: "{OLD}"', f'title: "{NEW}"', 1)
    assert NEW in text
    if aliases is not None:
        text += f"\nmodule:\n  aliases: {aliases}\n"
    path.write_text(text, encoding="utf-8")
    return path


def _audit(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["audit", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def test_an_alias_accepts_the_old_name_with_a_warning(tmp_path: Path) -> None:
    code, out = _audit(str(LOG), "--scenario", str(_renamed(tmp_path, f'["{OLD}"]')))
    assert code == 0, out
    assert "0 error(s), 0 warning(s)" in out
    warning = next(line for line in out.splitlines() if "audited as the same module renamed" in line)
    assert f"saved with module {OLD!r} 1.0" in warning and f"the module given is {NEW!r}" in warning
    assert "module.aliases of" in warning


def test_without_the_alias_the_remedy_names_the_line_to_add(tmp_path: Path) -> None:
    code, out = _audit(str(LOG), "--scenario", str(_renamed(tmp_path, None)))
    assert code == 2
    (line,) = [x for x in out.splitlines() if x.strip()]
    assert f"saved with module {OLD!r}" in line
    assert f"add it to module.aliases of {tmp_path}" in line and f"aliases: [{OLD!r}]" in line


def test_an_alias_of_another_name_does_not_accept(tmp_path: Path) -> None:
    code, out = _audit(str(LOG), "--scenario", str(_renamed(tmp_path, '["Golan, 1973"]')))
    assert code == 2 and "audited as the same module renamed" not in out
