"""Module-level fuzz, bounded (``VMODTOOL_FUZZ_MODULE_EXAMPLES``, default
20): a module's buildFile damaged the way hand-edited or half-written
modules are (an attribute given a hostile value, an element dropped or
repeated, a character changed, the text cut short) and the commands that
read modules run on it — ``lint``, ``import``, ``inspect`` and, with a log
of that module, ``replay`` and ``check-game``.  Only the documented exit
codes may come out (0, 1, 2, 3), an exit 2 names a file it read, and no
traceback is printed.  ``VMODTOOL_FUZZ_MODULE_EXAMPLES=500`` runs more."""

from __future__ import annotations

import os
import re
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import SHARED
from tests.test_fuzz_games import fuzz_settings, op_strategy, result_problems
from vmodtool.vassal.archive import build_zip

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

#: values a hand-edited attribute may hold where VASSAL wrote another
HOSTILE_VALUES = ("", "-1", "0", "2147483648", "-2147483649", "9" * 40, "1e-320", "1e308", "NaN", "Infinity",
                  "-Infinity", "0x10", "\u0663", "1.5", " 7", "true", "null", "a,b;c\t\\", "\x1b", "<>&'\"",
                  "Пон-Сен-Луи", "../../etc/passwd")
MUTATIONS = ("attribute", "drop", "repeat", "char", "truncate")

Op = tuple[str, float, int]
_ATTRIBUTE = re.compile(r'(\s[\w.:-]+=")([^"]*)(")')
_ELEMENT = re.compile(r"<(VASSAL\.[\w.]+)\b[^<>]*?/>")


@dataclass(frozen=True)
class ModuleCase:
    """A module (a .vmod, or a bare buildFile) and a log played with it (or
    None), with the options its replay needs (board sizes)."""

    name: str
    module: Path
    log: Path | None = None
    options: tuple[str, ...] = ()


def module_cases(shared: Path = SHARED) -> list[ModuleCase]:
    cases = [ModuleCase("formats/demo.vmod", EXAMPLES / "formats" / "demo.vmod", EXAMPLES / "formats" / "demo.vlog")]
    corpus = shared / "corpus"
    if corpus.is_dir():
        for folder, module, log in (("zxvt", "buildFile", "5x5_startup.vlog"),
                                    ("kassala", "buildFile.xml", "Default_Setup.vsav"),
                                    ("ragnarok", "buildFile.xml", "ragnarok-start.vsav")):
            path, game = corpus / folder / module, corpus / folder / log
            sizes = corpus / folder / "board-sizes.json"
            if path.exists() and game.exists():
                cases.append(ModuleCase(f"{folder}/{module}", path, game,
                                        ("--board-sizes", str(sizes)) if sizes.exists() else ()))
    return cases


def _buildfile(case: ModuleCase) -> tuple[str, dict[str, bytes], str]:
    """(buildFile text, the archive's other entries, the buildFile's entry name)."""
    if case.module.suffix == ".vmod":
        import zipfile
        with zipfile.ZipFile(case.module) as z:
            entries = {n: z.read(n) for n in z.namelist()}
        name = "buildFile.xml" if "buildFile.xml" in entries else "buildFile"
        return entries.pop(name).decode("utf-8"), entries, name
    return case.module.read_text("utf-8"), {}, case.module.name


def damage(text: str, ops: Sequence[Op]) -> str:
    """The buildFile text with each of ``ops`` (name, where in [0, 1), a
    value) applied in turn."""
    for name, where, value in ops:
        if name == "attribute":
            found = list(_ATTRIBUTE.finditer(text))
            if found:
                m = found[int(where * len(found))]
                new = HOSTILE_VALUES[value % len(HOSTILE_VALUES)]
                new = new.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
                text = text[:m.start(2)] + new + text[m.end(2):]
        elif name in ("drop", "repeat"):
            found = list(_ELEMENT.finditer(text))
            if found:
                m = found[int(where * len(found))]
                text = text[:m.start()] + (m.group(0) * 2 if name == "repeat" else "") + text[m.end():]
        elif name == "char" and text:
            i = int(where * len(text))
            text = text[:i] + chr(32 + value % 0x3000) + text[i + 1:]
        elif name == "truncate":
            text = text[:int(where * len(text))]
    return text


