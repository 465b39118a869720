"""The project's own golden images (``tests/render/golden/``): a rendered
image compared with its golden file within anti-aliasing, or the golden file
written anew when ``VMODTOOL_REGEN_GOLDEN=1``."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from PIL import Image

REGEN = os.environ.get("VMODTOOL_REGEN_GOLDEN") == "1"


def check_golden(img: Image.Image, path: Path, *, max_off: int = 40) -> None:
    """Assert that ``img`` is the golden image at ``path``: the same size, a
    mean difference under 0.6 levels and at most ``max_off`` pixels off by
    more than 64 levels (FreeType versions differ slightly in anti-aliasing;
    a changed digit moves about 90 pixels by more than that)."""
    if REGEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        img.save(path, optimize=True)
        return
    assert path.is_file(), f"missing golden image {path.name} (VMODTOOL_REGEN_GOLDEN=1)"
    ref = np.asarray(Image.open(path).convert("RGB"), dtype=np.int16)
    got = np.asarray(img.convert("RGB"), dtype=np.int16)
    assert got.shape == ref.shape, f"{path.name}: {got.shape} against {ref.shape}"
    diff = np.abs(got - ref).max(axis=2)
    assert diff.mean() < 0.6 and (diff > 64).sum() <= max_off, f"{path.name} differs"
