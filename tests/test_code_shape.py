"""The shape of the code that issue 41 asks for, as tests.

* no function or method in ``vmodtool/`` above cyclomatic complexity 30
  (radon's measure);
* no class above 500 lines;
* no import circle between the files of ``vmodtool/``;
* no module outside ``vmodtool/replay/`` dispatches on the replay's event
  types (``type(ev) is MoveEvent``, ``isinstance(ev, (AddEvent, …))``, …):
  consumers get the events through the replay's visitor.

Today's code does not meet all of them.  Each test has a module-level
allowlist (``KNOWN_…``) of today's offenders with their figure, so that it
passes now and fails when a new offender appears or a listed one gets
worse.  It also fails when a listed offender is gone or better than listed:
the list only shrinks, and whoever fixes one removes (or lowers) its entry.

Everything is read with :mod:`ast` (radon for the complexity), nothing is
imported: the checks take a few seconds.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "vmodtool"

MAX_COMPLEXITY = 30
MAX_CLASS_LINES = 500

#: function or method (``path:Class.method``) -> its cyclomatic complexity today
KNOWN_COMPLEX: dict[str, int] = {
}

#: class (``path:Class``) -> its length in lines today
KNOWN_LONG_CLASSES: dict[str, int] = {
}

#: import circles between modules at import time (module-level imports,
#: those under ``if TYPE_CHECKING:`` and those inside functions left out;
#: importing ``p.m`` runs ``p/__init__.py`` too), each as a chain
#: ``a → b → a`` (modules of ``vmodtool.``) starting at its smallest module.
#: None today: the circles of issue 41 are each closed by a deferred import
KNOWN_IMPORT_CYCLES: set[str] = set()

#: import circles that exist only because one of their imports is deferred
#: into a function or hidden under ``if TYPE_CHECKING:`` (a circle all the
#: same: the two files need each other)
KNOWN_HIDDEN_IMPORT_CYCLES: set[str] = {
    "vassal.pieces → vassal.traits → vassal.pieces",
}

#: module outside vmodtool/replay/ -> how many places dispatch on an event type
KNOWN_EVENT_DISPATCH: dict[str, int] = {
}


# -- reading the package ----------------------------------------------------------------------------


@cache
def _sources() -> dict[str, str]:
    """Path relative to the repository (``vmodtool/…/x.py``) -> source."""
    return {p.relative_to(REPO).as_posix(): p.read_text(encoding="utf-8") for p in sorted(PACKAGE.rglob("*.py"))}


@cache
def _tree(path: str) -> ast.Module:
    return ast.parse(_sources()[path], filename=path)


def _module_name(path: str) -> str:
    parts = path.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _check_allowlist(found: dict[str, int], known: dict[str, int], what: str, limit: int, listname: str) -> None:
    """Fail with every item over ``limit`` that is not listed or is worse
    than listed, and every listed item that is gone or better."""
    problems: list[str] = []
    for key, value in sorted(found.items()):
        if key not in known:
            problems.append(f"NEW   {key}: {what} {value} > {limit}")
        elif value > known[key]:
            problems.append(f"WORSE {key}: {what} {value} (listed {known[key]})")
        elif value < known[key]:
            problems.append(f"BETTER {key}: {what} {value} (listed {known[key]}): lower its entry in {listname}")
    for key in sorted(set(known) - set(found)):
        problems.append(f"GONE  {key}: {what} now within {limit} (or renamed): remove it from {listname}")
    assert not problems, f"{len(problems)} change(s) against {listname}:\n" + "\n".join(problems)


# -- complexity and size ----------------------------------------------------------------------------


def _complexities() -> dict[str, int]:
    """``path:qualified name`` -> radon's cyclomatic complexity, for every
    function and method (closures and inner classes' methods included),
    the highest one when a name is defined twice."""
    complexity = pytest.importorskip("radon.complexity", reason="radon (the lint extra) is not installed")
    from radon.visitors import Function
    out: dict[str, int] = {}
    for path in _sources():
        blocks = complexity.add_inner_blocks(complexity.cc_visit_ast(_tree(path)))
        for block in blocks:
            if not isinstance(block, Function):
                continue
            name = f"{block.classname}.{block.name}" if block.classname else block.name
            key = f"{path}:{name}"
            out[key] = max(out.get(key, 0), int(block.complexity))
    return out


def test_no_function_above_complexity_30() -> None:
    found = {key: cc for key, cc in _complexities().items() if cc > MAX_COMPLEXITY}
    _check_allowlist(found, KNOWN_COMPLEX, "cyclomatic complexity", MAX_COMPLEXITY, "KNOWN_COMPLEX")


def _classes(node: ast.AST, prefix: str = "") -> Iterator[tuple[str, ast.ClassDef]]:
    """Every class below ``node`` with its qualified name."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.ClassDef):
            name = f"{prefix}{child.name}"
            yield name, child
            yield from _classes(child, name + ".")
        elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _classes(child, f"{prefix}{child.name}.<locals>.")
        else:
            yield from _classes(child, prefix)


def _class_lines() -> dict[str, int]:
    """``path:Class`` -> its lines, decorators to its last line."""
    out: dict[str, int] = {}
    for path in _sources():
        for name, node in _classes(_tree(path)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            out[f"{path}:{name}"] = (node.end_lineno or node.lineno) - first + 1
    return out


def test_no_class_above_500_lines() -> None:
    found = {key: n for key, n in _class_lines().items() if n > MAX_CLASS_LINES}
    _check_allowlist(found, KNOWN_LONG_CLASSES, "lines", MAX_CLASS_LINES, "KNOWN_LONG_CLASSES")


# -- import circles ---------------------------------------------------------------------------------


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(body: list[ast.stmt], deferred: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """The imports a module runs when it is imported (the statements of its
    body, of its ``if``/``try``/``with`` blocks, not of an ``if
    TYPE_CHECKING:`` block); with ``deferred`` also those inside functions
    and classes and under ``if TYPE_CHECKING:``."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if deferred or not _is_type_checking(node.test):
                yield from _imports(node.body, deferred)
            yield from _imports(node.orelse, deferred)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _imports(block, deferred)
        elif isinstance(node, ast.With):
            yield from _imports(node.body, deferred)
        elif isinstance(node, (ast.For, ast.While)):
            yield from _imports(node.body, deferred)
            yield from _imports(node.orelse, deferred)
        elif deferred and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield from _imports(node.body, deferred)


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, modules: set[str]) -> set[str]:
    """The modules of ``vmodtool`` that executing ``node`` in ``module``
    runs: the module named (``from p import m`` names ``p.m`` when that is
    a module) and the packages it is in (their ``__init__``) — except the
    packages ``module`` is itself in, which are run before it anyway."""
    names: list[str] = []
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = module.split(".") if is_package else module.split(".")[:-1]
            parts = parts[: len(parts) - (node.level - 1)]
            base = ".".join([*parts, *([node.module] if node.module else [])])
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
    own = {".".join(module.split(".")[:i]) for i in range(1, module.count(".") + 1)}
    out: set[str] = set()
    for name in names:
        if name != "vmodtool" and not name.startswith("vmodtool."):
            continue
        while name not in modules and "." in name:
            name = name.rsplit(".", 1)[0]
        parts = name.split(".")
        out |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return out - own - {module}


def _import_graph(deferred: bool) -> dict[str, set[str]]:
    modules = {_module_name(path): path for path in _sources()}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        graph[name] = set()
        for node in _imports(_tree(path).body, deferred):
            graph[name] |= _targets(name, path.endswith("/__init__.py"), node, set(modules))
    return graph


def _strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """The groups of modules that reach each other (Tarjan's algorithm,
    without recursion), those of more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(group)
    return groups


def _cycles(graph: dict[str, set[str]]) -> set[str]:
    """Every elementary circle of ``graph``, as ``a → b → a`` from its
    smallest module, without the ``vmodtool.`` prefix (every circle is
    listed, not one per strongly connected group: removing an import can
    then only remove circles, never show a new one)."""
    found: set[str] = set()

    def walk(start: str, node: str, path: list[str], group: set[str]) -> None:
        for nxt in sorted(graph[node] & group):
            if nxt == start:
                found.add(" → ".join(m.removeprefix("vmodtool.") for m in [*path, start]))
            elif nxt > start and nxt not in path:
                walk(start, nxt, [*path, nxt], group)

    for group in _strongly_connected(graph):
        for start in sorted(group):
            walk(start, start, [start], group)
    return found


def _check_cycles(found: set[str], known: set[str], listname: str) -> None:
    new = sorted(found - known)
    gone = sorted(known - found)
    lines = [f"NEW  {c}" for c in new] + [f"GONE {c}: remove it from {listname}" for c in gone]
    assert not lines, f"{len(new)} new and {len(gone)} gone import circle(s) against {listname}:\n" + "\n".join(lines)


def test_no_import_circle_between_files() -> None:
    _check_cycles(_cycles(_import_graph(deferred=False)), KNOWN_IMPORT_CYCLES, "KNOWN_IMPORT_CYCLES")


def test_no_import_circle_hidden_by_a_deferred_import() -> None:
    """The circles that a function-local or ``TYPE_CHECKING`` import keeps
    from failing at import time: the files still need each other."""
    every = _cycles(_import_graph(deferred=True))
    at_import = _cycles(_import_graph(deferred=False))
    _check_cycles(every - at_import, KNOWN_HIDDEN_IMPORT_CYCLES, "KNOWN_HIDDEN_IMPORT_CYCLES")


# -- dispatch on event types ------------------------------------------------------------------------

REPLAY = "vmodtool/replay/"


def _event_classes() -> frozenset[str]:
    """The replay's event types: ``Event`` of ``vmodtool/replay/events``
    and every class of ``vmodtool/replay/`` derived from it."""
    bases: dict[str, set[str]] = {}
    for path in _sources():
        if not path.startswith(REPLAY):
            continue
        for _, node in _classes(_tree(path)):
            names = {b.id if isinstance(b, ast.Name) else b.attr for b in node.bases
                     if isinstance(b, (ast.Name, ast.Attribute))}
            bases.setdefault(node.name, set()).update(names)
    assert "Event" in bases, "no class Event in vmodtool/replay/: update this test to the replay's event base"
    events = {"Event"}
    grown = True
    while grown:
        more = {name for name, parents in bases.items() if parents & events} - events
        events |= more
        grown = bool(more)
    return frozenset(events)


@cache
def _bindings(tree: ast.Module) -> tuple[list[ast.ImportFrom], list[tuple[str, ast.expr]]]:
    """A module's ``from … import`` statements and its assignments of a
    value to a plain name (anywhere in it)."""
    imports: list[ast.ImportFrom] = []
    assignments: list[tuple[str, ast.expr]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imports.append(node)
        elif isinstance(node, ast.Assign):
            assignments += [(t.id, node.value) for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
            assignments.append((node.target.id, node.value))
    return imports, assignments


class _Dispatch(ast.NodeVisitor):
    """Finds the places in one module that test an object's event type."""

    def __init__(self, events: frozenset[str]) -> None:
        self.events = set(events)          # grows by the module's aliases of them
        self.places: list[int] = []

    def collect_aliases(self, tree: ast.Module, elsewhere: frozenset[str] = frozenset()) -> set[str]:
        """Learn the module's names for event types: ``from … import
        MoveEvent as M``, ``MOVES = (MoveEvent, CardDrawEvent)``, and names
        imported that other modules define so (``elsewhere``); returns the
        names this module defines."""
        imports, assignments = _bindings(tree)
        for node in imports:
            for alias in node.names:
                if alias.name in self.events or alias.name in elsewhere:
                    self.events.add(alias.asname or alias.name)
        defined: set[str] = set()
        grown = True
        while grown:
            grown = False
            for name, value in assignments:
                if name not in self.events and self._is_event_type(value):
                    self.events.add(name)
                    defined.add(name)
                    grown = True
        return defined

    def _is_event_type(self, node: ast.expr) -> bool:
        """An event class, or a tuple/set/list/frozenset of them."""
        if isinstance(node, ast.Name):
            return node.id in self.events
        if isinstance(node, ast.Attribute):                      # events.MoveEvent, self.MOVES
            return node.attr in self.events
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return bool(node.elts) and any(self._is_event_type(e) for e in node.elts)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                "frozenset", "set", "tuple") and node.args:
            return self._is_event_type(node.args[0])
        if isinstance(node, ast.BinOp):                          # MoveEvent | AddEvent
            return self._is_event_type(node.left) or self._is_event_type(node.right)
        return False

    @staticmethod
    def _is_type_of(node: ast.expr) -> bool:
        """``type(x)`` or ``x.__class__``."""
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "type"
                and len(node.args) == 1) or (isinstance(node, ast.Attribute) and node.attr == "__class__")

    def visit_Call(self, node: ast.Call) -> None:
        if (isinstance(node.func, ast.Name) and node.func.id in ("isinstance", "issubclass")
                and len(node.args) == 2 and self._is_event_type(node.args[1])):
            self.places.append(node.lineno)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        operands = [node.left, *node.comparators]
        if any(self._is_type_of(o) for o in operands) and any(self._is_event_type(o) for o in operands):
            self.places.append(node.lineno)
        self.generic_visit(node)

    def visit_MatchClass(self, node: ast.MatchClass) -> None:
        if self._is_event_type(node.cls):
            self.places.append(node.lineno)
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:                # {MoveEvent: handler, …}[type(ev)]
        if any(k is not None and self._is_event_type(k) for k in node.keys):
            self.places.append(node.lineno)
        self.generic_visit(node)


def _event_dispatch() -> dict[str, list[int]]:
    """Module outside vmodtool/replay/ -> the lines that dispatch on an event type."""
    events = _event_classes()
    aliases: set[str] = set()                  # names of event types defined in one module, imported in another
    grown = True
    while grown:
        before = len(aliases)
        for path in _sources():
            aliases |= _Dispatch(events).collect_aliases(_tree(path), frozenset(aliases))
        grown = len(aliases) > before
    out: dict[str, list[int]] = {}
    for path in _sources():
        if path.startswith(REPLAY):
            continue
        tree = _tree(path)
        visitor = _Dispatch(events)
        visitor.collect_aliases(tree, frozenset(aliases))
        visitor.visit(tree)
        if visitor.places:
            out[path] = visitor.places
    return out


def test_no_module_outside_the_replay_dispatches_on_event_types() -> None:
    places = _event_dispatch()
    found = {path: len(lines) for path, lines in places.items()}
    try:
        _check_allowlist(found, KNOWN_EVENT_DISPATCH, "event-type tests", 0, "KNOWN_EVENT_DISPATCH")
    except AssertionError as exc:
        where = "\n".join(f"  {path}: lines {', '.join(map(str, lines))}" for path, lines in sorted(places.items())
                          if found[path] != KNOWN_EVENT_DISPATCH.get(path))
        raise AssertionError(f"{exc}\n(a visitor of vmodtool/replay/ receives each event type instead)\n{where}"
                             ) from None


# -- the checks themselves --------------------------------------------------------------------------


def test_the_dispatch_finder_sees_every_form() -> None:
    source = (
        "from vmodtool.replay.events import MoveEvent as M, AddEvent\n"
        "from vmodtool.replay import events; from vmodtool.audit.card_feed import SHARED\n"
        "MOVES = (M, events.CardDrawEvent)\n"
        "def f(ev, other):\n"
        "    if type(ev) is M: pass\n"                    # 5
        "    if isinstance(ev, MOVES): pass\n"            # 6
        "    if type(ev) in (AddEvent, events.RemoveEvent): pass\n"   # 7
        "    if ev.__class__ == events.ChatEvent: pass\n"  # 8
        "    match ev:\n"
        "        case AddEvent(): pass\n"                 # 10
        "    table = {AddEvent: f}\n"                     # 11
        "    if isinstance(other, int) or type(other) is str: pass\n"
        "    if type(ev) in SHARED: pass\n"             # 13: a name another module defines as event types
    )
    visitor = _Dispatch(frozenset({"Event", "MoveEvent", "AddEvent", "CardDrawEvent", "RemoveEvent", "ChatEvent"}))
    tree = ast.parse(source)
    assert visitor.collect_aliases(tree, frozenset({"SHARED"})) == {"MOVES"}
    visitor.visit(tree)
    assert visitor.places == [5, 6, 7, 8, 10, 11, 13]


def test_the_import_graph_sees_a_circle_and_leaves_out_type_checking() -> None:
    graph = {"vmodtool.a": {"vmodtool.b"}, "vmodtool.b": {"vmodtool.c"}, "vmodtool.c": {"vmodtool.a"},
             "vmodtool.d": {"vmodtool.a"}}
    assert _cycles(graph) == {"a → b → c → a"}
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from vmodtool.x import y\n"
                     "import vmodtool.z\ndef f():\n    from vmodtool import w\n")
    at_import = [n for node in _imports(tree.body, deferred=False) for n in _targets(
        "vmodtool.p.q", False, node, {"vmodtool", "vmodtool.x", "vmodtool.z", "vmodtool.w", "vmodtool.p"})]
    assert sorted(at_import) == ["vmodtool.z"]
    every = [n for node in _imports(tree.body, deferred=True) for n in _targets(
        "vmodtool.p.q", False, node, {"vmodtool", "vmodtool.x", "vmodtool.z", "vmodtool.w", "vmodtool.p"})]
    assert sorted(every) == ["vmodtool.w", "vmodtool.x", "vmodtool.z"]


def test_an_allowlist_only_shrinks() -> None:
    known = {"a": 40, "b": 35, "c": 33, "gone": 50}
    with pytest.raises(AssertionError) as exc:
        _check_allowlist({"a": 40, "b": 36, "c": 31, "new": 31}, known, "complexity", 30, "KNOWN_X")
    message = str(exc.value)
    assert "NEW   new: complexity 31 > 30" in message
    assert "WORSE b: complexity 36 (listed 35)" in message
    assert "BETTER c: complexity 31 (listed 33)" in message
    assert "GONE  gone" in message
    assert " a:" not in message
    _check_allowlist({"a": 40}, {"a": 40}, "complexity", 30, "KNOWN_X")
