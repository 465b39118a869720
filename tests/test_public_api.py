"""The public API is what the README and docs/ say it is.

* every dotted name ``vmodtool.x.y`` and every ``from vmodtool… import A, B``
  in README.md, docs/*.md and docs/guide/*.md imports, and so does every name the library
  guide's table (docs/guide/library.md) lists for a module;
* every ```python block of those runs (from a copy of the
  repository's examples, so a block that writes files writes nowhere that
  matters), and a line documented with its result (``expr   # '0304'``)
  gives that result;
* each package's ``__all__`` resolves, says the same as its lazy re-export
  table and its ``TYPE_CHECKING`` imports, and importing the CLI or the
  plug-in API imports no more of the package than it needs.
"""

from __future__ import annotations

import ast
import importlib
import io
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path
from types import ModuleType

import pytest

import vmodtool

REPO = Path(__file__).resolve().parent.parent
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "docs").glob("guide/*.md"))]
#: the page whose table says which module holds what
LIBRARY = REPO / "docs" / "guide" / "library.md"

#: a dotted vmodtool name in prose or code (not part of a URL or a path)
DOTTED = re.compile(r"(?<![\w/.\-])vmodtool(?:\.[A-Za-z_]\w*)+(?![\w/])")
FROM_IMPORT = re.compile(r"^\s*from\s+(vmodtool(?:\.\w+)*)\s+import\s+\(?([\w\s,]+?)\)?\s*(?:#.*)?$", re.M)
CODE_BLOCK = re.compile(r"^( *)```python\n(.*?)^\1```", re.M | re.S)
CODE_SPAN = re.compile(r"`([^`]+)`")

#: words in the Library table that are VASSAL's (entry names, encodings), not Python names
FORMAT_WORDS = {"savedGame", "VOBS", "buildFile.xml", "moduledata", "savedata", "extensiondata"}
#: dotted names in the docs that are not Python names: the entry-point group of rule packages
NOT_PYTHON = {"vmodtool.rules"}

PACKAGES = ["vmodtool", "vmodtool.vassal", "vmodtool.scenario", "vmodtool.render", "vmodtool.assemble",
            "vmodtool.replay", "vmodtool.audit"]


def doc_id(path: Path) -> str:
    return str(path.relative_to(REPO))


def resolve(dotted: str) -> object:
    """The object a dotted name stands for: the longest importable module
    prefix, then attributes.  Raises ImportError/AttributeError."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError as exc:
            if exc.name is None or not dotted.startswith(exc.name):
                raise               # a real missing dependency, not a wrong name
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def missing(names: set[str]) -> list[str]:
    bad = []
    for name in sorted(names):
        try:
            resolve(name)
        except (ImportError, AttributeError) as exc:
            bad.append(f"{name} ({type(exc).__name__}: {exc})")
    return bad


# -- (a) names the docs mention ---------------------------------------------------------------

def mentioned_names(text: str) -> set[str]:
    names = set(DOTTED.findall(text)) - NOT_PYTHON
    for module, imported in FROM_IMPORT.findall(text):
        for item in imported.split(","):
            item = item.strip().split(" as ")[0].strip()
            if item:
                names.add(f"{module}.{item}")
    return names


def library_table(text: str) -> list[tuple[list[str], list[str]]]:
    """(modules, code spans of the description) for each row of the
    library guide's table whose first cell names vmodtool modules."""
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not cells[0].startswith("`vmodtool"):
            continue
        modules: list[str] = []
        for span in CODE_SPAN.findall(cells[0]):
            if span.startswith("."):            # `.traits` = a sibling of the first module
                span = modules[0].rsplit(".", 1)[0] + span
            modules.append(span)
        rows.append((modules, CODE_SPAN.findall(cells[1])))
    return rows


def table_names(text: str) -> set[str]:
    """Every Python name the Library table lists, qualified by the module of
    its row (or by another vmodtool module the same row names)."""
    names: set[str] = set()
    for modules, spans in library_table(text):
        names.update(modules)
        homes = modules + [s for s in spans if s.startswith("vmodtool.")]
        for span in spans:
            if span in FORMAT_WORDS or span.startswith("vmodtool."):
                continue
            name = span.split("(", 1)[0]
            if not re.fullmatch(r"[A-Za-z_]\w*(\.\w+)*", name):
                continue                      # `!VCSK`, `.vmod` …: not Python names
            found = [f"{home}.{name}" for home in homes if not missing({f"{home}.{name}"})]
            names.add(found[0] if found else f"{modules[0]}.{name}")
    return names


