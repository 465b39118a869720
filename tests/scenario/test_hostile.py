"""Hostile scenario files (issue 13, item 4): every value is bounded, and a
file out of bounds is refused with exit 2 and one located line — never a
traceback, exit 70 or gigabytes of memory.

Each reproducer of the issue has a test, made small where the bound allows
(the limit, not the bomb, sets the cost).  Where memory was the failure the
test measures the peak of the check with :mod:`tracemalloc`.

The helpers at the top (the example scenarios as YAML, TOML and CSV text,
the text mutations, :func:`exercise`) are shared with ``tests/test_fuzz.py``
and ``benchmarks/fuzz_scenarios.py``.
"""

from __future__ import annotations

import json
import re
import tempfile
import tracemalloc
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from tests.conftest import game_examples
from tests.scenario.helpers import toml_value
from vmodtool.cli import cli
from vmodtool.errors import VmodError
from vmodtool.scenario import ScenarioProblems, check_scenario, limits, load_scenario, source
from vmodtool.scenario.summary import scenario_summary

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
STARTER = (resources.files("vmodtool").joinpath("data/starter/scenario.yaml").read_text("utf-8")
           .replace("{{id}}", "hostile").replace("{{title}}", "Hostile — Враждебный")
           .replace("{{path}}", "scenario.yaml"))
COUNT_LINE = 'count: 2, labels: ["A", "B"]'
MB = 1024 * 1024

# -- shared with the fuzz tests ------------------------------------------------


