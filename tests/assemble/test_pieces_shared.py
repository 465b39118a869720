"""A unit's definition made from the one of its kind (``PieceFactory``'s
stand-ins) is exactly the definition its traits encode: for every counter
of the examples and for values next to every escaping rule."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from vmodtool.assemble.images import module_image_names
from vmodtool.assemble.pieces import PieceFactory, _plain
from vmodtool.scenario import load_scenario
from vmodtool.vassal.pieces import PieceDef

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def direct(factory: PieceFactory, counter, face=None) -> str:  # type: ignore[no-untyped-def]
    return PieceDef.from_traits(factory.unit_traits(counter, face, "")).encode()


@pytest.mark.parametrize("example", ["modern-tactical", "ww1-operational", "combat-commander"])
def test_every_counter_of_the_examples(example):
    scenario = load_scenario(EXAMPLES / example / "scenario.yaml")
    images = module_image_names(scenario)
    factory = PieceFactory(scenario, images.unit, images.marker, images.layer)
    shared = 0
    for counter in scenario.counters:
        for face in (None, *[f.name for f in scenario.unit_type_of(counter).faces]):
            made = factory._shared_definition(counter, face)
            if made is not None:
                shared += 1
                assert made == direct(factory, counter, face), (counter.id, face)
    assert shared > 0


@pytest.mark.parametrize("label, formation", [
    ("1", None), ("", None), (None, "f1"), ("A B", "x.y-z"), ("Ünïcødé Б", "Γ"),
    ("'q'", None), ("\\x", None), ("a;b", None), ("a,b", "c/d"), ("1/2", None), ("x\t", None), ("'", "'"),
])
def test_values_next_to_the_escaping_rules(label, formation):
    scenario = load_scenario(EXAMPLES / "ww1-operational" / "scenario.yaml")
    images = module_image_names(scenario)
    base = scenario.counters[0]
    factory = PieceFactory(scenario, images.unit, images.marker, images.layer)
    factory._shared_definition(base, None)                        # the kind's template, from another counter
    counter = dataclasses.replace(base, label=label, formation=formation)
    made = factory._shared_definition(counter, None)
    expected = direct(factory, counter)
    if all(_plain(v) for v in (label or "", formation or "")):
        assert made == expected
    else:
        assert made is None                                       # built directly instead
    assert factory.unit_definition(counter, None, "7").startswith(expected[:-len("null;0;0;;0")])
