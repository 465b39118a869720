"""Record the outputs users see, and compare them after a change.

A refactor must leave behaviour byte-identical (issue 41).  ``record OUTDIR``
runs the CLI as users run it (a fresh ``python -m vmodtool`` process per
command, the commands' real options) over every bundled example game and
every game file of the corpus (``$VMODTOOL_SHARED/corpus``, else
``../shared/corpus``), and stores each case's stdout, stderr, exit code and
output files.  ``compare OUTDIR`` runs the same cases with the code of the
working tree it is started from and prints every case that differs, with a
short unified diff; exit code 1 on any difference, 0 when there is none.

The cases (``list`` prints them):

* every example with its own map (``examples/*/scenario.yaml`` without
  ``map.from_module``): ``build`` its module (the zip's entry names and a
  hash of each entry's bytes are recorded: entry dates are not compared);
  with that module, for every log in its ``logs/``: ``replay`` (text and
  ``--format jsonl``), ``check-game`` (text and ``--format json``),
  ``audit`` (text as its README runs it: no ``-m``, plug-ins trusted; and
  ``--format json`` with the built module; the clean ``game-1`` also without
  trusting the plug-ins) and ``report`` with the scenario; and ``batch``
  ``audit``, ``check-game`` and ``replay`` of the logs folder (``-j 1``);
* ``examples/formats``: the demo log with the demo module;
* every corpus save and log: ``replay`` (text and jsonl), ``check-game``
  (text and json), ``report``, with its folder's module when the corpus
  holds one (and its ``board-sizes.json``); the corpus games of the examples
  that bind a published module (The Longest Day, Paths of Glory, Ragnarok)
  are also audited (text and json) and reported with that scenario; The
  Longest Day's 19 logs are also run as the one game they are (a chain),
  ``batch audit`` too.

What is normalised, and only that: the absolute paths of the repository, of
the corpus and of the run's scratch folder (where modules are built and
output files written) are replaced by ``<REPO>``, ``<SHARED>`` and
``<WORK>`` in every text recorded (each run has its own scratch folder; the
report names its output file and folder), and in a batch's JSON records
each game's ``seconds``, ``key`` (hashed over its input paths, which lie in
the scratch folder) and ``signature`` (this user's HMAC, a new secret per
run), and the summary's time and memory.  Nothing else is: the report
embeds no date, random id or temporary path (two runs are byte-identical).
Binary output files (the report's PNG images) are recorded as their SHA-256.
Each run has its own ``$XDG_CACHE_HOME`` in its scratch folder: no scenario
model cached by an earlier run (or by older code) is read.

Usage, from the repository root::

    python benchmarks/output_snapshot.py record /work/baseline
    python benchmarks/output_snapshot.py compare /work/baseline [--only 'corpus/tld/*']
    python /elsewhere/benchmarks/output_snapshot.py compare /work/baseline --repo .   # this tree's code

Cases run two at a time (``--jobs``).  Stdlib only.
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("VMODTOOL_SHARED", REPO.parent / "shared")).resolve()
CORPUS = SHARED / "corpus"
EXAMPLES = REPO / "examples"

#: examples that bind a published module, with the corpus folder and module file of its games
BOUND = {"the-longest-day": ("tld", "buildFile"), "paths-of-glory": ("pog", "buildFile.xml"),
         "ragnarok": ("ragnarok", "buildFile.xml")}
GAME_SUFFIXES = (".vlog", ".vsav", ".log", ".sav")
TIMEOUT = 600                       # seconds per case
DIFF_LINES = 40                     # lines of unified diff shown per differing file
RESULT_FILES = ("command", "exit", "stdout", "stderr")
#: a batch runs its games one after the other in its own process: its records come in one order
BATCH = ["-j", "1", "-q"]
#: what a batch run holds that differs from run to run, in each game's record (its top-level fields:
#: the game's time, this user's HMAC of the record (a new secret per scratch folder), the key
#: hashed over its input paths (a built module lies in the scratch folder)) and in the summary
#: (time and memory)
BATCH_FIELDS = ("seconds", "key", "signature")
BATCH_SUMMARY = re.compile(r"; [0-9.]+ s on ([0-9]+) worker\(s\) \(peak memory of a worker [0-9]+ MB\)")


@dataclass
class Case:
    """One command line: ``args`` after ``python -m vmodtool``; ``{WORK}``
    in an argument is the run's scratch folder, ``{OUT}`` the case's own
    output folder inside it.  ``after`` names a case that must run first
    (it builds the module this one reads)."""

    id: str
    args: list[str]
    after: str | None = None
    module_listing: str | None = None      # a built .vmod to record as entry names + hashes
    outputs: list[str] = field(default_factory=list)
    batch: bool = False                    # a `vmodtool batch` run: its timings and signatures normalised


def _rel(path: Path) -> str:
    """``path`` as given on the command line: relative to the repository
    (the CLI runs there) for the examples, else absolute."""
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return str(path)


def _corpus_id(path: Path) -> str:
    return "corpus/" + str(path.relative_to(CORPUS))


# -- the cases --------------------------------------------------------------------------------------


def example_cases() -> list[Case]:
    cases: list[Case] = []
    for scenario in sorted(EXAMPLES.glob("*/scenario.yaml")):
        if "from_module:" in scenario.read_text("utf-8"):
            continue                                    # bound to a published module: with the corpus
        name = scenario.parent.name
        module = f"{{WORK}}/modules/{name}.vmod"
        build = Case(f"examples/{name}/build", ["build", _rel(scenario), "-o", module], module_listing=module)
        cases.append(build)
        plugins = ["--trust-scenario-plugins"] if (scenario.parent / "rules").is_dir() else []
        for log in sorted((scenario.parent / "logs").glob("*.vlog")):
            base = f"examples/{name}/{log.stem}"
            game = [_rel(log)]
            cases += _game_cases(base, game, ["-m", module], after=build.id)
            cases += [
                Case(f"{base}/audit-text", ["audit", *game, "--scenario", _rel(scenario), *plugins], after=build.id),
                Case(f"{base}/audit-json", ["audit", *game, "--scenario", _rel(scenario), "-m", module, *plugins,
                                            "--format", "json"], after=build.id),
                Case(f"{base}/report-scenario", ["report", *game, "-m", module, "--scenario", _rel(scenario),
                                                 "-o", "{OUT}/report.html"], after=build.id, outputs=["report.html",
                                                                                                     "report_files"]),
            ]
            if plugins and log.stem == "game-1":
                cases.append(Case(f"{base}/audit-untrusted", ["audit", *game, "--scenario", _rel(scenario)],
                                  after=build.id))
        logs = scenario.parent / "logs"
        if logs.is_dir():
            every = [_rel(logs), "--group", "file", "-m", module]
            cases += [
                Case(f"examples/{name}/batch/audit", ["batch", "audit", *every, "--scenario", _rel(scenario),
                                                      *plugins, *BATCH], after=build.id, batch=True),
                Case(f"examples/{name}/batch/check-game", ["batch", "check-game", *every, *BATCH], after=build.id,
                     batch=True),
                Case(f"examples/{name}/batch/replay", ["batch", "replay", *every, *BATCH], after=build.id,
                     batch=True),
            ]
    demo = EXAMPLES / "formats"
    if (demo / "demo.vlog").is_file():
        cases += _game_cases("examples/formats/demo", [_rel(demo / "demo.vlog")], ["-m", _rel(demo / "demo.vmod")])
        cases.append(Case("examples/formats/demo/report", ["report", _rel(demo / "demo.vlog"), "-m",
                                                           _rel(demo / "demo.vmod"), "-o", "{OUT}/report.html"],
                          outputs=["report.html", "report_files"]))
    return cases


def _game_cases(base: str, game: list[str], module: list[str], after: str | None = None) -> list[Case]:
    """replay (text, jsonl) and check-game (text, json) of one game."""
    return [
        Case(f"{base}/replay-text", ["replay", *game, *module], after=after),
        Case(f"{base}/replay-jsonl", ["replay", *game, *module, "--format", "jsonl"], after=after),
        Case(f"{base}/check-game-text", ["check-game", *game, *module], after=after),
        Case(f"{base}/check-game-json", ["check-game", *game, *module, "--format", "json"], after=after),
    ]


def _folder_module(folder: Path) -> list[str]:
    """``-m`` and ``--board-sizes`` for the games of a corpus folder (none
    when the corpus has no module for them)."""
    out: list[str] = []
    candidates = sorted(folder.glob("buildFile*")) + sorted(folder.glob("*.mod")) + sorted(folder.glob("*.vmod"))
    if candidates:
        out += ["-m", str(candidates[0])]
    if (folder / "board-sizes.json").is_file():
        out += ["--board-sizes", str(folder / "board-sizes.json")]
    return out


def corpus_cases() -> list[Case]:
    if not CORPUS.is_dir():
        return []
    bound_by_folder = {corpus: example for example, (corpus, _) in BOUND.items()}
    cases: list[Case] = []
    for folder in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        module = _folder_module(folder)
        example = bound_by_folder.get(folder.name)
        scenario = _rel(EXAMPLES / example / "scenario.yaml") if example else None
        games = sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in GAME_SUFFIXES)
        for game in games:
            base = _corpus_id(game)
            cases += _game_cases(base, [str(game)], module)
            cases += _report_and_audit(base, [str(game)], module, scenario)
        chain = sorted((folder / "game").glob("*.log")) if folder.name == "tld" else []
        if chain:
            base = f"corpus/{folder.name}/game/chain"
            cases += _game_cases(base, [str(p) for p in chain], module)
            cases += _report_and_audit(base, [str(p) for p in chain], module, scenario)
            if scenario is not None:
                cases.append(Case(f"{base}/batch-audit", ["batch", "audit", str(folder / "game"), "--scenario",
                                                          scenario, *module, *BATCH], batch=True))
    return cases


def _report_and_audit(base: str, game: list[str], module: list[str], scenario: str | None) -> list[Case]:
    report = ["report", *game, *module, "-o", "{OUT}/report.html"]
    outputs = ["report.html", "report_files"]
    if scenario is None:
        return [Case(f"{base}/report", report, outputs=outputs)]
    return [
        Case(f"{base}/report-scenario", [*report, "--scenario", scenario], outputs=outputs),
        Case(f"{base}/audit-text", ["audit", *game, "--scenario", scenario, *module]),
        Case(f"{base}/audit-json", ["audit", *game, "--scenario", scenario, *module, "--format", "json"]),
    ]


def all_cases() -> list[Case]:
    return example_cases() + corpus_cases()


def select(cases: list[Case], patterns: Sequence[str]) -> list[Case]:
    """The cases whose id matches one of the glob ``patterns`` (all when
    none), with the build cases they need."""
    if not patterns:
        return cases
    chosen = {c.id for c in cases if any(fnmatch.fnmatchcase(c.id, p) for p in patterns)}
    chosen |= {c.after for c in cases if c.id in chosen and c.after}
    return [c for c in cases if c.id in chosen]


# -- running ----------------------------------------------------------------------------------------


class Normaliser:
    """Replaces the run-specific absolute paths in recorded text."""

    def __init__(self, work: Path) -> None:
        # longest first: the scratch folder may lie below the repository
        pairs = [(str(work), "<WORK>"), (str(REPO), "<REPO>"), (str(SHARED), "<SHARED>")]
        self.pairs = sorted(pairs, key=lambda p: -len(p[0]))

    def __call__(self, text: str) -> str:
        for old, new in self.pairs:
            text = text.replace(old, new)
        return text


def _command_line(case: Case) -> str:
    return " ".join(["vmodtool", *case.args])


def _listing(vmod: Path) -> str:
    """A built module as its entries: name, size and SHA-256 of the bytes
    (the zip's entry dates are the build's time, not its behaviour)."""
    lines = []
    with zipfile.ZipFile(vmod) as zf:
        for info in zf.infolist():
            digest = hashlib.sha256(zf.read(info)).hexdigest()
            lines.append(f"{info.filename}\t{info.file_size}\t{digest}\n")
    return "".join(lines)


def run_case(case: Case, work: Path, dest: Path, normalise: Normaliser) -> float:
    """Run one case, writing its results below ``dest`` (its own folder);
    returns the seconds it took."""
    out = work / "cases" / case.id
    out.mkdir(parents=True, exist_ok=True)
    args = [a.replace("{WORK}", str(work)).replace("{OUT}", str(out)) for a in case.args]
    env = dict(os.environ, PYTHONPATH=str(REPO), VMODTOOL_SHARED=str(SHARED), PYTHONIOENCODING="utf-8",
               XDG_CACHE_HOME=str(work / "cache"))
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "vmodtool", *args], cwd=REPO, env=env, capture_output=True,
                              timeout=TIMEOUT, check=False)
        code, stdout, stderr = str(proc.returncode), proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        code, stdout, stderr = f"timeout after {TIMEOUT} s", exc.stdout or b"", exc.stderr or b""
    seconds = time.perf_counter() - start
    target = dest / case.id
    target.mkdir(parents=True, exist_ok=True)
    (target / "command").write_text(normalise(_command_line(case)) + "\n", encoding="utf-8")
    (target / "exit").write_text(code + "\n", encoding="utf-8")
    out_text, err_text = normalise(_text(stdout)), normalise(_text(stderr))
    if case.batch:
        out_text = "".join(_batch_record(line) for line in out_text.splitlines(keepends=True))
        err_text = _batch_summary(err_text)
    (target / "stdout").write_text(out_text, encoding="utf-8")
    (target / "stderr").write_text(err_text, encoding="utf-8")
    if case.module_listing:
        vmod = Path(case.module_listing.replace("{WORK}", str(work)))
        listing = _listing(vmod) if vmod.is_file() else "(no module written)\n"
        (target / "module.listing").write_text(listing, encoding="utf-8")
    for name in case.outputs:
        _keep_output(out / name, target / "files" / name, normalise)
    return seconds


def _batch_record(line: str) -> str:
    """A batch's JSON record with its run-specific top-level fields
    (``BATCH_FIELDS``) replaced by ``"<field>"``; any other line as is."""
    try:
        record = json.loads(line)
    except ValueError:
        return line
    if not isinstance(record, dict):
        return line
    for name in BATCH_FIELDS:
        if name in record:
            text = f'"{name}": {json.dumps(record[name], ensure_ascii=False)}'
            at = line.rfind(text)                  # the record's own fields follow its result
            if at >= 0:
                line = f'{line[:at]}"{name}": "<{name}>"{line[at + len(text):]}'
    return line


def _batch_summary(text: str) -> str:
    """A batch's summary with its time and memory replaced."""
    return BATCH_SUMMARY.sub(r"; <seconds> s on \1 worker(s) (peak memory of a worker <MB> MB)", text)


