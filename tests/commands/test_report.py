"""``vmodtool report``: the page and its folder, no player password in it,
bad input as one line and exit 2."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from vmodtool.cli import cli
from vmodtool.replay import Replay

ROOT = Path(__file__).resolve().parents[2]
LOG = ROOT / "examples" / "formats" / "demo.vlog"
MODULE = ROOT / "examples" / "formats" / "demo.vmod"


def _data(page: Path) -> dict[str, object]:
    text = page.read_text(encoding="utf-8")
    found = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', text, re.S)
    assert found is not None
    data: dict[str, object] = json.loads(found.group(1))
    return data


def test_report_of_the_demo(tmp_path: Path) -> None:
    out = tmp_path / "demo.html"
    result = CliRunner().invoke(cli, ["report", str(LOG), "-m", str(MODULE), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "7 steps" in result.output
    data = _data(out)
    assert len(data["changes"]) == 8  # type: ignore[arg-type]
    images = data["images"]
    assert isinstance(images, list) and images
    for name in images:
        assert (tmp_path / name).is_file()  # the sibling folder holds what the page shows
    assert (tmp_path / "demo_files" / "dice.png").is_file()
    steps = data["steps"]
    assert isinstance(steps, list) and steps[0]["player"] == "Алиса"
    assert steps[5]["undone_by"] == 7  # step 6 was undone by step 7
    text = out.read_text(encoding="utf-8")
    replay = Replay.open([LOG], module=MODULE)
    list(replay.steps())
    ids = [pid for pid in replay.roster.players if pid]
    assert ids and not any(pid in text for pid in ids)
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text


def test_bad_inputs(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.vlog"
    bogus.write_bytes(b"not a log at all")
    result = CliRunner().invoke(cli, ["report", str(bogus), "-o", str(tmp_path / "x.html")])
    assert result.exit_code == 2 and "bogus.vlog" in result.output
    assert "Traceback" not in result.output
    wrong = CliRunner().invoke(cli, ["report", str(LOG), "-o", str(tmp_path / "x.png")])
    assert wrong.exit_code == 2
    over = CliRunner().invoke(cli, ["report", str(LOG), "-o", str(LOG)])
    assert over.exit_code == 2 and LOG.read_bytes()[:4] != b"<!DO"