def to_toml(yaml_text: str) -> str:
    """A YAML scenario as TOML: one table per top-level mapping, a line per key."""
    data = yaml.safe_load(yaml_text)
    lines = [f"{json.dumps(k)} = {toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for key, value in data.items():
        if isinstance(value, dict):
            lines.append(f"\n[{json.dumps(key)}]")
            lines += [f"{json.dumps(str(k), ensure_ascii=False)} = {toml_value(v)}"
                      for k, v in value.items() if v is not None]
    return "\n".join(lines) + "\n"


def scenario_texts() -> dict[str, tuple[str, bytes]]:
    """name → (kind, content) of real scenarios: the starter and the bundled
    examples as YAML, the starter and one example as TOML, the CSV mix."""
    out: dict[str, tuple[str, bytes]] = {"starter.yaml": ("yaml", STARTER.encode())}
    for path in game_examples():
        out[f"{path.parent.name}.yaml"] = ("yaml", path.read_bytes())
    out["starter.toml"] = ("toml", to_toml(STARTER).encode())
    out["modern-tactical.toml"] = ("toml", to_toml((EXAMPLES / "modern-tactical" / "scenario.yaml")
                                                   .read_text("utf-8")).encode())
    out["ww1-operational.csv"] = ("csv", (EXAMPLES / "ww1-operational" / "counters.csv").read_bytes())
    return out


# mutations: byte edits (as the other fuzz tests do) and edits that aim at the
# bounds: numbers replaced by hostile ones, nesting, control characters,
# repeated lines, and exact substitutions (the seeds)
HOSTILE_NUMBERS = ("9" * 5000, "0x" + "f" * 5000, "1" + "0" * 40, "1e999", "-1e999", ".inf", ".nan", "nan",
                   "1000000000", "1000000001", "100000", "10001", "-5", "0", "0o777", "1_000", "4.5e9",
                   "99999999999999999999")
HOSTILE_CHARS = ("\x00", "\x1b", "\x7f", "\ufeff", "\u2028", "\ufffe", '"\\x00"', '"\\ud800"', '"\\u0000"',
                 "\\", "&a", "*a", "<<: *a", "!!python/object:os.system", "{", "[", "'", '"')
#: explicit tags, put in front of a value by the ``tag`` mutation (a tag its
#: text cannot have made PyYAML raise ValueError, KeyError... once)
HOSTILE_TAGS = ("!!int ", "!!float ", "!!bool ", "!!null ", "!!timestamp ", "!!binary ", "!!str ", "!!set ",
                "!!omap ", "!!pairs ", "!!seq ", "!!map ", "!!merge ", "!!python/tuple ", "!local ",
                "!<tag:yaml.org,2002:int> ", "!!int 0x", "!!float 1:")

Op = tuple[str, Any, Any]


def mutate(kind: str, data: bytes, ops: Sequence[Op]) -> bytes:
    """Apply ``ops`` to a file's bytes.  Each op is ``(name, a, b)``:
    ``flip``/``insert``/``delete``/``truncate`` (a: where, 0…1; b: a byte),
    ``number`` (a: where; b: index into :data:`HOSTILE_NUMBERS`) replaces the
    number nearest to ``a``, ``nest`` (a: where; b: depth) inserts brackets,
    ``char`` (a: where; b: index into :data:`HOSTILE_CHARS`), ``repeat``
    (a: where; b: times) repeats a line, ``tag`` (a: where; b: index into
    :data:`HOSTILE_TAGS`) tags the value after the nearest ``: `` or ``- ``
    (``=`` in TOML), ``sub`` (a: old text; b: new text)."""
    buf = bytearray(data)
    for name, a, b in ops:
        if name == "sub":
            buf = bytearray(bytes(buf).replace(str(a).encode(), str(b).encode(), 1))
            continue
        if not buf:
            break
        i = int(a * len(buf))
        if name == "flip":
            buf[i] ^= b or 1
        elif name == "insert":
            buf[i:i] = bytes([b % 256])
        elif name == "delete":
            del buf[i:i + 1 + b % 8]
        elif name == "truncate":
            del buf[i:]
        elif name == "number":
            numbers = list(re.finditer(rb"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", bytes(buf)))
            if numbers:
                m = min(numbers, key=lambda n: abs(n.start() - i))
                new = HOSTILE_NUMBERS[b % len(HOSTILE_NUMBERS)].encode()
                buf[m.start():m.end()] = new
        elif name == "nest":
            depth = int(b)
            opening, closing = (b"{a=" * depth, b"}" * depth) if kind == "toml" and depth % 2 else \
                (b"[" * depth, b"]" * depth)
            buf[i:i] = opening + b"1" + closing
        elif name == "char":
            buf[i:i] = HOSTILE_CHARS[b % len(HOSTILE_CHARS)].encode("utf-8", "surrogatepass")
        elif name == "tag":
            values = list(re.finditer(rb"= " if kind == "toml" else rb"(?::|^ *-) ", bytes(buf), re.M))
            if values:
                m = min(values, key=lambda v: abs(v.end() - i))
                buf[m.end():m.end()] = HOSTILE_TAGS[b % len(HOSTILE_TAGS)].encode()
        elif name == "repeat":
            start = bytes(buf).rfind(b"\n", 0, i) + 1
            end = bytes(buf).find(b"\n", i)
            end = len(buf) if end < 0 else end + 1
            buf[end:end] = bytes(buf[start:end]) * min(int(b), 5000)
    return bytes(buf)


def exercise(kind: str, content: bytes, folder: Path) -> list[str]:
    """Check ``content`` as a scenario (``yaml``/``toml``) or as the counter
    mix CSV of the WW1 example (``csv``) in ``folder``; the problems as text.
    Only a :class:`VmodError` may come out of loading (``ScenarioProblems``
    is one); anything else propagates and is a finding."""
    if kind == "csv":
        path = folder / "scenario.yaml"
        if not path.exists():
            path.write_bytes((EXAMPLES / "ww1-operational" / "scenario.yaml").read_bytes())
        (folder / "counters.csv").write_bytes(content)
    else:
        path = folder / f"scenario.{kind}"
        path.write_bytes(content)
    try:
        scenario = load_scenario(path)   # check_scenario, raising ScenarioProblems on errors
    except VmodError as exc:   # ScenarioProblems is one; nothing else may come out
        lines = exc.lines() if isinstance(exc, ScenarioProblems) else [str(exc)]
        assert lines and "\n" not in str(exc)
    else:
        scenario_summary(scenario)
        lines = [str(p) for p in check_scenario(path)[1]]
    for line in lines:
        assert "\n" not in line and "\r" not in line, line
    return lines


# -- the tests ---------------------------------------------------------------------


def run_check(path: Path) -> tuple[int, list[str]]:
    result = CliRunner().invoke(cli, ["check-scenario", str(path)])
    return result.exit_code, result.output.splitlines()


def write(folder: Path, text: str | bytes, name: str = "scenario.yaml") -> Path:
    path = folder / name
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def line_col_of(text: str, needle: str) -> tuple[int, int]:
    offset = text.index(needle)
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def assert_refused(path: Path, line: int | None, column: int | None, key: str, *words: str) -> str:
    """check-scenario exits 2 and its first line names the file, the place and
    the key path, and says what is wrong (``words``); the message is returned."""
    code, output = run_check(path)
    assert code == 2, output
    first = output[0]
    where = (re.escape(str(path)) + (f":{line}" if line else r"(?::\d+)?") + (f":{column}" if column else r"(?::\d+)?")
             + ": " + (re.escape(key) + ": " if key else ""))
    assert re.match(where, first), (first, where)
    for word in words:
        assert word in first, (word, first)
    return first


def peak_bytes(func: Callable[[], object]) -> int:
    """Peak memory (bytes) that ``func`` allocates, by tracemalloc."""
    tracemalloc.start()
    try:
        func()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    # the schema and the validator are loaded once per process: not a file's cost
    with tempfile.TemporaryDirectory() as folder:
        check_scenario(write(Path(folder), STARTER))


def test_the_starter_is_within_every_bound(tmp_path):
    assert run_check(write(tmp_path, STARTER))[0] == 0
    assert run_check(write(tmp_path, to_toml(STARTER), "scenario.toml"))[0] == 0


def test_an_integer_of_5000_digits_is_refused_before_it_is_converted(tmp_path):
    text = STARTER.replace("hex_height: 64", "hex_height: " + "9" * 5000)
    line, col = line_col_of(text, "9" * 100)
    assert_refused(write(tmp_path, text), line, col, "map.grid.hex_height", "5000 characters",
                   "1,000,000,000")
    # the same in TOML (tomllib would raise ValueError: Python's 4300-digit limit)
    toml = to_toml(STARTER).replace('"hex_height" = 64', '"hex_height" = ' + "9" * 5000)
    line, col = line_col_of(toml, "9" * 100)
    assert_refused(write(tmp_path, toml, "scenario.toml"), line, col, "", "5000 characters")


def test_a_hex_literal_of_5000_digits_is_refused(tmp_path):
    text = STARTER.replace("hex_height: 64", "hex_height: 0x" + "f" * 5000)
    line, col = line_col_of(text, "0xff")
    assert_refused(write(tmp_path, text), line, col, "map.grid.hex_height", "5002 characters")
    toml = to_toml(STARTER).replace('"hex_height" = 64', '"hex_height" = 0x' + "f" * 5000)
    line, col = line_col_of(toml, "0xff")
    assert_refused(write(tmp_path, toml, "scenario.toml"), line, col, "", "5002 characters")


@pytest.mark.parametrize("number, words", [
    ("1000000001", "out of range"), ("-2000000000", "out of range"), ("1.0e+12", "out of range"),
    (".inf", "not a finite number"), ("-.inf", "not a finite number"), (".nan", "not a finite number"),
    ("1.0e+999", "not a finite number"),
])
def test_numbers_beyond_the_magnitude_bound_are_refused(tmp_path, number, words):
    text = STARTER.replace("hex_height: 64", f"hex_height: {number}")
    line, col = line_col_of(text, f"hex_height: {number}")
    assert_refused(write(tmp_path, text), line, col + len("hex_height: "), "map.grid.hex_height", words)


def test_toml_inf_nan_and_huge_hex_values_are_refused(tmp_path):
    for value, words in (("inf", "not a finite number"), ("nan", "not a finite number"),
                         ("0x" + "f" * 20, "out of range")):
        toml = to_toml(STARTER).replace('"hex_height" = 64', f'"hex_height" = {value}')
        line, _ = line_col_of(toml, '"hex_height"')
        first = assert_refused(write(tmp_path, toml, "scenario.toml"), line, None, "map.grid.hex_height", words)
        assert f":{line}:" in first


def test_deep_toml_is_refused_before_tomllib_recurses(tmp_path):
    toml = to_toml(STARTER) + "deep = " + "[" * 5000 + "]" * 5000 + "\n"
    line, col = line_col_of(toml, "deep = ")
    first = assert_refused(write(tmp_path, toml, "scenario.toml"), line, col + len("deep = ") + 64, "",
                           "nested deeper than 64 levels")
    # inline tables too, and brackets inside strings and comments do not count
    toml = to_toml(STARTER) + "deep = " + "{a = " * 100 + "1" + "}" * 100 + "\n"
    assert "nested deeper" in assert_refused(write(tmp_path, toml, "scenario.toml"), None, None, "")
    fine = to_toml(STARTER) + '[vassal]\nx = "' + "[" * 100 + '" # ' + "{" * 100 + "\ny = '''" + "[" * 100 + "'''\n"
    code, output = run_check(write(tmp_path, fine, "scenario.toml"))
    assert code == 0, output
    assert first


def test_deep_yaml_is_refused_with_its_place(tmp_path):
    text = STARTER + "vassal: " + "[" * 5000 + "]" * 5000 + "\n"
    line, _ = line_col_of(text, "vassal: [")
    first = assert_refused(write(tmp_path, text), line, None, "")
    # libyaml stops flow nesting itself (at 1000 levels), after the pre-scan's 64
    assert "nested deeper than 64 levels" in first or "exceeded maximum nesting depth" in first
    assert re.match(rf".*:{line}:\d+: ", first)
    text = STARTER + "vassal: " + "[" * 65 + "]" * 65 + "\n"
    # the top-level mapping is the first level, so the 64th bracket is one too many
    assert_refused(write(tmp_path, text), line, len("vassal: ") + 64, "", "nested deeper than 64 levels")
    # block style as well (the composer recurses per level)
    block = STARTER + "vassal:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 80)) + "  " * 80 + "v: 1\n"
    assert "nested deeper than 64" in assert_refused(write(tmp_path, block), None, None, "")


def test_a_nul_in_yaml_is_a_located_yaml_error(tmp_path):
    text = STARTER.replace('name: "Main Map"', 'name: "Main\0Map"')
    line, col = line_col_of(text, "\0")
    assert_refused(write(tmp_path, text), line, col, "", "U+0000", "not valid YAML")
    # other reader errors: a control character, and a lone surrogate escape that
    # decodes to text no VASSAL module could hold
    text = STARTER.replace('name: "Main Map"', 'name: "Main\x1bMap"')
    line, col = line_col_of(text, "\x1b")
    assert_refused(write(tmp_path, text), line, col, "", "U+001B")
    for escape, code in (("\\x00", "U+0000"), ("\\e", "U+001B")):
        text = STARTER.replace('name: "Main Map"', f'name: "Main{escape}Map"')
        line, col = line_col_of(text, '"Main')
        assert_refused(write(tmp_path, text), line, col, "map.name", code, "control character")


def test_a_nul_escape_in_toml_and_a_long_text_are_refused(tmp_path):
    toml = to_toml(STARTER).replace('"name" = "Main Map"', '"name" = "Main\\u0000Map"')
    line, _ = line_col_of(toml, '"name" = "Main')
    assert_refused(write(tmp_path, toml, "scenario.toml"), line, None, "map.name", "U+0000")
    text = STARTER.replace('name: "Main Map"', 'name: "' + "x" * (limits.MAX_TEXT + 1) + '"')
    line, col = line_col_of(text, '"xxx')
    assert_refused(write(tmp_path, text), line, col, "map.name", f"{limits.MAX_TEXT + 1:,} characters")


def test_a_billion_counters_in_yaml_stay_small(tmp_path, monkeypatch):
    text = STARTER.replace(COUNT_LINE, "count: 1000000000")
    path = write(tmp_path, text)
    line, col = line_col_of(text, "1000000000")
    assert_refused(path, line, col, "counters[0].count", "1000000000", "maximum 10000")
    assert peak_bytes(lambda: check_scenario(path)) < 32 * MB
    # within the per-line bound, the whole mix is bounded too (the bound made
    # small here: the cost is the bound's)
    monkeypatch.setattr(limits, "MAX_COUNTERS", 1000)
    many = STARTER.replace("counters:\n", "counters:\n" + "".join(
        f"  - {{id: bulk{i}, type: infantry, side: blue, count: 300}}\n" for i in range(4)))
    line, col = line_col_of(many, "bulk3")
    assert_refused(write(tmp_path, many), line, col + len("bulk3, type: infantry, side: blue, count: "),
                   "counters[3].count", "grows past 1,000 counters")


def test_a_billion_counters_in_csv_stay_small(tmp_path):
    folder = tmp_path / "ww1"
    folder.mkdir()
    scenario = write(folder, (EXAMPLES / "ww1-operational" / "scenario.yaml").read_bytes())
    csv_text = (EXAMPLES / "ww1-operational" / "counters.csv").read_text("utf-8").splitlines()
    csv_text[3] = csv_text[3].rsplit(",", 1)[0] + ",1000000000"
    csv_path = write(folder, "\n".join(csv_text) + "\n", "counters.csv")
    code, output = run_check(scenario)
    assert code == 2
    assert output[0] == f"{csv_path}:4: counters.count: the number 1000000000 is out of range (maximum 10000)"
    assert peak_bytes(lambda: check_scenario(scenario)) < 32 * MB
    # a count of 5000 digits is refused by its length, never converted
    csv_text[3] = csv_text[3].rsplit(",", 1)[0] + "," + "9" * 5000
    write(folder, "\n".join(csv_text) + "\n", "counters.csv")
    code, output = run_check(scenario)
    assert code == 2 and output[0].startswith(f"{csv_path}:4: counters.count: count '9999")


def test_csv_nul_bytes_long_fields_and_too_many_rows_are_refused(tmp_path, monkeypatch):
    folder = tmp_path / "ww1"
    folder.mkdir()
    scenario = write(folder, (EXAMPLES / "ww1-operational" / "scenario.yaml").read_bytes())
    lines = (EXAMPLES / "ww1-operational" / "counters.csv").read_text("utf-8").splitlines()
    bad = list(lines)
    bad[2] = bad[2].replace("IV R", "IV\0R")
    csv_path = write(folder, "\n".join(bad) + "\n", "counters.csv")
    assert run_check(scenario)[1][0] == f"{csv_path}:3: counters.label: the text holds the control character " \
                                        "U+0000 at character 3; scenario texts cannot contain it"
    bad = list(lines)
    bad[2] = bad[2].replace("IV R", "I" * (limits.MAX_TEXT + 1))
    write(folder, "\n".join(bad) + "\n", "counters.csv")
    assert run_check(scenario)[1][0].startswith(f"{csv_path}:3: counters.label: a text of 10001 characters")
    # the row bound (made small here: the cost is the bound's)
    monkeypatch.setattr(source, "MAX_CSV_ROWS", 5)
    write(folder, "\n".join(lines) + "\n", "counters.csv")
    code, output = run_check(scenario)
    assert code == 2 and output[0].startswith(f"{csv_path}:7: more than 5 rows"), output[0]


def test_a_100000_by_100000_grid_is_refused_in_milliseconds_of_memory(tmp_path):
    text = STARTER.replace("columns: 8", "columns: 100000").replace("rows: 6", "rows: 100000")
    path = write(tmp_path, text)
    line, col = line_col_of(text, "100000")
    assert_refused(path, line, col, "map.grid.columns", "100000", "maximum 1000")
    assert peak_bytes(lambda: check_scenario(path)) < 32 * MB
    # within the per-line bound: the number of hexes, then the board's pixels
    text = STARTER.replace("columns: 8", "columns: 1000").replace("rows: 6", "rows: 1000")
    line, col = line_col_of(text, "kind: hex")
    assert_refused(write(tmp_path, text), line, col, "map.grid", "1,000,000 hexes", "250,000")
    text = STARTER.replace("columns: 8", "columns: 500").replace("hex_height: 64", "hex_height: 200")
    path = write(tmp_path, text)
    line, col = line_col_of(text, "kind: hex")
    assert_refused(path, line, col, "map.grid", "the board would be 86,708×1,348 pixels", "30,000")
    assert peak_bytes(lambda: check_scenario(path)) < 32 * MB


@pytest.mark.parametrize("old, new, key, words", [
    ("leading_zeros: 1}\n      row", "leading_zeros: 1000000}\n      row", "map.grid.numbering.column.leading_zeros",
     "maximum 10"),
    ("{type: numeric, start: 1, leading_zeros: 1}\n      row", "{type: alpha, start: 5000}\n      row",
     "map.grid.numbering.column.start", "at most at index 1000"),
    ("{type: numeric, start: 1, leading_zeros: 1}\n      row", "{type: alpha, start: " + "A" * 2000 + "}\n      row",
     "map.grid.numbering.column.start", ""),
    ('separator: ""', 'separator: "' + "-" * 100 + '"', "map.grid.numbering.separator",
     "a text of 100 characters is too long (maximum 8)"),
    ("hex_height: 64", "hex_height: 64\n    margin: 500000000", "map.grid.margin", "maximum 30000"),
    ("  id: main\n", "  id: main\n  size: [100000, 100]\n", "map.size[0]", "maximum 30000"),
    ("boxes:\n", "tracks:\n  - {id: t, name: T, kind: generic, spaces: 1000000000}\nboxes:\n", "tracks[0].spaces",
     "maximum 1000"),
    # what the counter renderers allocate by
    ("boxes:\n", "styles:\n  counter: {size: 100000in}\nboxes:\n", "styles.counter.size", "at most 4in"),
    ("boxes:\n", "styles:\n  counter: {vassal_px: 1000000}\nboxes:\n", "styles.counter.vassal_px", "maximum 1000"),
    ("boxes:\n", "styles:\n  counter: {vassal_dpi: 1000000}\nboxes:\n", "styles.counter.vassal_dpi", "maximum 1200"),
    ("boxes:\n", "styles:\n  counter: {marker_counts: {x: 1000000000}}\nboxes:\n", "styles.counter.marker_counts.x",
     "maximum 10000"),
])
def test_field_bounds_are_located(tmp_path, old, new, key, words):
    assert old in STARTER
    text = STARTER.replace(old, new, 1)
    code, output = run_check(write(tmp_path, text))
    assert code == 2
    hits = [line for line in output if f": {key}: " in line]
    assert hits, output
    assert re.match(rf"{re.escape(str(tmp_path / 'scenario.yaml'))}:\d+:\d+: {re.escape(key)}: ", hits[0])
    assert words in hits[0]


def test_chits_steps_and_turns_are_bounded(tmp_path):
    text = STARTER.replace("boxes:\n", "formations:\n  - {id: f1, side: blue, name: F, chits: 1000000000}\nboxes:\n")
    text = re.sub(r"(  tank:\n    name: \"Tank company\"\n)", r"\1    steps: 1000000\n", text)
    text = re.sub(r"turns:\n  first: 1\n  last: \d+", "turns:\n  first: 1\n  last: 1000000000", text)
    code, output = run_check(write(tmp_path, text))
    assert code == 2
    joined = "\n".join(output)
    for key, limit in (("formations[0].chits", 100), ("unit_types.tank.steps", 100), ("turns.last", 10000)):
        if key == "turns.last" and "turns:" not in STARTER:
            continue
        assert f": {key}: the number" in joined and f"(maximum {limit})" in joined, (key, joined)


def test_file_size_list_length_and_value_count_bounds(tmp_path, monkeypatch):
    # the bounds are made small so that the test is: the cost is the bound's
    monkeypatch.setattr(source, "MAX_FILE_BYTES", 1000)
    path = write(tmp_path, STARTER)
    assert_refused(path, None, None, "", "larger than 0 MB")
    monkeypatch.undo()
    monkeypatch.setattr(source, "MAX_ITEMS", 20)
    text = STARTER + "vassal: {x: [" + "1, " * 20 + "1]}\n"
    line, col = line_col_of(text, "[1, 1")
    assert_refused(write(tmp_path, text), line, col, "vassal.x", "21 entries", "at most 20")
    toml = to_toml(STARTER) + "[vassal]\nx = [" + "1, " * 20 + "1]\n"
    line, _ = line_col_of(toml, "x = [1")
    assert_refused(write(tmp_path, toml, "scenario.toml"), line, None, "vassal.x", "21 entries")
    monkeypatch.undo()
    monkeypatch.setattr(source, "MAX_NODES", 300)
    first = assert_refused(write(tmp_path, STARTER + "vassal: {x: [" + "1, " * 400 + "1]}\n"), None, None, "",
                           "more than 300 values")
    assert re.match(r".*:\d+:\d+: ", first)
    toml = to_toml(STARTER) + "[vassal]\nx = [" + "1, " * 400 + "1]\n"
    assert "more than 300 values" in assert_refused(write(tmp_path, toml, "scenario.toml"), None, None, "")


def test_the_limits_are_in_the_schema_and_the_docs():
    schema = json.loads(resources.files("vmodtool").joinpath("data/scenario.schema.json").read_text("utf-8"))
    defs = schema["$defs"]
    assert defs["counter"]["properties"]["count"]["maximum"] == limits.MAX_COUNT
    assert defs["counters"]["anyOf"][0]["maxItems"] == limits.MAX_ITEMS
    assert defs["grid"]["properties"]["columns"]["maximum"] == limits.MAX_GRID_LINES
    assert defs["grid"]["properties"]["rows"]["maximum"] == limits.MAX_GRID_LINES
    assert defs["pixel_pair"]["items"]["maximum"] == limits.MAX_MAP_PIXELS
    assert defs["numbering"]["properties"]["separator"]["maxLength"] == limits.MAX_SEPARATOR
    assert defs["numbering_part"]["properties"]["leading_zeros"]["maximum"] == limits.MAX_LEADING_ZEROS
    assert defs["track"]["properties"]["spaces"]["anyOf"][0]["maximum"] == limits.MAX_TRACK_SPACES
    assert defs["formation"]["properties"]["chits"]["maximum"] == limits.MAX_CHITS
    assert defs["unit_type"]["properties"]["steps"]["maximum"] == limits.MAX_STEPS
    assert defs["turns"]["properties"]["last"]["maximum"] == limits.MAX_TURN
    doc = (REPO / "docs" / "scenario-format.md").read_text("utf-8")
    section = doc[doc.index("## Limits"):]
    for value in (limits.MAX_FILE_BYTES // MB, limits.MAX_DEPTH, limits.MAX_NODES, limits.MAX_ITEMS,
                  limits.MAX_TEXT, limits.MAX_NUMBER, limits.MAX_COUNT, limits.MAX_COUNTERS, limits.MAX_CSV_ROWS,
                  limits.MAX_GRID_LINES, limits.MAX_HEXES, limits.MAX_MAP_PIXELS, limits.MAX_TRACK_SPACES,
                  limits.MAX_CHITS, limits.MAX_STEPS, limits.MAX_TURN, limits.MAX_LEADING_ZEROS,
                  limits.MAX_SEPARATOR, limits.MAX_NUMBER_CHARS):
        assert f"{value:,}" in section, value


def _reproducers() -> Iterable[tuple[str, str, list[Op]]]:
    """The issue's reproducers as mutations of the example scenarios (the fuzz seeds)."""
    yield "starter.yaml", "yaml", [("sub", "hex_height: 64", "hex_height: " + "9" * 5000)]
    yield "starter.yaml", "yaml", [("sub", "hex_height: 64", "hex_height: 0x" + "f" * 5000)]
    yield "starter.toml", "toml", [("nest", 0.99, 5000)]
    yield "starter.yaml", "yaml", [("sub", "Main Map", "Main\0Map")]
    yield "starter.yaml", "yaml", [("sub", COUNT_LINE, "count: 1000000000")]
    yield "ww1-operational.csv", "csv", [("sub", "208|183|50 R,3", "208|183|50 R,1000000000")]
    yield "starter.yaml", "yaml", [("sub", "columns: 8", "columns: 100000"), ("sub", "rows: 6", "rows: 100000")]
    # found by the fuzz with tags: a face's state value a list, a factor named by a number
    yield "starter.yaml", "yaml", [("sub", "state: {step: full}", "state: {step: !!seq [full]}")]
    yield "starter.yaml", "yaml", [("sub", "defense: 4, move: 4", "defense: 4,5")]
    yield "starter.yaml", "yaml", [("sub", 'name: "Main Map"', "name: !!int Main")]


REPRODUCERS = list(_reproducers())


@pytest.mark.parametrize("name, kind, ops", REPRODUCERS, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(REPRODUCERS)])
def test_the_reproducers_as_mutations_are_refused(tmp_path, name, kind, ops):
    texts = scenario_texts()
    content = mutate(kind, texts[name][1], ops)
    assert content != texts[name][1]
    problems = exercise(kind, content, tmp_path)
    assert problems and all(re.match(r"[^:]+:\d+(:\d+)?: ", p) for p in problems), problems


