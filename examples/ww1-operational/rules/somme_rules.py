"""Game-specific checks for the Somme Breakout, 1918 example scenario.

This module is a vmodtool rule plug-in. It is deliberately self-contained:
it imports nothing from vmodtool, so it keeps working while the plug-in API
(docs/seed-rules.md §3.12) is still being built. The engine
hands the plug-in duck-typed objects with these attributes:

``ctx`` (RuleContext)
    ``rule_id``, ``params`` (the rule entry's ``params`` mapping) and
    ``violation(event, message, *, severity=None, units=(), hexes=(), **evidence)``
    which builds a violation record.
``state`` (GameState, *after* the event has been applied)
    ``phase``, ``phasing_side``, ``unit(uid)`` and ``units_in(hex_id)``
    (bottom -> top); a unit view has ``uid``, ``label``, ``tags``, ``side``,
    ``hex``, ``state`` (e.g. ``{"condition": "broken"}``) and ``on_map``.
``event`` (Event)
    ``kind`` (here ``"annotation"`` or ``"phase_end"``), ``step``, ``phase``
    and, for annotations, ``annotation.kind`` and ``annotation.args``
    (``#attack 0302,0403 > 0503`` gives ``{"from": ("0302", "0403"), "to": "0503"}``).

Plug-ins must be deterministic and free of side effects: no I/O, no clock,
no randomness. Their memory lives in plain attributes; the engine copies the
instance at step boundaries so an UNDO in the log rolls it back.
"""

from __future__ import annotations

from typing import Any


class TankBreakdownAfterAttack:
    """004:1.8c - every Functional tank that took part in a Combat Phase attack
    must be Broken once the Combat Phase ends; tanks in Overruns are exempt.

    A VASSAL log does not say which units attacked, so this rule reads the
    players' chat annotations, e.g. '#attack 0302,0403 > 0503'.
    """

    subscribes = frozenset({"annotation", "phase_end"})

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
        self.combat_phase = ctx.params.get("combat_phase", "combat")
        self.attackers: dict[str, int] = {}        # tank uid -> step of its attack

    def check(self, state: Any, event: Any) -> list[Any]:
        if event.kind == "annotation":
            note = event.annotation
            if note is not None and note.kind == "attack" and state.phase == self.combat_phase:
                for hex_id in note.args["from"]:
                    for u in state.units_in(hex_id):
                        if ("tank" in u.tags and u.side == state.phasing_side
                                and u.state.get("condition") == "functional"):
                            self.attackers.setdefault(u.uid, event.step)
            # '#overrun' annotations are ignored on purpose: overruns are exempt
            return []

        if event.kind == "phase_end" and event.phase == self.combat_phase:
            found = []
            for uid, attack_step in sorted(self.attackers.items()):
                u = state.unit(uid)
                if u.on_map and u.state.get("condition") == "functional":
                    found.append(self.ctx.violation(
                        event,
                        f"{u.label} attacked in step {attack_step} but is still Functional "
                        f"at the end of the Combat Phase; it should have been flipped to Broken.",
                        units=(uid,), hexes=(u.hex,), attack_step=attack_step))
            self.attackers.clear()
            return found
        return []