def damaged_module(case: ModuleCase, ops: Sequence[Op], folder: Path) -> Path:
    text, entries, name = _buildfile(case)
    bad = damage(text, ops).encode("utf-8", "surrogatepass")
    if case.module.suffix == ".vmod":
        path = folder / "fuzz.vmod"
        path.write_bytes(build_zip({name: bad, **entries}, compress_level=1))
    else:
        path = folder / "fuzz-buildFile.xml"
        path.write_bytes(bad)
    return path


def invocations(case: ModuleCase, module: Path, folder: Path) -> list[list[str]]:
    runs = [["lint", str(module)], ["import", str(module), "-o", str(folder / "imported.yaml")],
            ["inspect", str(module)]]
    if case.log is not None:
        opts = ["-m", str(module), *case.options]
        runs += [["replay", str(case.log), *opts, "--step", "3", "--format", "jsonl"],
                 ["check-game", str(case.log), *opts, "--format", "json"]]
    return runs


def exercise(case: ModuleCase, module: Path, folder: Path,
             tally: Counter[tuple[str, int]] | None = None) -> list[str]:
    """Run every command on the damaged ``module``; what went wrong, one
    line each (empty: nothing)."""
    from click.testing import CliRunner

    from vmodtool.cli import cli

    names = {module.name} | ({case.log.name} if case.log is not None else set())
    problems: list[str] = []
    runner = CliRunner()
    for args in invocations(case, module, folder):
        result = runner.invoke(cli, args, catch_exceptions=True)
        if tally is not None:
            tally[args[0], result.exit_code] += 1
        problems += result_problems(args[0], result, names)
    return problems


CASES = module_cases()
MODULE_FUZZ = fuzz_settings("VMODTOOL_FUZZ_MODULE_EXAMPLES", 20)
_op = op_strategy(MUTATIONS)


def _check(case: ModuleCase, ops: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        problems = exercise(case, damaged_module(case, ops, Path(tmp)), Path(tmp))
    assert not problems, f"{case.name} damaged by {ops}:\n" + "\n".join(problems)


@MODULE_FUZZ
@given(st.lists(_op, min_size=1, max_size=3))
def test_damaged_example_module(ops: Any) -> None:
    _check(CASES[0], ops)


@pytest.mark.skipif(len(CASES) < 2, reason="../shared (the corpus) is not available")
@settings(MODULE_FUZZ, max_examples=int(os.environ.get("VMODTOOL_FUZZ_MODULE_EXAMPLES", "8")))
@given(st.sampled_from(CASES[1:] or CASES), st.lists(_op, min_size=1, max_size=3))
def test_damaged_published_modules(case: ModuleCase, ops: Any) -> None:
    _check(case, ops)


def test_every_command_runs_on_an_undamaged_module() -> None:
    """The harness itself: the command lines are valid and pass on the
    module undamaged (a fuzz whose runs all stop at a usage error finds
    nothing)."""
    from click.testing import CliRunner

    from vmodtool.cli import cli

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        module = damaged_module(CASES[0], [], folder)
        codes = [CliRunner().invoke(cli, args).exit_code for args in invocations(CASES[0], module, folder)]
    assert len(codes) == 5 and all(code in (0, 3) for code in codes), codes


def test_damage_changes_what_it_says() -> None:
    text = '<VASSAL.build.GameModule name="x"><VASSAL.build.module.Chatter a="1"/></VASSAL.build.GameModule>'
    assert 'a="NaN"' in damage(text, [("attribute", 0.99, HOSTILE_VALUES.index("NaN"))])
    assert "Chatter" not in damage(text, [("drop", 0.0, 0)])
    assert damage(text, [("repeat", 0.0, 0)]).count("Chatter") == 2
    assert damage(text, [("truncate", 0.5, 0)]) == text[:len(text) // 2]