def test_library_table_is_read():
    rows = library_table(LIBRARY.read_text(encoding="utf-8"))
    modules = {m for row_modules, _ in rows for m in row_modules}
    assert {"vmodtool.vassal.traits", "vmodtool.assemble", "vmodtool.audit"} <= modules
    assert len(rows) >= 15


@pytest.mark.parametrize("doc", DOCS, ids=doc_id)
def test_every_name_the_docs_mention_imports(doc):
    text = doc.read_text(encoding="utf-8")
    names = mentioned_names(text)
    if doc == LIBRARY:
        names |= table_names(text)
    assert not missing(names), f"{doc_id(doc)} names what does not exist: " + "; ".join(missing(names))


def test_the_scanner_finds_names():
    text = ("See `vmodtool.audit.api` and https://vmodtool.invalid/schema.\n"
            "from vmodtool.vassal.grid import HexGrid, board_from_element  # x\n")
    assert mentioned_names(text) == {"vmodtool.audit.api", "vmodtool.vassal.grid", "vmodtool.vassal.grid.HexGrid",
                                     "vmodtool.vassal.grid.board_from_element"}
    assert missing({"vmodtool.audit.no_such_name", "vmodtool.nowhere.Thing", "vmodtool.errors.VmodError"}) == [
        "vmodtool.audit.no_such_name (AttributeError: module 'vmodtool.audit' has no attribute 'no_such_name')",
        "vmodtool.nowhere.Thing (AttributeError: module 'vmodtool' has no attribute 'nowhere')",
    ]


# -- (b) the docs' Python examples run ---------------------------------------------------------

def python_blocks() -> list[tuple[str, str]]:
    blocks = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for number, match in enumerate(CODE_BLOCK.finditer(text), 1):
            indent, body = match.groups()
            code = "\n".join(line[len(indent):] for line in body.splitlines())
            blocks.append((f"{doc_id(doc)}#{number}", code))
    return blocks


def documented_result(comment: str) -> object:
    """The value a ``# 'result' — explanation`` comment documents, or
    ``...`` when the comment is prose."""
    text = comment.lstrip("#").strip().split(" — ", 1)[0].strip()
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return ...


def with_checked_results(code: str) -> ast.Module:
    """*code* with each top-level ``expr  # 'result'`` line turned into
    ``assert expr == 'result'``."""
    comments = {tok.start[0]: tok.string for tok in tokenize.generate_tokens(io.StringIO(code).readline)
                if tok.type == tokenize.COMMENT}
    tree = ast.parse(code)
    body: list[ast.stmt] = []
    for stmt in tree.body:
        expected = documented_result(comments.get(stmt.end_lineno or stmt.lineno, "")) \
            if isinstance(stmt, ast.Expr) else ...
        if expected is not ...:
            left = stmt.value if not isinstance(expected, tuple) else \
                ast.Call(ast.Name("tuple", ast.Load()), [stmt.value], [])    # a documented tuple may be a list
            test = ast.Compare(left=left, ops=[ast.Eq()],
                               comparators=[ast.parse(repr(expected), mode="eval").body])
            msg = ast.Constant(f"line {stmt.lineno}: {ast.unparse(stmt.value)} is not {expected!r}")
            stmt = ast.copy_location(ast.Assert(test=test, msg=msg), stmt)
        body.append(stmt)
    tree.body = body
    return ast.fix_missing_locations(tree)


@pytest.fixture(scope="module")
def example_root(tmp_path_factory):
    """A copy of what the examples read (examples/), as their cwd."""
    root = tmp_path_factory.mktemp("docs-examples")
    shutil.copytree(REPO / "examples", root / "examples")
    return root


BLOCKS = python_blocks()


def test_docs_have_python_examples():
    assert any(name.startswith("README.md") for name, _ in BLOCKS)


@pytest.mark.parametrize(("name", "code"), BLOCKS, ids=[name for name, _ in BLOCKS])
def test_python_example_runs(name, code, example_root, monkeypatch, capsys):
    monkeypatch.chdir(example_root)
    tree = with_checked_results(code)
    exec(compile(tree, name, "exec"), {"__name__": "__doc_example__"})
    _ = capsys.readouterr()


