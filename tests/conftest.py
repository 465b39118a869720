"""Shared test fixtures.

Tests that compare with VASSAL's own output read ``../shared`` (the corpus of
real files and the golden answers).  It is read-only and may be absent: such
tests skip cleanly then.  ``VMODTOOL_SHARED`` may point elsewhere.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("VMODTOOL_SHARED", REPO.parent / "shared"))

# The suite's property tests draw the same examples on every run (as its
# fuzz tests already did): a run is a regression check, and a random find
# must not turn one CI run red and the next green.  New examples are drawn
# with HYPOTHESIS_PROFILE=explore (and by the bounded fuzzers in benchmarks/).
settings.register_profile("suite", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "suite"))


EXAMPLES = REPO / "examples"


def game_examples() -> list[Path]:
    """The bundled example games: scenarios with their own map, which
    ``vmodtool build`` makes modules of (and whose logs are made with them)."""
    return sorted(p for p in EXAMPLES.glob("*/scenario.yaml") if "from_module:" not in p.read_text("utf-8"))


def module_examples() -> list[Path]:
    """The examples that bind a published module (``map.from_module``): they
    load only with that module (from ../shared)."""
    return sorted(p for p in EXAMPLES.glob("*/scenario.yaml") if "from_module:" in p.read_text("utf-8"))


def shared_path(*parts: str) -> Path:
    """Path below ../shared, skipping the calling test when it is absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared data not available: {path}")
    return path


def shared_files(subdir: str, pattern: str):
    """Sorted files below ../shared/<subdir> matching ``pattern`` (for
    parametrisation at collection time; empty when shared/ is absent)."""
    base = SHARED / subdir
    if not base.exists():
        return []
    return sorted(p for p in base.glob(pattern) if p.is_file())


def rel_id(path: Path) -> str:
    """Short test id for a shared file."""
    try:
        return str(path.relative_to(SHARED))
    except ValueError:
        return path.name


@pytest.fixture
def shared():
    """The ../shared folder (skips the test when it is absent)."""
    return shared_path()