def test_mutations_do_what_they_say():
    texts = scenario_texts()
    kind, data = texts["starter.yaml"]
    assert b"9" * 5000 in mutate(kind, data, [("number", 0.5, 0)])
    assert b"[" * 70 in mutate(kind, data, [("nest", 0.5, 70)])
    assert b"\0" in mutate(kind, data, [("char", 0.5, 0)])
    assert re.search(rb"(?::|-) !!int [^\n]", mutate(kind, data, [("tag", 0.5, 0)]))
    assert len(mutate(kind, data, [("repeat", 0.5, 3)])) > len(data)
    assert b"{a=" * 71 in mutate("toml", texts["starter.toml"][1], [("nest", 0.5, 71)])


@pytest.mark.parametrize("libyaml", [True, False], ids=["libyaml", "pure-python"])
def test_both_yaml_loaders_have_the_same_bounds(tmp_path, monkeypatch, libyaml):
    monkeypatch.setattr(source, "USE_LIBYAML", libyaml)
    cases = [
        (STARTER.replace("hex_height: 64", "hex_height: " + "9" * 5000), "9" * 100, "map.grid.hex_height"),
        (STARTER.replace("hex_height: 64", "hex_height: 0x" + "f" * 5000), "0xff", "map.grid.hex_height"),
        (STARTER.replace('name: "Main Map"', 'name: "Main\0Map"'), "\0", ""),
        (STARTER.replace('name: "Мапа"', "").replace('name: "Main Map"', 'name: "Карта\x1bМапа"'), "\x1b", ""),
        (STARTER + "vassal: " + "[" * 63 + "{x: [1]}" + "]" * 63 + "\n", "{x: [", ""),
        (STARTER.replace(COUNT_LINE, "count: 1000000000"), "1000000000", "counters[0].count"),
    ]
    for text, needle, key in cases:
        line, col = line_col_of(text, needle)
        assert_refused(write(tmp_path, text), line, col, key)
    # the same values and positions either way
    assert source.load_yaml(STARTER, "s").data == yaml.safe_load(STARTER)
    doc = source.load_yaml(STARTER, "s")
    assert doc.where(("map", "grid", "columns")) == line_col_of(STARTER, "8\n    rows")
    assert doc.is_unquoted_number(("map", "grid", "columns")) == "8"


