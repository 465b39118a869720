"""The report tests' module: the modern-tactical example built once."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from vmodtool.cli import cli

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "examples" / "modern-tactical" / "scenario.yaml"


@pytest.fixture(scope="session")
def module(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example's module, as ``vmodtool build`` makes it."""
    out = tmp_path_factory.mktemp("report-module") / "game.vmod"
    result = CliRunner().invoke(cli, ["build", str(SCENARIO), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out