def _text(data: bytes) -> str:
    """Bytes as text; bytes that are not UTF-8 are kept visible as escapes."""
    return data.decode("utf-8", errors="backslashreplace")


def _keep_output(src: Path, dst: Path, normalise: Normaliser) -> None:
    """An output file (text: normalised; binary: its SHA-256) or folder."""
    if src.is_dir():
        for child in sorted(src.rglob("*")):
            if child.is_file():
                _keep_output(child, dst / child.relative_to(src), normalise)
        return
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not src.exists():
        dst.with_name(dst.name + ".missing").write_text("not written\n", encoding="utf-8")
        return
    data = src.read_bytes()
    try:
        dst.write_text(normalise(data.decode("utf-8")), encoding="utf-8")
    except UnicodeDecodeError:
        dst.with_name(dst.name + ".sha256").write_text(f"{len(data)} {hashlib.sha256(data).hexdigest()}\n",
                                                       encoding="utf-8")


def run_all(cases: list[Case], dest: Path, jobs: int, progress: Callable[[str], None]) -> dict[str, float]:
    """Run ``cases`` (builds first) into ``dest``; case id -> seconds."""
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="output-snapshot-") as tmp:
        work = Path(tmp).resolve()
        (work / "modules").mkdir()
        normalise = Normaliser(work)
        first = [c for c in cases if any(c.id == d.after for d in cases)]
        rest = [c for c in cases if c not in first]
        done = 0

        def one(case: Case) -> None:
            nonlocal done
            times[case.id] = run_case(case, work, dest, normalise)
            done += 1
            if done % 50 == 0 or done == len(cases):
                progress(f"{done}/{len(cases)} cases")

        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            for batch in (first, rest):
                list(pool.map(one, batch))
    return times