@pytest.mark.parametrize("pattern, words, code", [
    ("(" * 3000 + ")" * 3000, "nests 3000 groups; at most 64", 2),      # RecursionError in re's parser
    ("a{99999999999}", "the repetition number is too large", 2),         # OverflowError
    ("[[a]]", "warning: regular expression: Possible nested set", 0),   # a FutureWarning, as a warning
    (r"\(" * 100 + "[(((]" * 100, "", 0),                               # escaped and in classes: no groups
])
def test_log_regexes_are_compiled_within_bounds(tmp_path, pattern, words, code):
    text = STARTER + "log:\n  dice_regex: '" + pattern + "'\n"
    result, output = run_check(write(tmp_path, text))
    assert result == code, output
    if words:
        line, col = line_col_of(text, "'" + pattern[:5])
        assert output[0].startswith(f"{tmp_path / 'scenario.yaml'}:{line}:{col}: log.dice_regex: "), output[0]
        assert words in output[0]


def test_did_you_mean_hints_have_a_budget(tmp_path, monkeypatch):
    # thousands of unknown names among thousands of known ones cost minutes of
    # difflib; past the budget (made small here) the problems come without hints
    monkeypatch.setattr(limits, "MAX_HINT_COMPARISONS", 40)
    text = STARTER.replace("setup:", "setup:\n  - {box: blue_dead, units: ["
                           + ", ".join(f"blue.inf.{i}x" for i in range(30)) + "]}", 1)
    code, output = run_check(write(tmp_path, text))
    assert code == 2
    unknown = [line for line in output if "unknown unit 'blue.inf." in line]
    assert len(unknown) == 30
    hinted = [line for line in unknown if "did you mean" in line]
    assert hinted and len(hinted) < len(unknown)
    assert all("did you mean" in line for line in unknown[:len(hinted)])


