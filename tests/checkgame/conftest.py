"""Fixtures of the check-game tests: the bundled example games' modules,
built once for all of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.conftest import cc, modern, ww1
from tests.conftest import game_examples

# the example scenarios, as the audit tests have them (check-game's tests
# sat under tests/audit until check-game became its own package)
__all__ = ["cc", "modern", "ww1"]


@pytest.fixture(scope="session")
def example_modules(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Example name -> the module ``vmodtool build`` makes of it."""
    from vmodtool.assemble.builder import build_module_file
    out = tmp_path_factory.mktemp("example-modules")
    files = {}
    for scenario in game_examples():
        files[scenario.parent.name] = out / f"{scenario.parent.name}.vmod"
        build_module_file(scenario, files[scenario.parent.name], jobs=1)
    return files


@pytest.fixture(scope="session")
def built_examples(example_modules: dict[str, Path]) -> dict[str, Path]:
    """The same, for the examples that ship a whole game (logs/game-1.vlog)."""
    return {name: path for name, path in example_modules.items()
            if (Path(__file__).resolve().parents[2] / "examples" / name / "logs" / "game-1.vlog").is_file()}


@pytest.fixture(scope="session")
def tld_chain():  # type: ignore[no-untyped-def]
    """The Longest Day's 19 logs replayed once for every check-game test
    (the checks only read a record)."""
    from tests.conftest import shared_path
    from vmodtool.checkgame import record_game
    logs = sorted(shared_path("corpus", "tld", "game").glob("*.log"))
    return record_game(logs, module=shared_path("corpus", "tld", "buildFile"), board_sizes={"Normandy": (5340, 5024)})
