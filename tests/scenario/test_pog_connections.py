"""Paths of Glory's connections typed from the printed map (issue 42 item
6): ``examples/paths-of-glory/connections.csv`` holds every line of the
Deluxe map, each checked by drawing it over the module's board image.

The data is checked here for what can be checked without the picture: the
file's shape; that every line joins two spaces VASSAL names on the module's
board; that every printed space is joined and the map is one graph; the
printed restrictions the rules cite; and the agreement of ``vmodtool
import``'s Gabriel proposal with the typed graph, as
``docs/guide/area-maps.md`` reports it."""

from __future__ import annotations

import csv
from collections import defaultdict

import yaml

from tests.conftest import EXAMPLES, REPO, shared_path
from vmodtool.scenario.adjacency import propose_connections
from vmodtool.scenario.loader import load_scenario
from vmodtool.scenario.locations import Space, spaces_of_board
from vmodtool.vassal.grid import board_from_element
from vmodtool.vassal.module import Module

EXAMPLE = EXAMPLES / "paths-of-glory"
CSV = EXAMPLE / "connections.csv"
#: the printed map's zones; the rest of the board is tracks, charts and boxes
MAP_ZONES = ("Europe", "Near East")
#: regions of the map's zones that are no printed space (a country's or a
#: sea's name where the module parks markers, the Caucasus lines' marker spot)
NOT_SPACES = {"Austria", "France", "Russia", "Mediterranean", "North Sea", "Near East Approach"}


def _rows() -> list[dict[str, str]]:
    with CSV.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _pairs() -> dict[tuple[str, str], str]:
    return {(min(r["a"], r["b"]), max(r["a"], r["b"])): r["kind"] for r in _rows()}


def _components(pairs: set[tuple[str, str]]) -> list[set[str]]:
    links: dict[str, set[str]] = defaultdict(set)
    for a, b in pairs:
        links[a].add(b)
        links[b].add(a)
    seen: set[str] = set()
    out = []
    for start in sorted(links):
        if start in seen:
            continue
        part, todo = set(), [start]
        while todo:
            here = todo.pop()
            if here not in part:
                part.add(here)
                todo.extend(links[here] - part)
        seen |= part
        out.append(part)
    return out


def _deluxe_spaces() -> dict[str, Space]:
    module = Module.open(shared_path("corpus", "pog", "buildFile.xml"))
    entry = next(e for e in module.buildfile.maps() if e.name == "Map")
    board = next(b for b in entry.boards if b.name == "Deluxe Historical Map")
    return spaces_of_board(board_from_element(board.element, 5100, 4200))


def test_the_csv_is_one_line_a_row_of_a_kind_the_example_defines() -> None:
    rows = _rows()
    assert rows and list(rows[0]) == ["a", "b", "kind", "note"]
    pairs = [(min(r["a"], r["b"]), max(r["a"], r["b"])) for r in rows]
    assert len(set(pairs)) == len(pairs) == 479               # no line twice, either way round
    assert all(a != b for a, b in pairs)
    kinds = yaml.safe_load((EXAMPLE / "scenario.yaml").read_text("utf-8"))["map"]["connection_types"]
    assert {r["kind"] for r in rows} == set(kinds)            # every kind used, none unknown
    # a dashed line says who may use it: its row names the printed label
    assert all(r["note"] for r in rows if r["kind"] != "clear")
    assert len(_components(set(pairs))) == 1                  # the printed map is one graph


def test_the_printed_restrictions_the_rules_cite() -> None:
    pairs = _pairs()
    # 11.1.4: "only British units may move ... between London and Calais"
    assert {p: k for p, k in pairs.items() if "London" in p} == {
        ("Calais", "London"): "br_only", ("Cherbourg", "London"): "br_only", ("Le Havre", "London"): "br_only"}
    assert pairs[("Taranto", "Valona")] == "it_only"          # 12.1.10: the Taranto-Valona dotted line
    # 12.1.9: the Caucasus space and the Near East, one Russian corps a turn
    assert pairs[("Caucasus", "Poti")] == pairs[("Caucasus", "Grozny")] == "ru_corps_only"
    # 9.2.7: Constantinople and Bursa are drawn on both maps
    assert pairs[("Constantinople", "Constantinople Virtual Space")] == "same_space"
    assert pairs[("Bursa", "Bursa Virtual Space")] == "same_space"


def test_every_line_joins_two_spaces_vassal_names_and_every_space_is_joined() -> None:
    spaces = _deluxe_spaces()
    on_map = {n for n, s in spaces.items() if s.zone in MAP_ZONES}
    ends = {n for pair in _pairs() for n in pair}
    assert ends <= on_map, sorted(ends - on_map)
    assert on_map - ends == NOT_SPACES


def test_the_example_loads_the_graph_with_its_kinds_and_costs() -> None:
    scenario = load_scenario(EXAMPLE / "scenario.yaml", module=shared_path("corpus", "pog", "buildFile.xml"))
    areas = scenario.map.areas
    assert areas is not None and not areas.proposed
    assert len(areas.connections) == 479
    assert areas.distance("London", "Calais") == 1
    assert areas.distance("Calais", "Berlin") == 7            # Cambrai, Sedan, Koblenz, Frankfurt, Kassel, Hannover
    assert areas.distance("London", "Baku") is not None       # one map, the Near East included
    # from the main map into the Near East through the same space, at no cost
    assert areas.path_cost("Adrianople", "Eskidor") == 2.0
    assert areas.distance("Adrianople", "Eskidor") == 3       # steps count the join of the two drawings


def test_the_proposal_against_the_typed_graph_as_the_guide_reports_it() -> None:
    spaces = _deluxe_spaces()
    on_map = {n for n, s in spaces.items() if s.zone in MAP_ZONES}
    proposed = {p for p in propose_connections(spaces.values()) if p[0] in on_map and p[1] in on_map}
    typed = set(_pairs())
    hits = proposed & typed
    assert (len(proposed), len(typed), len(hits)) == (655, 479, 438)
    # the lines the proposal cannot make: across zones (Caucasus, the two
    # drawings of Constantinople and Bursa) are among the misses
    across = {p for p in typed if spaces[p[0]].zone != spaces[p[1]].zone}
    assert len(across) == 4 and not across & proposed
    guide = (REPO / "docs" / "guide" / "area-maps.md").read_text("utf-8")
    assert "| Paths of Glory | 486 | 1,061 (655 on the printed map) | 0 | 479 | 438 | 66.9% | 91.4% |" in guide

