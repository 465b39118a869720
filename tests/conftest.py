"""Shared test fixtures.

Tests that compare with VASSAL's own output read ``../shared`` (the corpus of
real files and the golden answers).  It is read-only and may be absent: such
tests skip cleanly then.  ``VMODTOOL_SHARED`` may point elsewhere.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("VMODTOOL_SHARED", REPO.parent / "shared"))


def built_examples() -> list[Path]:
    """The example scenarios (``examples/*/scenario.yaml``) that vmodtool
    builds a module from: not those of a game played with a published module
    (``map.from_module``), which need that module (tests/audit/test_*_example.py)."""
    return sorted(p for p in (REPO / "examples").glob("*/scenario.yaml")
                  if not re.search(r"(?m)^\s+from_module:", p.read_text(encoding="utf-8")))


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