@pytest.mark.parametrize("libyaml", [True, False], ids=["libyaml", "pure-python"])
@pytest.mark.parametrize("tagged, words", [
    ("!!int margin", "'margin' is not a YAML int, which its tag !!int asks for"),
    ("!!float x", "'x' is not a YAML float"),
    ("!!bool maybe", "'maybe' is not a YAML bool"),
    ("!!timestamp nope", "'nope' is not a YAML timestamp"),
    ('!!int ""', "'' is not a YAML int"),
])
def test_a_tag_its_text_cannot_have_is_located_not_a_crash(tmp_path, monkeypatch, libyaml, tagged, words):
    # PyYAML's constructors raise ValueError, KeyError, IndexError... for these
    # (found by mutating the bundled scenarios: exit 70 before)
    monkeypatch.setattr(source, "USE_LIBYAML", libyaml)
    text = STARTER.replace('name: "Main Map"', "name: " + tagged)
    line, col = line_col_of(text, tagged)
    assert words in assert_refused(write(tmp_path, text), line, col, "")


def test_values_and_places_are_pyyaml_s_for_every_scalar_kind():
    # the builder converts str/int/float/bool/null scalars itself: what PyYAML's
    # safe loader gives, for every form the core schema reads
    text = ("a: [0x1F, 0o17, 017, 1_000, '12', -0, +12, 0b101, 190:20:30]\n"
            "b: [3e5, 1.5, -2., 6.8523015e+5, 1_0.5, 1:30.5]\n"
            "c: [yes, No, on, OFF, true, False, ~, null, '', \"x\\ty\", plain text]\n"
            "d: [2001-12-14, !!str 12, !!int '7', !!float 3, !!null '', !!binary aGVsbG8=]\n"
            "e: {<<: {p: 1}, q: &x [1, 2], r: *x}\n")
    doc = source.load_yaml(text, "s")
    assert not doc.problems
    expected = yaml.safe_load(text)
    got = doc.data
    expected["d"][0] = "2001-12-14"          # dates are kept as written
    assert repr(got) == repr(expected)
    # (not finite: refused, where it is written)
    bad = "b: [1, .inf, -.Inf, .nan]\n"
    refused = source.load_yaml(bad, "s").problems
    assert [(p.column, p.message) for p in refused] == [
        (line_col_of(bad, written)[1], f"{value} is not a finite number")
        for written, value in ((".inf", "inf"), ("-.Inf", "-inf"), (".nan", "nan"))]
    assert doc.info[("a", 2)].raw == "017" and doc.info[("a", 2)].tag == "int" and doc.info[("a", 2)].plain
    assert doc.info[("c", 9)].plain is False and doc.info[("d", 0)].tag == "str"
    assert doc.key_info[("e", "q")].line == 5


def test_check_scenario_escapes_a_newline_in_a_name_from_the_file(tmp_path: Path) -> None:
    """Issue 40 item 12: a title with a newline (``vmodtool import`` takes
    it from the module's name, ``"nl\\nhere"``) is written escaped: the
    summary stays one line, no line of the report is forged."""
    text = STARTER.replace('"Hostile — Враждебный"', '"nl\\nhere — Враждебный"')
    assert "nl\\nhere" in text
    code, output = run_check(write(tmp_path, text))
    assert code == 0, output
    assert len(output) == 1 and output[0].startswith(f"{tmp_path / 'scenario.yaml'}: ok — nl\\nhere — Враждебный:"), \
        output