# -- comparing --------------------------------------------------------------------------------------


def _case_files(folder: Path) -> dict[str, Path]:
    return {str(p.relative_to(folder)): p for p in sorted(folder.rglob("*")) if p.is_file()}


def _recorded_ids(root: Path) -> set[str]:
    return {str(p.parent.relative_to(root)) for p in root.rglob("exit")}


def compare_dirs(old: Path, new: Path, ids: Iterable[str], lines: int) -> list[str]:
    """A report of each case whose recorded files differ (empty: none)."""
    out: list[str] = []
    for case_id in sorted(ids):
        a, b = old / case_id, new / case_id
        if not a.is_dir():
            out.append(f"NEW CASE {case_id} (not in the baseline)")
            continue
        if not b.is_dir():
            out.append(f"MISSING CASE {case_id} (in the baseline, not run now)")
            continue
        fa, fb = _case_files(a), _case_files(b)
        diffs: list[str] = []
        for name in sorted(set(fa) | set(fb)):
            ta = fa[name].read_text("utf-8") if name in fa else ""
            tb = fb[name].read_text("utf-8") if name in fb else ""
            if name in fa and name in fb and ta == tb:
                continue
            if name not in fb:
                diffs.append(f"  {name}: in the baseline only")
            elif name not in fa:
                diffs.append(f"  {name}: new (not in the baseline)")
            udiff = list(difflib.unified_diff(ta.splitlines(), tb.splitlines(), f"baseline/{name}", f"now/{name}",
                                              n=1, lineterm=""))
            shown = udiff[:lines]
            diffs += ["    " + line[:300] for line in shown]
            if len(udiff) > lines:
                diffs.append(f"    … {len(udiff) - lines} more diff lines")
        if diffs:
            out.append(f"DIFF {case_id}")
            out += diffs
    return out


