"""``vmodtool init``: a small commented starter scenario a designer edits."""

from __future__ import annotations

import re
import unicodedata
from importlib import resources
from pathlib import Path

from vmodtool.errors import VmodError
from vmodtool.fileio import atomic_write

__all__ = ["write_starter", "slug"]

# Russian and Ukrainian letters, for readable ids from Cyrillic names
_TRANSLIT = dict(zip(
    "абвгдеёжзийклмнопрстуфхцчшщъыьэюяієїґ",
    ["a", "b", "v", "g", "d", "e", "e", "zh", "z", "i", "y", "k", "l", "m", "n", "o", "p", "r",
     "s", "t", "u", "f", "kh", "ts", "ch", "sh", "shch", "", "y", "", "e", "yu", "ya", "i", "ye",
     "yi", "g"], strict=True))


def slug(name: str) -> str:
    """An id made of ``[a-z0-9-]`` from any name (Cyrillic transliterated)."""
    text = "".join(_TRANSLIT.get(c, c) for c in name.lower())
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^a-z0-9]+", "-", text).strip("-")
    return text or "scenario"


def write_starter(name: str, parent: str = ".") -> Path:
    """Create ``parent/<name>/scenario.yaml``; refuses to touch an existing
    folder."""
    if not name.strip() or "/" in name or "\\" in name or name in (".", ".."):
        raise VmodError(f"{name!r} is not a usable folder name for a scenario")
    folder = Path(parent) / name
    if folder.exists():
        raise VmodError("already exists; init creates a new folder, choose another name",
                        file=folder)
    template = resources.files("vmodtool").joinpath("data/starter/scenario.yaml").read_text("utf-8")
    target = folder / "scenario.yaml"
    title = name.replace('"', "'")
    text = (template.replace("{{id}}", slug(name)).replace("{{title}}", title)
            .replace("{{path}}", str(target)))
    try:
        folder.mkdir(parents=True)
    except OSError as exc:
        raise VmodError(f"cannot create the folder: {exc.strerror}", file=folder) from None
    atomic_write(target, text.encode("utf-8"))
    return target
