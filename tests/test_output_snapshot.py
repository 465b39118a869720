"""benchmarks/output_snapshot.py: the recorder a refactor proves itself
with (issue 41).  It must cover every example log, be deterministic, and
report a changed output with its diff and exit code 1."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "benchmarks" / "output_snapshot.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("output_snapshot", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["output_snapshot"] = module           # (dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=REPO, capture_output=True, text=True,
                          timeout=600, check=False)


def test_every_example_log_is_replayed_checked_audited_and_reported() -> None:
    snap = _script()
    ids = {case.id for case in snap.example_cases()}
    logs = sorted(REPO.glob("examples/*/logs/*.vlog"))
    assert logs
    for log in logs:
        base = f"examples/{log.parent.parent.name}/{log.stem}"
        for kind in ("replay-text", "replay-jsonl", "check-game-text", "check-game-json", "audit-text",
                     "audit-json", "report-scenario"):
            assert f"{base}/{kind}" in ids
    for system in {log.parent.parent.name for log in logs}:
        assert {f"examples/{system}/batch/{cmd}" for cmd in ("audit", "check-game", "replay")} <= ids
    builds = {c.id for c in snap.example_cases() if c.id.endswith("/build")}
    assert "examples/own-art/build" in builds                   # an example without logs is built all the same
    assert {"examples/formats/demo/replay-jsonl", "examples/formats/demo/report"} <= ids


def test_only_selects_by_glob_and_keeps_the_build_a_case_needs() -> None:
    snap = _script()
    chosen = [c.id for c in snap.select(snap.example_cases(), ["examples/modern-tactical/game-1/audit-json"])]
    assert chosen == ["examples/modern-tactical/build", "examples/modern-tactical/game-1/audit-json"]


def test_only_run_specific_paths_are_normalised(tmp_path: Path) -> None:
    snap = _script()
    work = tmp_path / "work"
    normalise = snap.Normaliser(work)
    text = f"{work}/cases/x/report.html: 3 steps; {snap.REPO}/examples/a.vlog; {snap.SHARED}/corpus/b.vsav; 2026-12-07"
    assert normalise(text) == "<WORK>/cases/x/report.html: 3 steps; <REPO>/examples/a.vlog; <SHARED>/corpus/b.vsav; " \
                              "2026-12-07"


def test_a_batch_record_loses_only_its_time_key_and_signature() -> None:
    snap = _script()
    line = ('{"index": 0, "game": "g", "result": {"seconds": 2.5, "key": "inner"}, "seconds": 1.15, '
            '"key": "eca7", "signature": "hmac-sha256:87e8"}\n')
    assert snap._batch_record(line) == ('{"index": 0, "game": "g", "result": {"seconds": 2.5, "key": "inner"}, '
                                        '"seconds": "<seconds>", "key": "<key>", "signature": "<signature>"}\n')
    assert snap._batch_record("game  status\n") == "game  status\n"
    summary = "20 game(s): 15 findings, 5 ok; 2.3 s on 1 worker(s) (peak memory of a worker 48 MB)"
    assert snap._batch_summary(summary) == ("20 game(s): 15 findings, 5 ok; <seconds> s on 1 worker(s) "
                                            "(peak memory of a worker <MB> MB)")


def test_record_then_compare_is_clean_and_a_change_is_reported(tmp_path: Path) -> None:
    out = tmp_path / "baseline"
    only = ["--only", "examples/formats/demo/replay-jsonl", "--only", "examples/formats/demo/rep*rt"]
    recorded = _run("record", str(out), *only)
    assert recorded.returncode == 0, recorded.stderr
    case = out / "cases" / "examples" / "formats" / "demo" / "report"
    assert (case / "exit").read_text() == "0\n"
    assert "<WORK>/cases/examples/formats/demo/report/report.html" in (case / "stdout").read_text()
    assert (case / "files" / "report.html").is_file()
    assert list((case / "files" / "report_files").glob("*.sha256"))       # images: their hashes

    same = _run("compare", str(out), *only)
    assert same.returncode == 0, same.stdout + same.stderr
    assert same.stdout.splitlines()[-1].startswith("0 of 2 cases differ")

    jsonl = out / "cases" / "examples" / "formats" / "demo" / "replay-jsonl" / "stdout"
    lines = jsonl.read_text().splitlines(keepends=True)
    jsonl.write_text("".join(lines[:1] + ['{"kind": "changed"}\n'] + lines[2:]))
    (case / "exit").write_text("1\n")
    changed = _run("compare", str(out), *only)
    assert changed.returncode == 1
    assert "DIFF examples/formats/demo/replay-jsonl" in changed.stdout
    assert '-{"kind": "changed"}' in changed.stdout
    assert "DIFF examples/formats/demo/report" in changed.stdout
    assert changed.stdout.splitlines()[-1].startswith("2 of 2 cases differ")


def test_record_refuses_to_overwrite_a_recording(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    refused = _run("record", str(tmp_path), "--only", "examples/formats/demo/replay-text")
    assert refused.returncode == 2
    assert "not empty" in refused.stderr
    assert (tmp_path / "keep.txt").read_text() == "mine"


def test_repo_names_the_tree_whose_code_runs(tmp_path: Path) -> None:
    listed = _run("list", "--repo", str(REPO), "--only", "examples/formats/demo/replay-text")
    assert listed.returncode == 0
    assert listed.stdout == "examples/formats/demo/replay-text\tvmodtool replay examples/formats/demo.vlog " \
                            "-m examples/formats/demo.vmod\n"
    refused = _run("list", "--repo", str(tmp_path))
    assert refused.returncode == 2
    assert "no vmodtool package" in refused.stderr
