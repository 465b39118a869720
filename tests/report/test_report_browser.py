"""The report in real headless Chromium (Debian's ``chromium`` driven by
Python ``playwright``): open the report of an example game, go to an audit
violation by clicking it, and check that the unit's counter is drawn at the
pixel of its hex, that the finding is highlighted and marked on the map, that
no request leaves the page and that the console stays clean.  The
screenshot of that state is saved (``VMODTOOL_REPORT_SCREENSHOT=FILE``
writes it there too: ``docs/report-screenshot.png`` is made so)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from vmodtool.cli import cli

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "examples" / "modern-tactical" / "scenario.yaml"
LOG = ROOT / "examples" / "modern-tactical" / "logs" / "illegal-enemy-hex.vlog"
HOSTILE = "</script><img src=x onerror=alert(1)>"

playwright_api = pytest.importorskip("playwright.sync_api", reason="Python playwright is not installed")
if shutil.which("chromium") is None:
    pytest.skip("no chromium browser on PATH (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    module = folder / "game.vmod"
    built = CliRunner().invoke(cli, ["build", str(SCENARIO), "-o", str(module)])
    assert built.exit_code == 0, built.output
    page = folder / "game.html"
    made = CliRunner().invoke(cli, ["report", str(LOG), "-m", str(module), "--scenario", str(SCENARIO),
                                    "-o", str(page)])
    assert made.exit_code == 0, made.output
    return page


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=shutil.which("chromium"),
                              args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield b
        b.close()


def _open(browser: Any, page_file: Path) -> tuple[Any, list[str], list[str]]:
    page = browser.new_page(viewport={"width": 1280, "height": 820})
    errors: list[str] = []
    outside: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: (errors.append("dialog: " + d.message), d.dismiss()))
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith("file://") else None)
    page.goto(page_file.as_uri())
    return page, errors, outside


def test_step_to_a_violation(browser: Any, report: Path, tmp_path: Path) -> None:
    from vmodtool.replay import Replay
    from vmodtool.replay.scene import scene_at

    page, errors, outside = _open(browser, report)
    replay = Replay.open([LOG], module=report.with_name("game.vmod"))
    at_start = sum(1 for _ in scene_at(replay, 0).counters())
    shown = "[...document.querySelectorAll('.counter')].filter(e => e.style.display !== 'none').length"
    assert page.evaluate(shown) == at_start > 0  # the saved state, drawn on opening
    item = page.locator("#findings li", has_text="holds enemy units")
    item.click()
    assert page.evaluate("vmodReport.step()") == 126
    assert "current" in (item.get_attribute("class") or "")
    assert page.locator("circle.mark.current").count() == 1
    # the moved unit's counter: where the scene (VASSAL's arithmetic) puts it …
    replay = Replay.open([LOG], module=report.with_name("game.vmod"))
    scene = scene_at(replay, 126)
    geometry = replay.positions.geometry(scene.maps[0].name)
    assert geometry is not None
    brdm = next(c for c in scene.maps[0].counters if "BRDM" in c.label)
    hx, hy = geometry.point_of(geometry.placements[0].board.name, "0604")
    k = (brdm.x - hx) // 2
    assert k >= 0 and (brdm.x, brdm.y) == (hx + 2 * k, hy - 4 * k)  # its hex centre, stack offset
    # … is where the page draws it, to the pixel
    box = page.evaluate(
        """(id) => { const e = document.querySelector(`.counter[data-piece="${id}"]`);
                     const m = e.closest('.map').getBoundingClientRect(), r = e.firstChild.getBoundingClientRect();
                     return [r.left - m.left, r.top - m.top]; }""", brdm.id)
    assert box == [brdm.layers[0].x, brdm.layers[0].y]  # the image's top-left: centre minus half its size
    # the mark is on the violation's hex
    mark = page.locator("circle.mark.current")
    assert (int(mark.get_attribute("cx") or 0), int(mark.get_attribute("cy") or 0)) == (hx, hy)
    shot = tmp_path / "report-screenshot.png"
    page.screenshot(path=str(shot))
    if os.environ.get("VMODTOOL_REPORT_SCREENSHOT"):
        shutil.copyfile(shot, os.environ["VMODTOOL_REPORT_SCREENSHOT"])
    assert shot.stat().st_size > 10000
    # stepping with the keys and jumping back and forth draws the same board
    page.keyboard.press("ArrowRight")
    assert page.evaluate("vmodReport.step()") == 127
    page.evaluate("vmodReport.go(3)")
    page.evaluate("vmodReport.go(126)")
    again = page.evaluate("(id) => document.querySelector(`.counter[data-piece=\"${id}\"]`).dataset.x", brdm.id)
    assert int(again) == brdm.x
    assert errors == [] and outside == []
    page.close()


def test_hostile_names_stay_text(browser: Any, tmp_path: Path) -> None:
    """A piece name and a chat line that try to close the data block or run
    script are shown as text: no dialog, no image element, no error."""
    from vmodtool.replay import Replay
    from vmodtool.replay.scene import SceneBuilder
    from vmodtool.report.frames import record_frames
    from vmodtool.report.page import write_page

    demo = ROOT / "examples" / "formats"
    replay = Replay.open([demo / "demo.vlog"], module=demo / "demo.vmod")
    builder = SceneBuilder(replay.positions, replay.positions.module)
    frames, _ = record_frames(replay, builder)
    frames.labels[0] = HOSTILE
    frames.steps[0].lines[0] = HOSTILE
    frames.steps[0].player = HOSTILE
    out = tmp_path / "hostile.html"
    write_page(out, frames, builder.catalog, title=HOSTILE,
               findings=[{"source": "audit", "kind": HOSTILE, "severity": "error", "message": HOSTILE,
                          "step": 1, "map": 0, "x": 10, "y": 10, "withdrawn": False}])
    text = out.read_text(encoding="utf-8")
    assert "<img src=x" not in text and text.count("</script>") == 2
    page, errors, outside = _open(browser, out)
    page.evaluate("vmodReport.go(1)")
    assert page.locator("img[src='x']").count() == 0
    assert page.locator("#moves li", has_text=HOSTILE).count() >= 1
    assert page.locator(".counter[title='</script><img src=x onerror=alert(1)>']").count() == 1
    assert errors == [] and outside == []
    page.close()


def test_step_through_a_series_replay_with_notes(browser: Any, tmp_path: Path) -> None:
    """A merged log's own note and a notes file's notes (hostile HTML,
    Cyrillic) in the narrative column: stepping with the keys highlights
    the note of the step the reader is at and dims those ahead, a click on
    a note goes to its step, a note's text stays text."""
    demo = ROOT / "examples" / "formats"
    merge_notes = tmp_path / "merge-notes.txt"
    merge_notes.write_text("0: Пролог: до первого хода\n", encoding="utf-8")
    merged = tmp_path / "merged.vlog"
    made = CliRunner().invoke(cli, ["merge", str(demo / "demo.vlog"), "-o", str(merged), "--notes", str(merge_notes)])
    assert made.exit_code == 0, made.output
    notes = tmp_path / "notes.txt"
    notes.write_text(f"3: {HOSTILE}\n5: Контратака у моста\n", encoding="utf-8")
    out = tmp_path / "series.html"
    made = CliRunner().invoke(cli, ["report", str(merged), "-m", str(demo / "demo.vmod"), "--notes", str(notes),
                                    "-o", str(out)])
    assert made.exit_code == 0, made.output
    page, errors, outside = _open(browser, out)
    column = page.locator("#narrative li")
    assert column.count() == 3
    assert page.locator("#narrative li.current").count() == 0          # at the saved state: no note yet
    assert page.locator("#narrative li.ahead").count() == 3
    page.keyboard.press("ArrowRight")                                   # step 1: the merged log's note
    assert page.evaluate("vmodReport.step()") == 1
    assert page.locator("#narrative li.current .text").all_text_contents() == ["Пролог: до первого хода"]
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("vmodReport.step()") == 3
    assert page.locator("#narrative li.current .text").all_text_contents() == [HOSTILE]
    assert page.locator("#narrative li.ahead").count() == 1
    assert page.locator("img[src='x']").count() == 0
    page.locator("#narrative li", has_text="Контратака").click()       # a click on a note: its step
    assert page.evaluate("vmodReport.step()") == 5
    assert page.locator("#narrative li.current .at").all_text_contents() == ["step 5"]
    assert page.locator("#moves li.noted").count() >= 3                 # the noted steps marked in the list
    page.evaluate("vmodReport.go(0)")
    page.wait_for_function("document.querySelectorAll('#narrative li.current').length === 0")
    # the column sits between the move list and the map
    order = page.evaluate("[...document.body.children].filter(e => e.tagName !== 'SCRIPT').map(e => e.id)")
    assert order == ["side", "narrative", "view"]
    assert errors == [] and outside == []
    page.close()