# -- command line -----------------------------------------------------------------------------------


def _log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def cmd_record(args: argparse.Namespace) -> int:
    outdir = Path(args.outdir).resolve()
    if outdir.exists() and any(outdir.iterdir()) and not args.force:
        _log(f"{outdir}: exists and is not empty (--force replaces it)")
        return 2
    cases = select(all_cases(), args.only)
    if not CORPUS.is_dir():
        _log(f"no corpus at {CORPUS}: recording the examples only")
    outdir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=outdir.name + ".", dir=outdir.parent))
    start = time.perf_counter()
    times = run_all(cases, tmp / "cases", args.jobs, _log)
    total = time.perf_counter() - start
    slowest = sorted(times.items(), key=lambda kv: -kv[1])[:10]
    (tmp / "RECORD.txt").write_text(
        f"commit {_commit()}\nrecorded {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}\n"
        f"cases {len(cases)}\nseconds {total:.0f} (jobs {args.jobs})\ncorpus {'yes' if CORPUS.is_dir() else 'no'}\n"
        "slowest:\n" + "".join(f"  {s:7.1f} s  {cid}\n" for cid, s in slowest), encoding="utf-8")
    if outdir.exists():
        old = outdir.with_name(outdir.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        outdir.rename(old)
        tmp.rename(outdir)
        shutil.rmtree(old)
    else:
        tmp.rename(outdir)
    _log(f"recorded {len(cases)} cases in {outdir} ({total:.0f} s)")
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    baseline = Path(args.outdir).resolve() / "cases"
    if not baseline.is_dir():
        _log(f"{baseline}: no recorded cases (run 'record' first)")
        return 2
    cases = select(all_cases(), args.only)
    ids = {c.id for c in cases}
    if args.only:
        ids |= {i for i in _recorded_ids(baseline) if any(fnmatch.fnmatchcase(i, p) for p in args.only)}
    else:
        ids |= _recorded_ids(baseline)
    keep = Path(args.keep).resolve() if args.keep else None
    with tempfile.TemporaryDirectory(prefix="output-snapshot-now-") as tmp:
        now = (keep if keep else Path(tmp)) / "cases"
        start = time.perf_counter()
        run_all(cases, now, args.jobs, _log)
        report = compare_dirs(baseline, now, ids, args.lines)
    differing = sum(1 for line in report if not line.startswith(" "))
    for line in report:
        print(line)
    print(f"{differing} of {len(ids)} cases differ ({time.perf_counter() - start:.0f} s)")
    return 1 if differing else 0


def cmd_list(args: argparse.Namespace) -> int:
    for case in select(all_cases(), args.only):
        print(f"{case.id}\t{_command_line(case)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    sub = ap.add_subparsers(dest="command", required=True)
    for name, helptext in (("record", "run every case and store its outputs in OUTDIR"),
                           ("compare", "run the cases again and compare with OUTDIR (exit 1 on a difference)"),
                           ("list", "print the cases")):
        p = sub.add_parser(name, help=helptext)
        if name != "list":
            p.add_argument("outdir", metavar="OUTDIR")
            p.add_argument("--jobs", type=int, default=2, help="cases run at once (default 2)")
        p.add_argument("--repo", metavar="DIR", help="the repository (worktree) whose code and examples are run "
                       "(default: the one this script lies in)")
        p.add_argument("--only", action="append", default=[], metavar="PATTERN",
                       help="only the cases whose id matches this glob, e.g. 'corpus/tld/*' (repeatable)")
        if name == "record":
            p.add_argument("--force", action="store_true", help="replace a non-empty OUTDIR")
        if name == "compare":
            p.add_argument("--keep", metavar="DIR", help="keep this run's outputs in DIR")
            p.add_argument("--lines", type=int, default=DIFF_LINES, help="diff lines shown per differing file")
    args = ap.parse_args(argv)
    if args.repo:
        global REPO, EXAMPLES
        REPO = Path(args.repo).resolve()
        EXAMPLES = REPO / "examples"
        if not (REPO / "vmodtool").is_dir():
            _log(f"{REPO}: no vmodtool package here (--repo names a worktree)")
            return 2
    handler = {"record": cmd_record, "compare": cmd_compare, "list": cmd_list}[args.command]
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
