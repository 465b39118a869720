"""Loading the ``rules`` section (each rule's kind, parameters — every name
they give checked against the scenario by :mod:`.rule_refs` — severity and
settle points) and ``plugins.paths`` (the folders of plug-in rules)."""

from __future__ import annotations

import re
from pathlib import Path as FsPath

from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector
from vmodtool.scenario.problems import Path
from vmodtool.scenario.rule_refs import RuleReferences, ScenarioParts

__all__ = ["build_rules", "build_plugin_paths", "RULE_KINDS"]

RULE_KINDS = ("stacking", "stack_order", "cohabitation", "escorted_move", "obligation",
              "movement_allowance", "retreat", "advance_after_combat", "command_range", "status_forbids",
              "state_never", "transition_window", "placement", "phase_sweep", "per_turn_limit", "replacement",
              "setup_conformity", "hand_limit", "card_window", "card_source", "plugin")
_PLUGIN_REF = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


def build_rules(c: ProblemCollector, parts: ScenarioParts, path: Path = ("rules",)) -> list[M.RuleSpec]:
    """The rules at ``path`` (the game's ``rules``, or one scenario's own)."""
    out = []
    c.unique_ids(path, "id", "rule id")
    ctx = RuleReferences(c, parts)
    for rp, entry in c.list_of(path):
        if not isinstance(entry, dict):
            continue
        rid = c.text(rp + ("id",))
        kind = c.text(rp + ("kind",))
        if not rid or not kind:
            continue
        plugin = _plugin(c, rp, kind)
        params = c.get(rp + ("params",), dict, {})
        if kind in RULE_KINDS:
            ctx.check(rp + ("params",), params)
        refs = c.get(rp + ("ref",))
        ref = tuple(refs) if isinstance(refs, list) else ((refs,) if isinstance(refs, str) else ())
        out.append(M.RuleSpec(rid, kind, params, tuple(str(r) for r in ref),
                              c.text(rp + ("check_at",), "event") or "event",
                              c.text(rp + ("severity",), "error") or "error",
                              bool(c.get(rp + ("enabled",), bool, True)), plugin,
                              tuple(a for a in c.get(rp + ("needs_annotations",), list, [])
                                    if isinstance(a, str)), c.pos(rp),
                              _check_in(c, rp, parts.turns),
                              c.text(rp + ("applies_to",), "all") or "all"))
    return out


def _plugin(c: ProblemCollector, rp: Path, kind: str) -> str | None:
    """``plugin``: the class of a rule of kind plugin (and of no other)."""
    plugin = c.text(rp + ("plugin",))
    if kind == "plugin":
        if not plugin:
            c.err(rp, "a plugin rule names its class: plugin: \"module:Class\"")
        elif not _PLUGIN_REF.match(plugin):
            c.err(rp + ("plugin",), f"{plugin!r} is not \"module:Class\"")
    elif plugin:
        c.err(rp + ("plugin",), f"'plugin' belongs to rules of kind plugin, not {kind!r}")
    return plugin


def _check_in(c: ProblemCollector, rp: Path, turns: M.TurnStructure | None) -> tuple[str, ...]:
    """``check_in``: phases of the turn structure, for a rule judged at a
    settle point."""
    phases = [p.id for p in turns.phases] if turns else []
    out = []
    for ip, _ in c.list_of(rp + ("check_in",)):
        found = c.ref(ip, phases, "phase")
        if found:
            out.append(found)
    if out and (c.text(rp + ("check_at",), "event") or "event") == "event":
        c.err(rp + ("check_in",), "check_in limits a settle point to phases; give check_at "
                                  "(step_end, activation_end, phase_end or turn_end)")
    return tuple(out)


def build_plugin_paths(c: ProblemCollector) -> list[FsPath]:
    out = []
    for pp, rel in c.list_of(("plugins", "paths")):
        if not isinstance(rel, str):
            continue
        candidate = c.folder / rel
        c.folders_read.append(candidate)
        try:
            candidate.resolve().relative_to(c.folder.resolve())
        except ValueError:
            c.err(pp, f"plug-in path {rel!r} must be inside the scenario's folder")
            continue
        if not candidate.is_dir():
            c.err(pp, f"plug-in folder {rel!r} does not exist")
            continue
        out.append(candidate)
    return out
