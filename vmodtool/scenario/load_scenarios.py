"""Loading the ``scenarios`` section: several scenarios of one game, each
with its own set-up (and reinforcements), turns, objectives, victory
conditions and rules, sharing the game's units, maps and other rules
(``docs/scenario-format.md``, "Several scenarios")."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from vmodtool.scenario import limits as L
from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.problems import Path

__all__ = ["build_scenarios", "SetupBuilder", "RulesBuilder", "ResourcesCheck"]

#: builds the set-up at a path with the turns it is checked against (``load_setup.build_setup`` bound)
SetupBuilder = Callable[[Path, "M.TurnStructure | None"], Sequence["M.SetupStack | M.SetupBox"]]
#: builds the rules at a path (``load_rules.build_rules`` bound)
RulesBuilder = Callable[[Path], Sequence[M.RuleSpec]]
#: checks the resources at a path against the turns (``load_turns.check_resources`` bound)
ResourcesCheck = Callable[[Path, "M.TurnStructure | None"], None]

_SECTION: Path = ("scenarios",)


def build_scenarios(c: ProblemCollector, hex_map: M.HexMap, turns: M.TurnStructure | None,
                    rules: Sequence[M.RuleSpec], setup: SetupBuilder,
                    own_rules: RulesBuilder, resources: ResourcesCheck) -> list[M.NamedScenario]:
    """The game's scenarios; every problem located in ``c``."""
    if c.get(("setup",), list, []) and c.get(_SECTION, list, []):
        c.err(("setup",), "a module with predefined setups has no plain New Game in VASSAL (only its scenarios): "
                          "the units of this top-level setup would never be placed; put them into the set-up of "
                          "each scenario", severity="warning")
    c.unique_ids(_SECTION, "id", "scenario id")
    c.unique(((sp + ("name",), (c.text(sp + ("name",)) or "").casefold())
              for sp, _ in c.list_of(_SECTION) if c.text(sp + ("name",))), "scenario name")
    out = []
    game_rules = {r.id: r for r in rules}
    for sp, entry in c.list_of(_SECTION):
        if not isinstance(entry, dict):
            continue
        sid, name = c.text(sp + ("id",)), c.text(sp + ("name",))
        if not sid or not name:
            continue
        own_turns = _turns(c, sp + ("turns",), turns)
        placed = setup(sp + ("setup",), own_turns)
        own_resources = c.get(sp + ("resources",), dict)
        if own_resources is not None:
            resources(sp + ("resources",), own_turns)
        out.append(M.NamedScenario(
            id=sid, name=name, setup=tuple(placed), menu=c.text(sp + ("menu",)),
            description=c.text(sp + ("description",)), victory=c.text(sp + ("victory",)),
            turns=own_turns, objectives=_objectives(c, sp + ("objectives",), hex_map),
            rules=_rules(c, sp, game_rules, own_rules), position=c.pos(sp), resources=own_resources,
            board=c.ref(sp + ("board",), [b.id for b in hex_map.boards], "board id of map.boards")))
    return out


def _turns(c: ProblemCollector, path: Path, turns: M.TurnStructure | None) -> M.TurnStructure | None:
    """The game's turns with this scenario's first and last turn (within
    the game's)."""
    if not isinstance(c.get(path), dict):
        return turns
    if turns is None:
        c.err(path, "a scenario's turns are a part of the game's: give the game a 'turns' section")
        return None
    first = c.get(path + ("first",), int, turns.first)
    last = c.get(path + ("last",), int, turns.last)
    for key, value in (("first", first), ("last", last)):
        if not c.within(path + (key,), value, L.MAX_TURN, -L.MAX_TURN):
            return turns
        if not turns.first <= value <= turns.last:
            c.err(path + (key,), f"turn {value} is outside the game's turns ({turns.first}–{turns.last})")
            return turns
    if last < first:
        c.err(path + ("last",), f"the last turn ({last}) comes before the first ({first})")
        return turns
    return replace(turns, first=first, last=last)


def _objectives(c: ProblemCollector, path: Path, hex_map: M.HexMap) -> tuple[M.Objective, ...] | None:
    if not isinstance(c.get(path), list):
        return None
    out = []
    for op, _ in c.list_of(path):
        h = c.hex_id(op + ("hex",), hex_map.grid.hexes, "objective hex")
        if h:
            out.append(M.Objective(h, c.text(op + ("name",), h) or h, c.get(op + ("vp",), (int, float))))
    return tuple(out)


def _rules(c: ProblemCollector, sp: Path, game_rules: dict[str, M.RuleSpec],
           own_rules: RulesBuilder) -> tuple[M.RuleSpec, ...]:
    """The game's rules but those the scenario leaves out, then its own."""
    left_out = set()
    for rp, _ in c.list_of(sp + ("without_rules",)):
        rid = c.ref(rp, game_rules, "rule id")
        if rid:
            left_out.add(rid)
    own = list(own_rules(sp + ("rules",)))
    for i, rule in enumerate(own):
        if rule.id in game_rules:
            line, _ = c.doc.where(("rules",))
            c.err(sp + ("rules", i, "id"), f"rule id {rule.id!r} is a rule of the game too "
                                           f"(the 'rules' section, line {line}); give the scenario's own an id "
                                           "of its own, and list the game's under without_rules to leave it out")
    return tuple(r for r in game_rules.values() if r.id not in left_out) + tuple(own)
