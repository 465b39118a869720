"""The own-art example (``examples/own-art``): counters whose faces are the
designer's own PNG pictures (``faces[].image``), drawn by the example's
``make_art.py``.  Built, its pictures are on the module's pieces at VASSAL
size, on the counter images and on the print sheets; without them the same
faces show none of the pictures' colours (so the check can fail)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import zipfile
from io import BytesIO
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from vmodtool.cli import cli
from vmodtool.render import counters as C
from vmodtool.render.sheets import SheetOptions, write_sheets
from vmodtool.scenario import check_scenario, load_scenario

FOLDER = Path(__file__).resolve().parents[2] / "examples" / "own-art"
SCENARIO = FOLDER / "scenario.yaml"
#: the least share of a face in its picture's colour (the gun's shield: 0.7 %)
SHOWN = 0.005
#: counter → its picture
ART = {"blue.rifles": "rifles", "blue.tank": "tank", "red.gun": "gun", "red.lorry": "lorry"}


def _ink(art: str) -> tuple[int, int, int]:
    """The picture's commonest opaque colour other than its outline's."""
    with Image.open(FOLDER / "art" / f"{art}.png") as img:
        rgba = np.asarray(img.convert("RGBA")).reshape(-1, 4)
    opaque = rgba[rgba[:, 3] > 200][:, :3]
    colours, counts = np.unique(opaque, axis=0, return_counts=True)
    for k in np.argsort(-counts):
        colour = tuple(int(v) for v in colours[k])
        if sum(colour) > 150:               # not the dark outline
            return colour                   # type: ignore[return-value]
    raise AssertionError(art)


def _share(img: Image.Image, colour: tuple[int, int, int]) -> int:
    """Pixels within a small distance of ``colour``."""
    a = np.asarray(img.convert("RGB"), dtype=np.int16)
    return int((np.abs(a - np.array(colour)).max(axis=2) < 18).sum())


def test_the_example_is_clean_and_its_pictures_are_small_files():
    scenario, problems = check_scenario(SCENARIO)
    assert scenario is not None and [str(p) for p in problems] == []
    pictures = sorted((FOLDER / "art").glob("*.png"))
    assert [p.stem for p in pictures] == sorted(ART.values())
    assert all(p.stat().st_size < 8 * 1024 for p in pictures)
    for counter in scenario.counters:
        for face in scenario.unit_type_of(counter).faces:
            assert face.image_spec is not None and face.image_spec.path.parent == FOLDER / "art"


def test_make_art_draws_the_committed_pictures(tmp_path):
    """The script writes what is committed (run in a copy of the folder)."""
    copy = tmp_path / "own-art"
    copy.mkdir()
    (copy / "make_art.py").write_bytes((FOLDER / "make_art.py").read_bytes())
    subprocess.run([sys.executable, str(copy / "make_art.py")], check=True, capture_output=True)
    for art in ART.values():
        drawn = np.asarray(Image.open(copy / "art" / f"{art}.png").convert("RGBA"), dtype=np.int16)
        shipped = np.asarray(Image.open(FOLDER / "art" / f"{art}.png").convert("RGBA"), dtype=np.int16)
        assert drawn.shape == shipped.shape
        assert np.abs(drawn - shipped).max(axis=2).mean() < 4.0, art           # Pillow versions may differ a hair


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("own-art")
    result = CliRunner().invoke(cli, ["build", str(SCENARIO), "-o", str(out / "own-art.vmod"), "-q", "-j", "1"])
    assert result.exit_code == 0, result.output
    return load_scenario(SCENARIO), out


def test_the_module_s_pieces_show_the_pictures_at_vassal_size(built):
    scenario, out = built
    style = C.counter_style(scenario)
    px = C.resolution_px(style, "vassal")
    with zipfile.ZipFile(out / "own-art.vmod") as z:
        names = set(z.namelist())
        for spec in C.counter_specs(scenario, style):
            if spec.id not in ART:
                continue
            ink = _ink(ART[spec.id])
            for face_name, face in spec.faces:
                entry = "images/" + C.face_filename(spec.id, face_name)
                assert entry in names, entry
                img = Image.open(BytesIO(z.read(entry)))
                assert img.size == (px, px)
                shown = _share(img, ink)
                assert shown > SHOWN * px * px, (spec.id, face_name)
                # the same face without its picture has (next to) none of its colour
                bare = C.render_face(dataclasses.replace(face, image=None), px)
                assert _share(bare, ink) * 5 < shown, (spec.id, face_name)
        build_file = z.read("buildFile.xml").decode("utf-8")
    for spec_id in ART:
        assert C.face_filename(spec_id, "full" if spec_id != "red.lorry" else "loaded") in build_file


def test_the_counter_images_and_the_sheets_show_the_pictures(built):
    scenario, out = built
    manifest = C.render_all(scenario, out / "counters", resolutions=("vassal", 300), jobs=1)
    for counter_id, art in ART.items():
        ink = _ink(art)
        face = "loaded" if counter_id == "red.lorry" else "full"
        for resolution in ("vassal", 300):
            with Image.open(manifest.path(counter_id, face, resolution)) as img:
                assert _share(img, ink) > SHOWN * img.width * img.height, (counter_id, resolution)
    pages = out / "pages"
    write_sheets(scenario, None, SheetOptions(), png_dir=pages)
    fronts = sorted(pages.glob("*.png"))
    assert fronts
    px = C.resolution_px(C.counter_style(scenario), 300)         # the sheets' counters
    for art in ART.values():
        ink = _ink(art)
        assert max(_share(Image.open(p), ink) for p in fronts) > SHOWN * px * px, art
