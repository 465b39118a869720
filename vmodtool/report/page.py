"""The report page: one HTML file (style, script and the game's data
inline) and one sibling folder with the module's images it draws and the
dice chart.  Every text from a log or a module reaches the page only inside
the JSON data block, with ``<``, ``>`` and ``&`` escaped so that nothing can
close the block; the script sets it with ``textContent``.  The page loads
nothing from the network (its Content-Security-Policy forbids it)."""

from __future__ import annotations

import html
import json
import locale
import os
import re
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from vmodtool.fileio import atomic_write, output_folder
from vmodtool.replay.scene import ImageCatalog
from vmodtool.report.frames import Frames

__all__ = ["asset_text", "folder_of", "json_for_script", "write_page"]

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


def asset_text(name: str) -> str:
    """One of the page's assets shipped with the package (``assets/``)."""
    return resources.files("vmodtool.report").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def json_for_script(data: Any) -> str:
    """JSON safe inside a ``<script type="application/json">`` element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def folder_of(output: Path) -> Path:
    """The images folder beside a report: ``game.html`` → ``game_files/``."""
    return output.with_name(output.stem + "_files")


def _language() -> str:
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var)
        if value and value not in ("C", "POSIX"):
            return _SAFE.sub("", value.split(".")[0].split("_")[0]) or "en"
    found = locale.getlocale()[0]
    return _SAFE.sub("", found.split("_")[0]) if found else "en"


def write_page(output: Path, frames: Frames, catalog: ImageCatalog, *, title: str,
               findings: list[dict[str, Any]], dice_png: bytes | None = None,
               notes: list[dict[str, Any]] | None = None,
               terrain: dict[str, Any] | None = None) -> list[str]:
    """Write the page and its images folder; returns the module images it
    drew as boxes because the module does not hold them (or they cannot be
    read).  With ``notes`` (:func:`~vmodtool.report.narrative.narrative_records`)
    the page has a narrative column; ``terrain``: a terrain layer to draw over
    its map (:func:`vmodtool.report.terrain_layer.layer_record`).  Each one's
    data, style and script are added only when it is given, so a page
    without them is as it was."""
    folder = output_folder(output.parent, folder_of(output).name)     # a real folder beside the page
    names: list[str] = []
    missing: list[str] = []
    for i, image in enumerate(frames.images):
        raw = catalog.data(image)
        if raw is None:
            missing.append(image)
            names.append("")
            continue
        suffix = Path(image).suffix.lower()
        name = f"{i}-{_SAFE.sub('_', Path(image).stem)[:40]}{suffix if re.fullmatch(r'[.a-z0-9]{1,6}', suffix) else ''}"
        atomic_write(folder / name, raw)
        names.append(f"{folder.name}/{name}")
    dice = ""
    if dice_png:
        atomic_write(folder / "dice.png", dice_png)
        dice = (f'<details><summary>Dice per player</summary><img src="{html.escape(folder.name)}/dice.png" '
                'alt="dice per player"></details>')
    data = frames.record()
    data["images"] = names
    data["findings"] = findings
    css, script = asset_text("report.css"), asset_text("report.js")
    if notes:
        data["notes"] = notes
        css += asset_text("narrative.css")
        script += asset_text("narrative.js")
    if terrain is not None:
        data["terrain"] = terrain
        css, script = css + asset_text("terrain.css"), script + asset_text("terrain.js")
    page = Template(asset_text("report.html")).substitute(
        lang=html.escape(_language()), title=html.escape(title), css=css,
        dice=dice, data=json_for_script(data), script=script)
    atomic_write(output, page.encode("utf-8"))
    return missing