def test_documented_results_are_checked():
    namespace: dict[str, object] = {}
    exec(compile(with_checked_results("x = 3\nx + 1   # 4 — four\nx   # prose\n"), "t", "exec"), namespace)
    with pytest.raises(AssertionError, match=r"x \+ 1 is not 5"):
        exec(compile(with_checked_results("x = 3\nx + 1   # 5\n"), "t", "exec"), {})
    with pytest.raises(AssertionError):
        exec(compile(with_checked_results("p = [1, 2]\np   # (1, 3)\n"), "t", "exec"), {})


def test_readme_example_prints_moves(example_root, monkeypatch, capsys):
    """The README's first example prints the moves of the demo log."""
    monkeypatch.chdir(example_root)
    code = next(code for name, code in BLOCKS if name == "README.md#1")
    exec(compile(with_checked_results(code), "README.md#1", "exec"), {})
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(" -> " in line for line in lines)


# -- (c) each package's __all__ ----------------------------------------------------------------

def all_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(vmodtool.__path__, "vmodtool."):
        if not info.name.endswith("__main__"):
            names.append(info.name)
    return ["vmodtool", *sorted(names)]


@pytest.mark.parametrize("name", PACKAGES)
def test_package_exports_its_public_names(name):
    package = importlib.import_module(name)
    exported = package.__all__
    assert package.__doc__ and package.__doc__.strip(), f"{name} says what it is for"
    assert len(exported) == len(set(exported)), f"{name}.__all__ repeats a name"
    assert not missing({f"{name}.{n}" for n in exported})
    namespace: dict[str, object] = {}
    exec(f"from {name} import *", namespace)
    assert set(exported) <= set(namespace)


@pytest.mark.parametrize("name", all_modules())
def test_every_modules_all_exists(name):
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    if exported is None:
        pytest.skip(f"{name} has no __all__")
    assert not [n for n in exported if not hasattr(module, n)], f"{name}.__all__ names what it lacks"


def lazy_tables(module: ModuleType) -> tuple[dict[str, str], dict[str, str]]:
    """(TYPE_CHECKING imports, lazy_exports table) of a package __init__,
    each as name → module."""
    assert module.__file__ is not None
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    typed: dict[str, str] = {}
    lazy: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module
                typed.update({alias.name: imp.module for alias in imp.names})
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and ast.unparse(node.value.func) == "lazy_exports":
            table = ast.literal_eval(node.value.args[1])
            lazy.update({n: mod for mod, names in table.items() for n in names})
    return typed, lazy


@pytest.mark.parametrize("name", PACKAGES)
def test_lazy_exports_agree(name):
    package = importlib.import_module(name)
    typed, lazy = lazy_tables(package)
    if not lazy:
        assert not typed
        pytest.skip(f"{name} imports its names eagerly")
    assert typed == lazy, f"{name}: TYPE_CHECKING imports and lazy table differ"
    assert set(lazy) == set(package.__all__)
    for export, module in lazy.items():
        assert getattr(importlib.import_module(module), export) is getattr(package, export)
    assert set(package.__all__) <= set(dir(package))
    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        _ = package.no_such_name


def imported_by(statement: str) -> set[str]:
    """The vmodtool modules a fresh interpreter has loaded after *statement*."""
    code = f"{statement}\nimport sys\nprint(' '.join(m for m in sys.modules if m.startswith('vmodtool')))"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    return set(out.stdout.split())


def test_cli_start_up_imports_none_of_the_heavy_layers():
    loaded = imported_by("import vmodtool.cli")
    assert "vmodtool.cli" in loaded
    heavy = {m for m in loaded if m.startswith(("vmodtool.render", "vmodtool.assemble", "vmodtool.replay",
                                                 "vmodtool.audit", "vmodtool.vassal.savefile",
                                                 "vmodtool.vassal.buildfile", "vmodtool.vassal.archive"))}
    assert not heavy, f"vmodtool --help imports {sorted(heavy)}"


def test_plugin_api_stays_light():
    assert imported_by("import vmodtool.audit.api") == {
        "vmodtool", "vmodtool._lazy", "vmodtool.errors", "vmodtool.audit", "vmodtool.audit.api"}


def test_import_vmodtool_imports_only_errors():
    assert imported_by("import vmodtool") == {"vmodtool", "vmodtool.errors"}
