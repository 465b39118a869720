"""The scenario loader as one module per section: the problem collector is
public (``scenario/collector.py``) and a section loads through it alone; the
scenario package has no import circle (a ``load_<section>.py`` never imports
the loader that drives it)."""

from __future__ import annotations

import ast
from pathlib import Path

from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.load_boxes import build_tracks
from vmodtool.scenario.load_game import build_game
from vmodtool.scenario.load_rules import RULE_KINDS
from vmodtool.scenario.loader import RULE_KINDS as LOADER_RULE_KINDS
from vmodtool.scenario.source import load_document

PACKAGE = Path(__file__).resolve().parents[2] / "vmodtool"


def _collector(tmp_path: Path, text: str) -> ProblemCollector:
    path = tmp_path / "scenario.yaml"
    path.write_text(text, encoding="utf-8")
    return ProblemCollector(load_document(path), path)


def test_a_section_loads_through_the_public_collector_alone(tmp_path):
    c = _collector(tmp_path, "game:\n  title: Т\n  sides:\n    - {id: red}\n    - {id: blue, name: Синие}\n"
                             "    - {id: red}\n")
    game = build_game(c)
    assert [s.id for s in game.sides] == ["red", "blue", "red"] and game.sides[1].name == "Синие"
    (problem,) = c.problems
    assert (problem.line, problem.path, problem.severity) == (6, ("game", "sides", 2, "id"), "error")
    assert str(problem).endswith("game.sides[2].id: duplicate side id 'red' (first defined at line 4)")


def test_a_value_of_the_wrong_type_reads_as_the_default_and_bounds_are_reported(tmp_path):
    c = _collector(tmp_path, "tracks:\n  - {id: turn, spaces: 100000}\n  - {id: vp, spaces: [a, b]}\n"
                             "  - {id: x, spaces: {a: 1}}\n")
    tracks = build_tracks(c)
    assert [t.spaces for t in tracks] == [(), ("a", "b"), ()]
    (problem,) = c.problems
    assert problem.line == 2 and "out of range (maximum" in problem.message
    assert c.get(("tracks", 0, "spaces"), list, "default") == "default"
    assert c.text(("tracks", 1, "spaces")) is None and c.text(("tracks", 0, "spaces")) == "100000"


def test_the_loader_reexports_what_moved_to_its_sections():
    from vmodtool.scenario import load_hexsides, loader

    assert LOADER_RULE_KINDS is RULE_KINDS and "plugin" in RULE_KINDS
    assert loader.hexside_pieces is load_hexsides.hexside_pieces
    assert loader.hexside_pieces([("0101", "0102"), ("0301", "0302")], None) == [[("0101", "0102")],
                                                                                [("0301", "0302")]]


def _imports(module: str, file: Path, modules: set[str]) -> set[str]:
    """The vmodtool modules ``file`` imports, at run time or for type
    checking (``from package import module`` imports the module)."""
    package = module if file.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _cycles(packages: tuple[str, ...]) -> list[list[str]]:
    modules: dict[str, Path] = {}
    for package in packages:
        for file in (PACKAGE / package).rglob("*.py"):
            parts = file.relative_to(PACKAGE.parent).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = file
    graph = {m: sorted(_imports(m, f, set(modules)) & modules.keys() - {m}) for m, f in modules.items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}          # 1: on the path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in graph[module]:
            if state.get(target) == 1:
                cycles.append(path[path.index(target):] + [module, target])
            elif target not in state:
                visit(target, path + [module])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    return cycles


def test_the_scenario_and_assemble_packages_have_no_import_circle():
    assert _cycles(("scenario", "assemble")) == []


def test_the_circle_finder_finds_a_circle(tmp_path, monkeypatch):
    """The finder itself: a package whose two modules import each other
    (one only for type checking) is a circle."""
    package = tmp_path / "vmodtool" / "loop"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from vmodtool.loop import b\n")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                  "    from vmodtool.loop.a import x\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE"]), "PACKAGE", tmp_path / "vmodtool")
    assert _cycles(("loop",)) in ([["vmodtool.loop.a", "vmodtool.loop.b", "vmodtool.loop.a"]],
                                  [["vmodtool.loop.b", "vmodtool.loop.a", "vmodtool.loop.b"]])
