"""``vmodtool import``: every module of the corpus gives a scenario that
loads; bad input is one line and exit 2; outputs follow the convention."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tests.conftest import SHARED, rel_id, shared_path
from vmodtool.assemble.builder import build_module_file
from vmodtool.cli import cli
from vmodtool.scenario import load_scenario
from vmodtool.vassal.archive import build_zip

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "formats" / "demo.vmod"
SECTIONS = {"schema", "module", "game", "map", "unit_types", "binding", "rules"}


def _corpus_modules() -> list[Path]:
    """Every module and buildFile the corpus manifest lists."""
    manifest = SHARED / "corpus" / "MANIFEST.tsv"
    if not manifest.exists():
        return []
    with manifest.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [SHARED / "corpus" / row["local_file"] for row in rows if row["kind"] in ("buildFile", "vmod")]


def invoke(args, **kwargs):
    try:
        runner = CliRunner(mix_stderr=False)          # Click 8.1
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(cli, [str(a) for a in args], prog_name="vmodtool", **kwargs)
    return result.exit_code, result.stdout, result.stderr


def _import_and_load(module: Path, out: Path) -> dict:
    args = ["import", module, "-o", out]
    sizes = module.parent / "board-sizes.json"
    if sizes.exists():
        args += ["--board-sizes", sizes]
    code, stdout, stderr = invoke(args)
    assert code == 0, stderr
    assert stdout.startswith(f"wrote {out}: ") and "Traceback" not in stderr
    text = out.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    assert SECTIONS <= set(data)
    scenario = load_scenario(out)                      # module.file is relative to the scenario
    assert scenario.module is not None and scenario.module.file == data["module"]["file"]
    assert not scenario.binding.implied
    code, report, _ = invoke(["check-scenario", out])
    assert code == 0 and ": ok — " in report
    return data


@pytest.mark.parametrize("module", _corpus_modules(), ids=rel_id)
def test_every_corpus_module_imports_to_a_scenario_that_loads(tmp_path, module):
    data = _import_and_load(module, tmp_path / "scenario.yaml")
    assert len(data["game"]["sides"]) >= 2 and data["unit_types"]


def test_the_corpus_is_there():
    shared_path("corpus", "MANIFEST.tsv")
    assert len(_corpus_modules()) >= 13


def test_the_demo_module_and_a_built_module(tmp_path):
    data = _import_and_load(DEMO, tmp_path / "demo.yaml")
    assert data["map"]["from_module"] == "Main Map"
    built = tmp_path / "modern.vmod"
    build_module_file(REPO / "examples" / "modern-tactical" / "scenario.yaml", built, jobs=1)
    data = _import_and_load(built, tmp_path / "modern.yaml")
    assert data["binding"]["faces"] == {"layer": "Face"}
    assert data["log"]["turn_tracker"]["levels"]["turn"] == "Turn"
    assert len(data["binding"]["sides"]) == 2


def test_tld_from_the_command_line(tmp_path):
    folder = shared_path("corpus", "tld")
    out = tmp_path / "sub" / "tld.yaml"
    out.parent.mkdir()
    data = _import_and_load(folder / "buildFile", out)
    assert [s["name"] for s in data["game"]["sides"]] == ["American", "British", "German"]
    assert data["map"]["from_module"] == "Normandy"
    assert {"match": {"prototype": "Unit"}, "type": "unit"} in data["binding"]["units"]
    assert data["binding"]["faces"] == {"layer": "Flip"}
    assert (out.parent / data["module"]["file"]).resolve() == (folder / "buildFile").resolve()


def test_board_size_option_and_a_warning_without_it(tmp_path):
    module = shared_path("corpus", "tld", "buildFile")
    code, _, err = invoke(["import", module, "-o", tmp_path / "a.yaml"])
    assert code == 0 and err.startswith("warning: ") and "Normandy" in err and "--board-size" in err
    assert "predefined setups are not proposed" in err     # (not an error: the skeleton is still written)
    code, _, err = invoke(["import", module, "-o", tmp_path / "b.yaml", "--board-size", "Normandy=5340x5024"])
    # no board warning; the set-up whose save a bare buildFile lacks is named (give --setups)
    assert code == 0 and "Normandy" not in err and "campaign.sav" in err and "--setups" in err
    assert load_scenario(tmp_path / "b.yaml").map.size == (5340, 5024)


def test_stdout_with_dash_or_without_o(tmp_path):
    code, out, _ = invoke(["import", DEMO, "-o", "-"])
    assert code == 0 and out.startswith("# yaml-language-server")
    assert yaml.safe_load(out)["game"]["title"] == "vmodtool Demo"
    code, out2, _ = invoke(["import", DEMO])
    assert code == 0 and out2 == out


def test_an_existing_scenario_is_replaced_atomically(tmp_path):
    out = tmp_path / "s.yaml"
    out.write_text("old\n", encoding="utf-8")
    code, _, _ = invoke(["import", DEMO, "-o", out])
    assert code == 0 and out.read_text(encoding="utf-8").startswith("# yaml-language-server")
    assert [p.name for p in tmp_path.iterdir()] == ["s.yaml"]


def _not_a_module_zip(tmp_path: Path) -> Path:
    path = tmp_path / "photos.vmod"
    path.write_bytes(build_zip({"readme.txt": b"hello"}))
    return path


@pytest.mark.parametrize("make, expect", [
    (lambda t: t / "absent.vmod", "no such file or folder"),
    (lambda t: (t / "notes.vmod").write_text("Заметки\n", encoding="utf-8") and t / "notes.vmod",
     "not a VASSAL module"),
    (_not_a_module_zip, "not a VASSAL module"),
    (lambda t: REPO / "examples" / "formats" / "demo.vlog", "saved game or log, not a module"),
    (lambda t: t, "not an unpacked module"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, make, expect):
    module = make(tmp_path)
    out = tmp_path / "out.yaml"
    code, stdout, err = invoke(["import", module, "-o", out])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("vmodtool: error: "), err
    assert expect in lines[0] and stdout == ""
    assert not out.exists()


def test_outputs_that_are_refused(tmp_path):
    code, _, err = invoke(["import", DEMO, "-o", tmp_path / "s.txt"])
    assert code == 2 and ".yaml or .yml" in err
    module = tmp_path / "game.yml"                     # a buildFile under a YAML name
    module.write_bytes(Path(shared_path("corpus", "kassala", "buildFile.xml")).read_bytes())
    before = module.read_bytes()
    code, _, err = invoke(["import", module, "-o", module])
    assert code == 2 and err.count("\n") == 1 and module.read_bytes() == before
