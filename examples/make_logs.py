"""Write the example game logs of the bundled scenarios.

For each system a whole game of at least three turns (``game-1.vlog``,
clean under the scenario's rules) and copies of it that each carry ONE
illegal action (``illegal-<what>.vlog``), written with vmodtool's own
encoder against the module exactly as ``vmodtool build`` makes it (the
module is built first, into a temporary folder): every piece in a log is one
of that module's PieceSlots, every dice roll one of its DiceButtons, and the
log carries the module's ``moduledata``, so VASSAL opens it without a
question::

    python examples/make_logs.py                 # all systems, into examples/<system>/logs/
    python examples/make_logs.py --out DIR       # into DIR/<system>/
    python examples/make_logs.py modern-tactical # one system

The output is deterministic: fixed piece ids (GameWriter's counter), fixed
players' passwords, a fixed obfuscation key and a fixed save date.  What each log
shows is listed in ``examples/<system>/logs/README.md``; the tests in
``tests/audit/test_example_logs.py`` check that the clean games audit clean,
that each illegal copy yields exactly its expected violations, and that the
committed files equal what this script writes.

A game is one function of a :class:`Table` (the GameWriter plus the look-ups
a player makes) and a ``seed``: at the places marked ``if t.seed == …`` the
seeded copy does something illegal instead of (or besides) the legal play.
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import sys
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:           # run from a checkout without installing
    sys.path.insert(0, str(HERE.parent))

from vmodtool.assemble.builder import build_module_file  # noqa: E402
from vmodtool.assemble.module import OFF_MAP_NAME  # noqa: E402
from vmodtool.fileio import atomic_write  # noqa: E402
from vmodtool.scenario import load_scenario  # noqa: E402
from vmodtool.scenario.cards import HAND_MARGIN, card_pixels  # noqa: E402
from vmodtool.vassal.gamewriter import GameWriter, Player  # noqa: E402
from vmodtool.vassal.module import Module  # noqa: E402

KEY = 0x5A                                      # the savedGame obfuscation key of every log
DATE_SAVED = "1767225600000"                    # 2026-01-01 00:00 UTC, the savedata/moduledata date


@cache
def module_file(system: str) -> Path:
    """The system's module as ``vmodtool build`` makes it (built once per
    run, into a temporary folder removed at exit)."""
    folder = Path(tempfile.mkdtemp(prefix=f"make_logs-{system}-"))
    atexit.register(shutil.rmtree, folder, True)
    out = folder / f"{system}.vmod"
    build_module_file(HERE / system / "scenario.yaml", out, jobs=1)
    return out


class Table:
    """The GameWriter of one game plus what players look up: units by
    scenario id, marker counters by kind, chits by formation, the boxes."""

    def __init__(self, system: str, players: Sequence[Player], seed: str | None,
                 setup_changes: dict[str, str] | None = None) -> None:
        self.scenario = load_scenario(HERE / system / "scenario.yaml")
        self.module = Module.open(module_file(system))
        self.w = GameWriter(self.module, players=players)
        self.seed = seed
        self.map = self.scenario.map.name
        self.unit: dict[str, str] = {}
        self.chits: dict[str, list[str]] = {}
        for pid, p in self.w.pieces.items():
            uid = p.piece.get_property("UnitId")
            if uid:
                self.unit[uid] = pid
            elif p.piece.get_property("MarkerKind") in ("formation_chit", "end_turn_chit"):
                key = p.piece.get_property("Formation") or "end_turn"
                self.chits.setdefault(key, []).append(pid)
        self.box = {b.id: b.name for b in self.scenario.boxes}
        self.layers_on: dict[str, set] = {}
        self.face: dict[str, int] = {}          # unit -> face shown (1 = front)
        for entry in self.scenario.setup:
            for uid, face in (getattr(entry, "faces", None) or {}).items():
                names = [f.name for f in self.scenario.unit_type_of(self.scenario.counter(uid)).faces]
                self.face[uid] = names.index(face) + 1
        for uid, where in (setup_changes or {}).items():   # a set-up differing from the scenario's
            self.w.move(self.unit[uid], where, map_name=self.map, chat=False)
        self.w.snapshot()

    # -- what players do ----------------------------------------------------------
    def phase(self, turn: int, phase: str, side: str | None = None) -> None:
        """The turn tracker's report of a new phase (``TT|turn|[side|]phase``)."""
        self.w.report(f"TT|{turn}|{side}|{phase}" if side else f"TT|{turn}|{phase}")

    def mv(self, uid: str, where: str, who: str) -> None:
        self.w.move(self.unit[uid], where, map_name=self.map, player=who)

    def to_box(self, uid: str, box: str, who: str) -> None:
        self.w.move(self.unit[uid], self.box[box], map_name=OFF_MAP_NAME, player=who)

    def stack(self, uids: Sequence[str], where: str, who: str) -> None:
        self.w.move_stack([self.unit[u] for u in uids], where, map_name=self.map, player=who)

    def layer(self, uid: str, kind: str, on: bool, who: str) -> None:
        self.w.set_layer(self.unit[uid], kind, 1 if on else -1, player=who,
                         menu=self.scenario.markers[kind].name + (" on" if on else " off"))
        if on:
            self.layers_on.setdefault(kind, set()).add(uid)
        else:
            self.layers_on.get(kind, set()).discard(uid)

    def flip(self, uid: str, face: int, who: str) -> None:
        """Show face ``face`` (1 = front) of a unit."""
        self.w.set_layer(self.unit[uid], "Face", face, player=who, menu="Flip")
        self.face[uid] = face

    def marker(self, kind: str, where: str, who: str) -> str:
        """Drag the marker counter of ``kind`` out of the module's palette."""
        return self.w.add(self.w.palette_slot(MarkerKind=kind), where, self.map, player=who)

    def marker_off_map(self, kind: str, zone: str, who: str) -> str:
        """Take a marker counter from the palette onto a box or track space."""
        return self.w.add(self.w.palette_slot(MarkerKind=kind), zone, OFF_MAP_NAME, player=who)

    def move_off_map(self, pid: str, zone: str, who: str) -> None:
        self.w.move(pid, zone, map_name=OFF_MAP_NAME, player=who)

    def draw(self, formation: str, who: str, drawn_box: str) -> str:
        """Pull a chit of ``formation`` (or ``end_turn``) from the cup."""
        cup = self.chits[formation]
        for pid in cup:
            if self.w.location(pid) != self.box[drawn_box]:
                self.w.move(pid, self.box[drawn_box], map_name=OFF_MAP_NAME, player=who)
                return pid
        raise ValueError(f"no {formation} chit left in the cup")

    # -- cards (decks and hands as VASSAL logs them: docs/vassal-format.md §4.12) --------
    def card(self, card_id: str) -> str:
        """The piece id of a card copy (``CardId``, e.g. ``it.dust#2``)."""
        if not hasattr(self, "_cards"):
            self._cards = {p.piece.get_property("CardId"): pid for pid, p in self.w.pieces.items()
                           if p.piece.get_property("CardId")}
            self._in_hand: dict[str, list[str]] = {}
        return self._cards[card_id]

    def _deck_name(self, deck_id: str) -> str:
        return next(d.vassal_name for d in self.scenario.decks if d.id == deck_id)

    def _hand(self, side: str) -> tuple[str, int]:
        hand = next(h for h in self.scenario.hands if h.side == side)
        return hand.vassal_name, hand.size or 5

    def draw_card(self, card_id: str, side: str, who: str, *, deck: str | None = None) -> None:
        """Drag the card ``card_id`` out of a Fate deck (its own side's, or
        ``deck``) into ``side``'s hand, at the hand's next free card place.
        The Fate decks shuffle always, so VASSAL draws a random card: the
        script names which one the dice of fate gave."""
        pid = self.card(card_id)
        deck_id = deck or f"{side}_fate"
        window, size = self._hand(side)
        held = self._in_hand.setdefault(side, [])
        slot = len(held) % size
        w, h = card_pixels("poker")
        x, y = HAND_MARGIN + slot * (w + HAND_MARGIN) + w // 2, HAND_MARGIN + h // 2
        self.w.draw(self._deck_name(deck_id), window, x, y, card=pid, player=who)
        held.append(card_id)

    def _from_hand(self, card_id: str) -> None:
        for held in self._in_hand.values():
            if card_id in held:
                held.remove(card_id)

    def play_card(self, card_id: str, side: str, who: str) -> None:
        """Reveal a card from the hand (its mask off) and lay it face up on
        the side's play deck: an event card's event fires."""
        pid = self.card(card_id)
        self.w.mask(pid, False, player=who)
        self.w.to_deck(pid, self._deck_name(f"{side}_play"), player=who)
        self._from_hand(card_id)

    def discard_card(self, card_id: str, side: str, who: str) -> None:
        """Discard a card unplayed: face up onto the side's discard pile."""
        pid = self.card(card_id)
        self.w.mask(pid, False, player=who)
        self.w.to_deck(pid, self._deck_name(f"{side}_discard"), player=who)
        self._from_hand(card_id)

    def say(self, text: str, who: str) -> None:
        self.w.chat(text, player=who)

    def roll(self, spec: str, values: Sequence[int], who: str) -> None:
        self.w.dice(spec, values, player=who)

    def data(self) -> bytes:
        try:
            return self.w.to_bytes(key=KEY, date_saved=DATE_SAVED)
        finally:
            self.module.close()


# ======================================================================================
# Quneitra Gap (modern-tactical): World at War-style chit pull
# ======================================================================================

AVI, SAMI = "Avi", "Sami"
WAW_PLAYERS = [Player("idf-7f3a", AVI, "Israel Defense Forces"),
               Player("syr-91c2", SAMI, "Syrian Arab Army")]
#: seed -> what the illegal copy does (README and tests read this)
WAW_SEEDS = {
    "overstack": "turn 1: 1/85 and the 85 HQ join three units on Hill 1021 (1106): 4 units",
    "two-hqs": "turn 3: 2/85 with the 85 HQ end their move in 0903 with the 78 HQ",
    "hq-moves-alone": "turn 1: the 78 HQ is dragged 1103 -> 0903 alone, 1/78 follows in the next step",
    "hq-left-alone": "turn 2: 1/A leaves Tel Ayun a step before its HQ follows",
    "hq-disrupted": "turn 2: the A/74 HQ is given a Disrupted marker",
    "move-ops-complete": "turn 1: 2/A moves again in Team Ari's second activation while Ops Complete",
    "move-out-of-command": "turn 1: PA Cav 2 moves with an Out of Command marker in its hex",
    "out-of-command-unmarked": "turn 1: PA Cav 1 moves out of command range without a morale check",
    "failed-check-unmarked": "turn 2: PA Cav 2 fails its check and no Out of Command marker is placed",
    "over-long-move": "turn 2: PA Cav 1 moves 1108 -> 0905, 4 MP with 3",
    "enemy-hex": "turn 2: Recce/85 drives into 0604, held by 3/A and Golani 1",
    "extra-activation": "turn 1: a Team Ari chit goes back into the cup and is drawn a third time",
    "ops-complete-left": "turn 2: the Gazelle keeps its Ops Complete marker through Marker Removal",
    "chits-not-returned": "turn 2: the 85th's chit stays in the drawn box through Marker Removal",
    "hq-dies-alone": "turn 3: 3/78 and 1/78 are eliminated, the 78 HQ stays on the map without a Wreck",
    "hq-rebuilt-alone": "turn 3: the 85 HQ is rebuilt in 1005 with 3/85 infantry only, no BMP",
    "helicopter-over-long": "turn 1: the Gazelle flies 1208 -> 0110 -> 1201, 25 hexes with 22 MP",
    "setup-changed": "set-up: 3/78 starts in 1204 instead of 1104 (a warning)",
}


def waw_game(seed: str | None = None) -> Table:
    t = Table("modern-tactical", WAW_PLAYERS, seed,
              setup_changes={"syr.t72.3": "1204"} if seed == "setup-changed" else None)
    MR, ACT = "Marker Removal Phase", "Action Phase"
    ooc: list[str] = []

    def ops(uids, who):
        for u in uids:
            t.layer(u, "ops_complete", True, who)

    def draw(formation, who):
        t.draw(formation, who, "chits_drawn")

    def marker_removal(turn, keep=()):
        t.phase(turn, MR)
        t.say("Marker Removal: clearing Ops Complete and Out of Command markers.", AVI)
        for u in sorted(t.layers_on.get("ops_complete", set())):
            if u not in keep:
                t.layer(u, "ops_complete", False, AVI if u.startswith("idf") else SAMI)
        for pid in list(ooc):
            t.w.remove(pid, player=SAMI)
            ooc.remove(pid)
        t.say("All chits back into the cup.", AVI)
        for key in sorted(t.chits):
            if seed == "chits-not-returned" and turn == 2 and key == "bn_85":
                continue
            for pid in t.chits[key]:
                if t.w.location(pid) != t.box["chit_cup"]:
                    t.w.move(pid, t.box["chit_cup"], map_name=OFF_MAP_NAME, player=AVI)

    def check(uid, values, result, who):
        t.roll("2d6", values, who)
        t.say(f"#check {t.w.location(t.unit[uid])} {result}", who)

    # ---- turn 1 ------------------------------------------------------------------
    t.phase(1, MR)
    t.say("Turn 1. Nothing to remove, the cup is full. Good luck, Sami.", AVI)
    t.say("Good luck. Shalom and salaam.", SAMI)
    t.phase(1, ACT)
    draw("bn_78", SAMI)
    t.say("78th Tank Battalion activates: advance on the bridge.", SAMI)
    t.mv("syr.t72.2", "0903", SAMI)
    if seed == "hq-moves-alone":
        t.mv("syr.hq_78", "0903", SAMI)
        t.mv("syr.t72.1", "0903", SAMI)
    else:
        t.stack(["syr.t72.1", "syr.hq_78"], "0903", SAMI)
    t.mv("syr.t72.3", "1004", SAMI)
    t.say("2/78 fires at 3/A in 0604.", SAMI)
    t.roll("2d6", [4, 2], SAMI)
    t.say("Miss.", SAMI)
    ops(["syr.t72.1", "syr.t72.2", "syr.t72.3", "syr.hq_78"], SAMI)

    draw("team_ari", AVI)
    t.say("Team Ari activates. 3/A fires at 2/78 in 0903.", AVI)
    t.roll("2d6", [6, 5], AVI)
    t.say("Hit: 2/78 loses a step.", AVI)
    t.flip("syr.t72.2", 2, SAMI)
    t.mv("idf.mk.2", "0503", AVI)
    ops(["idf.mk.3", "idf.mk.2"], AVI)

    draw("syr_aviation", SAMI)
    if seed == "helicopter-over-long":
        t.mv("syr.gazelle", "0110", SAMI)
        t.mv("syr.gazelle", "1201", SAMI)
    else:
        t.mv("syr.gazelle", "0805", SAMI)
    t.say("Gazelle pops up and fires at 3/A.", SAMI)
    t.roll("2d6", [2, 3], SAMI)
    ops(["syr.gazelle"], SAMI)

    draw("bn_85", SAMI)
    t.say("85th Mech activates. PA Cav 2 stays put: Out of Command.", SAMI)
    ooc.append(t.marker("out_of_command", "1110", SAMI))
    if seed != "out-of-command-unmarked":
        t.say("PA Cav 1 checks morale to move without command.", SAMI)
        check("syr.cav.1", [3, 4], "pass", SAMI)
    t.say("2/85 and 3/85 check as well.", SAMI)
    check("syr.bmp.2", [2, 5], "pass", SAMI)
    t.mv("syr.brdm", "0804", SAMI)
    t.stack(["syr.bmp.2", "syr.inf"], "1106", SAMI)
    if seed == "move-out-of-command":
        t.mv("syr.cav.2", "1109", SAMI)
    t.mv("syr.cav.1", "1108", SAMI)
    t.stack(["syr.bmp.1", "syr.hq_85"], "1106" if seed == "overstack" else "0904", SAMI)
    ops(["syr.brdm", "syr.bmp.2", "syr.inf", "syr.cav.1", "syr.bmp.1", "syr.hq_85"], SAMI)

    draw("end_turn", AVI)
    t.say("First End Turn chit.", AVI)
    draw("idf_aviation", AVI)
    t.flip("idf.cobra", 1, AVI)
    t.say("Cobra lifts off.", AVI)
    t.mv("idf.cobra", "0605", AVI)
    t.say("160 fires TOW at Recce/85 in 0804.", AVI)
    t.roll("2d6", [5, 6], AVI)
    t.flip("syr.brdm", 2, SAMI)
    ops(["idf.cobra"], AVI)

    draw("team_ari", AVI)
    t.say("Team Ari again: Golani 1 reinforces the bridge.", AVI)
    t.mv("idf.inf.1", "0604", AVI)
    if seed == "move-ops-complete":
        t.mv("idf.mk.2", "0504", AVI)
    if seed == "extra-activation":
        t.w.move(t.chits["team_ari"][0], t.box["chit_cup"], map_name=OFF_MAP_NAME, player=AVI)
        t.say("Putting the Team Ari chit back into the cup...", AVI)
        draw("team_ari", AVI)
        t.say("Team Ari a third time.", AVI)
        t.mv("idf.m113.1", "0504", AVI)
        ops(["idf.m113.1"], AVI)
    ops(["idf.inf.1"], AVI)
    draw("end_turn", SAMI)
    t.say("Second End Turn chit: turn 1 is over.", SAMI)

    # ---- turn 2 ------------------------------------------------------------------
    marker_removal(2, keep=("syr.gazelle",) if seed == "ops-complete-left" else ())
    t.phase(2, ACT)
    if seed == "chits-not-returned":
        t.say("Found the 85th chit in the drawn box, putting it back.", SAMI)
        t.w.move(t.chits["bn_85"][0], t.box["chit_cup"], map_name=OFF_MAP_NAME, player=SAMI)
    draw("team_ari", AVI)
    t.say("Team Ari: 5/A and Golani 2 arrive from the west edge.", AVI)
    t.w.move_stack([t.unit["idf.m113.2"], t.unit["idf.inf.2"]], "0206", map_name=t.map, player=AVI)
    if seed == "hq-left-alone":
        t.mv("idf.mk.1", "0503", AVI)
        t.mv("idf.hq_a", "0503", AVI)
    else:
        t.stack(["idf.mk.1", "idf.hq_a"], "0503", AVI)
    t.say("1/A fires at 2/78 in 0903.", AVI)
    t.roll("2d6", [3, 3], AVI)
    t.say("Miss.", AVI)
    ops(["idf.m113.2", "idf.inf.2", "idf.mk.1", "idf.hq_a"], AVI)

    draw("bn_78", SAMI)
    # the misclick that is taken back (in game-2-withdrawn an illegal one:
    # across the wadi where there is no bridge)
    t.mv("syr.t72.3", "0302" if seed == "withdrawn" else "0905", SAMI)
    t.w.undo(player=SAMI)
    t.say("Oops, wrong hex, took that back.", SAMI)
    t.mv("syr.t72.3", "0803", SAMI)
    t.stack(["syr.t72.1", "syr.hq_78"], "0803", SAMI)
    t.say("2/78 fires at 3/A in 0604.", SAMI)
    t.roll("2d6", [6, 4], SAMI)
    t.say("Hit! Golani 1 is disrupted.", SAMI)
    t.layer("idf.inf.1", "disrupted", True, AVI)
    if seed == "hq-disrupted":
        t.layer("idf.hq_a", "disrupted", True, AVI)
    ops(["syr.t72.1", "syr.t72.2", "syr.t72.3", "syr.hq_78"], SAMI)

    draw("bn_85", SAMI)
    t.say("85th: PA Cav 2 tries again to get in command.", SAMI)
    check("syr.cav.2", [6, 6], "fail", SAMI)
    if seed != "failed-check-unmarked":
        ooc.append(t.marker("out_of_command", t.w.location(t.unit["syr.cav.2"]), SAMI))
    check("syr.cav.1", [4, 1], "pass", SAMI)
    t.mv("syr.cav.1", "0905" if seed == "over-long-move" else "1007", SAMI)
    t.mv("syr.brdm", "0604" if seed == "enemy-hex" else "0704", SAMI)
    t.mv("syr.inf", "1005", SAMI)
    ops(["syr.cav.1", "syr.brdm", "syr.inf"], SAMI)

    draw("idf_aviation", AVI)
    t.say("160 fires at 1/85 in 0904.", AVI)
    t.roll("2d6", [6, 5], AVI)
    t.say("1/85 destroyed, and the 85 HQ with it.", AVI)
    if seed == "overstack":
        t.w.move_stack([t.unit["syr.bmp.1"], t.unit["syr.hq_85"]], t.box["syr_elim"],
                       map_name=OFF_MAP_NAME, player=SAMI)
    else:
        t.marker("wreck", "0904", SAMI)
        t.w.move_stack([t.unit["syr.bmp.1"], t.unit["syr.hq_85"]], t.box["syr_elim"],
                       map_name=OFF_MAP_NAME, player=SAMI)
    t.mv("idf.cobra", "0406", AVI)
    t.flip("idf.cobra", 2, AVI)
    t.say("Cobra lands behind Quneitra to rearm.", AVI)
    ops(["idf.cobra"], AVI)

    draw("end_turn", SAMI)
    draw("team_ari", AVI)
    t.mv("idf.m113.1", "0405", AVI)
    t.say("4/A fires at Recce/85 in {}.".format(t.w.location(t.unit["syr.brdm"])), AVI)
    t.roll("2d6", [5, 5], AVI)
    t.say("Recce/85 is destroyed.", AVI)
    t.to_box("syr.brdm", "syr_elim", SAMI)
    ops(["idf.m113.1"], AVI)
    draw("end_turn", AVI)

    # ---- turn 3 ------------------------------------------------------------------
    marker_removal(3)
    t.say("Rebuilding the 85 HQ, reduced, with 2/85.", SAMI)
    t.flip("syr.hq_85", 2, SAMI)
    t.w.move(t.unit["syr.hq_85"], "1005" if seed == "hq-rebuilt-alone" else "1106",
             map_name=t.map, player=SAMI)
    t.phase(3, ACT)
    draw("syr_aviation", SAMI)
    t.mv("syr.gazelle", "0705", SAMI)
    t.say("Gazelle fires at 3/A in 0604.", SAMI)
    t.roll("2d6", [5, 4], SAMI)
    t.flip("idf.mk.3", 2, AVI)
    ops(["syr.gazelle"], SAMI)

    draw("team_ari", AVI)
    t.say("Team Ari: Golani 1 rallies.", AVI)
    t.roll("2d6", [2, 3], AVI)
    t.layer("idf.inf.1", "disrupted", False, AVI)
    t.say("3/A and 2/A fire at 1/78 in 0803.", AVI)
    t.roll("2d6", [6, 6], AVI)
    if seed == "hq-dies-alone":
        t.say("Both 1/78 and 3/78 destroyed!", AVI)
        t.to_box("syr.t72.3", "syr_elim", SAMI)
    else:
        t.say("1/78 destroyed; the 78 HQ stays with 3/78.", AVI)
    t.to_box("syr.t72.1", "syr_elim", SAMI)
    ops(["idf.mk.3", "idf.mk.2", "idf.inf.1"], AVI)

    draw("bn_78", SAMI)
    if seed != "hq-dies-alone":
        t.say("78th: 3/78 and the HQ pull back.", SAMI)
        t.stack(["syr.t72.3", "syr.hq_78"], "0903", SAMI)
        ops(["syr.t72.3", "syr.hq_78"], SAMI)
    t.mv("syr.t72.2", "1003", SAMI)
    ops(["syr.t72.2"], SAMI)
    draw("end_turn", SAMI)
    draw("bn_85", SAMI)
    if seed == "hq-rebuilt-alone":
        t.mv("syr.bmp.2", "1005", SAMI)
    else:
        t.stack(["syr.bmp.2", "syr.hq_85"], "0903" if seed == "two-hqs" else "1005", SAMI)
    t.mv("syr.cav.1", "0906", SAMI)
    ops(["syr.bmp.2", "syr.hq_85", "syr.cav.1"], SAMI)
    draw("end_turn", AVI)
    t.say("End of turn 3. Good game so far.", AVI)
    t.say("Thanks. Turn 4 next week.", SAMI)
    return t


# ======================================================================================
# Somme Breakout, 1918 (ww1-operational): IGOUGO player turns
# ======================================================================================

FRITZ, TOMMY = "Fritz", "Tommy"
WW1_PLAYERS = [Player("ger-2b8e", FRITZ, "German Empire"), Player("all-c4d1", TOMMY, "Allies")]
WW1_SEEDS = {
    "rp-storm-unit": "German turn 2: Sturm 7 comes back from the dead pile with a replacement point",
    "rp-french-regiment": "Allied turn 3: the 152 RI regiment comes back from the dead pile",
    "two-rps-one-unit": ("Allied turn 3: the 14th Division returns from the dead pile and is then "
                         "flipped to full strength"),
    "rp-on-map-while-dead-pile": ("Allied turn 2: the reduced 14th Division is rebuilt while the 58th "
                                  "waits in the dead pile"),
    "rp-returned-full": "Allied turn 1: the 18th Division returns from the dead pile full strength",
    "rp-away-from-hq": "Allied turn 2: the 58th Division returns to 0603, away from the III Corps HQ",
    "rp-over-budget": "Allied turn 2: a second replacement point (the 14th Division) with 1 available",
    "tank-under-infantry": "German turn 1: the 28th Division is dropped on top of the Functional A7V in Ham",
    "tank-repaired-in-movement": "Allied turn 3: the Broken Mk IV is flipped to Functional in the Movement Phase",
    "broken-tank-exploits": "Allied turn 3: the Broken Mk IV moves in the Exploitation Phase",
    "river-without-bridge": "German turn 3: the A7V crosses the Somme 1004 -> 1005 where there is no bridge",
    "tank-stays-functional": "German turn 2: the A7V attacks and is not flipped to Broken",
    "aircraft-left-on-map": "German turn 1: Schlasta 15 stays on the map after the Combat Phase",
    "overstack": "Allied turn 2: the FT battalion arrives a turn early with V Corps: 4 units in 1108",
}


def ww1_game(seed: str | None = None) -> Table:
    t = Table("ww1-operational", WW1_PLAYERS, seed)
    REP, AIR, MOV, COM, EXP = ("Replacement & Reinforcement Phase", "Air Phase", "Movement Phase",
                               "Combat Phase", "Exploitation Phase")
    GER, ALL = "German Empire", "Allies"

    def redrop(uids, who):
        """Put units back on top of their stack (a drop on their own hex)."""
        for u in uids:
            t.mv(u, t.w.location(t.unit[u]), who)

    def rp_return(uid, where, who):
        """A unit back from the dead pile: reduced side up (flipped in the
        box if it died full strength), onto ``where``."""
        if seed != "rp-returned-full" and t.face.get(uid, 1) != 2:
            t.flip(uid, 2, who)
        t.mv(uid, where, who)

    # ---- turn 1, German player turn -----------------------------------------------
    t.phase(1, REP, GER)
    t.say("Zug 1. Ersatz: die 50. Reserve-Division wird aufgefrischt (1 EP).", FRITZ)
    t.flip("ger.inf.3", 1, FRITZ)
    t.phase(1, AIR, GER)
    t.say("Schlasta 15 greift den Graben bei 0902 an.", FRITZ)
    t.mv("ger.schlasta", "0902", FRITZ)
    t.phase(1, MOV, GER)
    t.mv("ger.storm.1", "1001", FRITZ)
    t.w.move_stack([t.unit["ger.hq4"], t.unit["ger.inf4.1"], t.unit["ger.a7v"]], "1104",
                   map_name=t.map, player=FRITZ)
    if seed == "tank-under-infantry":
        redrop(["ger.inf4.1"], FRITZ)
    t.say("Bewegung beendet.", FRITZ)
    t.phase(1, COM, GER)
    t.say("#attack 1001,1002 > 0902", FRITZ)
    t.roll("2d6", [5, 4], FRITZ)
    t.say("58. Division: ein Schritt Verlust.", FRITZ)
    t.flip("all.bri.1", 2, TOMMY)
    if seed != "aircraft-left-on-map":
        t.to_box("ger.schlasta", "ger_flown", FRITZ)
    t.phase(1, EXP, GER)
    t.say("Sturm 7 stößt nach 0903 vor.", FRITZ)
    t.mv("ger.storm.2", "0903", FRITZ)
    if seed == "aircraft-left-on-map":
        t.to_box("ger.schlasta", "ger_flown", FRITZ)

    # ---- turn 1, Allied player turn -------------------------------------------------
    t.phase(1, REP, ALL)
    t.say("Our RP goes to the 18th Division in the dead pile; it rejoins III Corps.", TOMMY)
    rp_return("all.bri.2", "0703", TOMMY)
    t.say("Whippets repaired at Corps HQ.", TOMMY)
    t.flip("all.whippet", 1, TOMMY)
    redrop(["all.whippet", "all.tank"], TOMMY)
    t.phase(1, AIR, ALL)
    t.mv("all.sqn56", "0803", TOMMY)
    t.say("56 Squadron flies a patrol over 0803.", TOMMY)
    t.phase(1, MOV, ALL)
    t.mv("all.bri.2", "0803", TOMMY)
    t.mv("all.cav", "0603", TOMMY)
    t.phase(1, COM, ALL)
    t.say("#attack 0904,0803 > 0903", TOMMY)
    t.roll("2d6", [6, 5], TOMMY)
    t.say("Sturm 7 is wiped out.", TOMMY)
    t.to_box("ger.storm.2", "ger_dead", FRITZ)
    t.to_box("all.sqn56", "all_flown", TOMMY)
    t.phase(1, EXP, ALL)
    t.mv("all.cav", "0604", TOMMY)
    t.say("That's my turn 1.", TOMMY)

    # ---- turn 2, German ---------------------------------------------------------------
    t.phase(2, REP, GER)
    if seed == "rp-storm-unit":
        t.say("Sturm 7 kehrt zurück.", FRITZ)
        t.mv("ger.storm.2", "1101", FRITZ)
    else:
        t.say("Kein Ersatz nötig; Sturm 7 bleibt auf dem Friedhof (Sturmtruppen erhalten keinen Ersatz).",
              FRITZ)
    t.phase(2, AIR, GER)
    t.w.move(t.unit["ger.schlasta"], t.box["ger_ready"], map_name=OFF_MAP_NAME, player=FRITZ)
    t.mv("ger.jg1", "0803", FRITZ)
    t.phase(2, MOV, GER)
    t.mv("ger.storm.1", "0901", FRITZ)
    t.w.move_stack([t.unit["ger.hq4"], t.unit["ger.inf4.1"], t.unit["ger.a7v"]], "1004",
                   map_name=t.map, player=FRITZ)
    t.phase(2, COM, GER)
    t.say("#attack 0901,1002 > 0902", FRITZ)
    t.roll("2d6", [6, 6], FRITZ)
    t.say("Die 58. ist vernichtet.", FRITZ)
    t.to_box("all.bri.1", "all_dead", TOMMY)
    t.say("#attack 1004,1003 > 0904", FRITZ)
    t.roll("2d6", [4, 5], FRITZ)
    t.say("#retreat 0904 > 0804", TOMMY)
    t.mv("all.bri.3", "0804", TOMMY)
    t.say("#advance 1003 > 0904", FRITZ)
    t.mv("ger.inf.3", "0904", FRITZ)
    if seed != "tank-stays-functional":
        t.say("Der A7V bleibt liegen (Panne nach dem Angriff).", FRITZ)
        t.flip("ger.a7v", 2, FRITZ)
    t.to_box("ger.jg1", "ger_flown", FRITZ)
    t.phase(2, EXP, GER)
    t.mv("ger.storm.1", "0902", FRITZ)
    t.say("Fertig.", FRITZ)

    # ---- turn 2, Allied ---------------------------------------------------------------
    t.phase(2, REP, ALL)
    if seed == "rp-on-map-while-dead-pile":
        t.say("Rebuilding the 14th in the line.", TOMMY)
        t.flip("all.bri.3", 1, TOMMY)
    else:
        t.say("The 58th comes back, reduced, at III Corps HQ.", TOMMY)
        rp_return("all.bri.1", "0603" if seed == "rp-away-from-hq" else "0703", TOMMY)
        if seed == "rp-over-budget":
            t.flip("all.bri.3", 1, TOMMY)
    if seed != "rp-on-map-while-dead-pile":
        redrop(["all.whippet", "all.tank"], TOMMY)
    t.say("French V Corps arrives from the south.", TOMMY)
    for u in ("all.hq5", "all.fr_div", "all.fr_rgt.1", "all.fr_rgt.2"):
        t.mv(u, "1108", TOMMY)
    if seed == "overstack":
        t.mv("all.ft", "1108", TOMMY)
    t.phase(2, AIR, ALL)
    t.mv("all.gc12", "0904", TOMMY)
    t.phase(2, MOV, ALL)
    t.mv("all.tank", "0803", TOMMY)
    t.mv("all.cav", "0704", TOMMY)
    t.mv("all.fr_rgt.1", "1106", TOMMY)
    t.stack(["all.hq5", "all.fr_div"], "1107", TOMMY)
    t.phase(2, COM, ALL)
    t.say("#attack 0803,0804 > 0904", TOMMY)
    t.roll("2d6", [5, 5], TOMMY)
    t.say("50 R loses a step; the Mk IV breaks down.", TOMMY)
    t.flip("ger.inf.3", 2, FRITZ)
    t.flip("all.tank", 2, TOMMY)
    t.to_box("all.gc12", "all_flown", TOMMY)
    t.phase(2, EXP, ALL)
    t.mv("all.cav", "0604", TOMMY)

    # ---- turn 3, German ---------------------------------------------------------------
    t.phase(3, REP, GER)
    t.say("Ersatz für die 50. R; der A7V wird beim IV. Reservekorps instandgesetzt.", FRITZ)
    t.flip("ger.inf.3", 1, FRITZ)
    if seed != "tank-stays-functional":
        t.flip("ger.a7v", 1, FRITZ)
    t.phase(3, AIR, GER)
    t.mv("ger.schlasta", "0804", FRITZ)
    t.phase(3, MOV, GER)
    t.mv("ger.inf.2", "0903", FRITZ)
    if seed == "river-without-bridge":
        t.mv("ger.a7v", "1005", FRITZ)
    t.phase(3, COM, GER)
    t.say("#attack 0904 > 0804", FRITZ)
    t.roll("2d6", [6, 3], FRITZ)
    t.to_box("all.bri.3", "all_dead", TOMMY)
    t.say("#attack 1105 > 1106", FRITZ)
    t.roll("2d6", [5, 6], FRITZ)
    t.to_box("all.fr_rgt.1", "all_dead", TOMMY)
    t.to_box("ger.schlasta", "ger_flown", FRITZ)
    t.phase(3, EXP, GER)
    t.say("Keine Ausnutzung.", FRITZ)

    # ---- turn 3, Allied ---------------------------------------------------------------
    t.phase(3, REP, ALL)
    t.say("Two RPs: the 14th back from the dead pile, the 58th to full strength.", TOMMY)
    rp_return("all.bri.3", "0703", TOMMY)
    if seed == "two-rps-one-unit":
        t.flip("all.bri.3", 1, TOMMY)
    elif seed == "rp-french-regiment":
        t.mv("all.fr_rgt.1", "1107", TOMMY)
    else:
        t.flip("all.bri.1", 1, TOMMY)
    redrop(["all.whippet"], TOMMY)
    t.mv("all.ft", "0708", TOMMY)
    t.phase(3, AIR, ALL)
    t.say("No air missions.", TOMMY)
    t.phase(3, MOV, ALL)
    if seed == "tank-repaired-in-movement":
        t.flip("all.tank", 1, TOMMY)
    t.mv("all.tank", "0805", TOMMY)
    t.mv("all.ft", "0707", TOMMY)
    t.phase(3, COM, ALL)
    t.say("No attacks this turn.", TOMMY)
    t.phase(3, EXP, ALL)
    if seed == "broken-tank-exploits":
        t.mv("all.tank", "0804", TOMMY)
    t.mv("all.cav", "0504", TOMMY)
    t.say("End of turn 3.", TOMMY)
    return t


# ======================================================================================
# Pont-Saint-Louis (combat-commander): Russian-language players
# ======================================================================================

MARIO, JEAN = "Марио", "Жан"
CC_PLAYERS = [Player("it-5e19", MARIO, "Италия"), Player("fr-a07c", JEAN, "Франция")]
CC_SEEDS = {
    "smoke-in-water": "Italian turn 1: the Dust Smoke marker goes into the water hex 0606",
    "smoke-with-blaze": "Italian turn 3: Smoke placed in 0503, where a Blaze marker burns",
    "foxholes-in-water": "French turn 1: Entrench puts Foxholes in the water hex 0607",
    "foxholes-on-fortification": "French turn 3: Foxholes in 0404, which already holds Foxholes",
    "private-without-broken": "Italian turn 2: the Private enters 0704, where no Italian unit is broken",
    "hero-alone": "Italian turn 2: the Hero enters 0604, a hex without Italian personnel",
    "hero-on-casualty-track": "French turn 2: the eliminated Italian Hero is put on the Casualty Track",
    "deploy-wrong-quality": "French turn 2: the elite squad deploys into two line teams",
    "over-long-move": "Italian turn 3: Отделение 4 moves 0703 -> 0302, 5 MP with 4",
    "enemy-hex": "French turn 3: Лейтенант Дюран walks into 0603, held by Отделение 4",
    "elan-two-spaces": "French turn 3: Élan moves the French Surrender marker two spaces up, 6 -> 8",
    "hand-over-limit": "Italian turn 1: Марио draws a fifth card into his hand of 4 (and discards it at once)",
    "card-out-of-window": "Italian turn 3: Жан plays «Пыль (Dust)» in the Italian Orders phase",
    "card-wrong-deck": "Italian turn 2: Марио draws one of his cards from the French Fate deck",
}


def cc_game(seed: str | None = None) -> Table:
    """Every event fires from a card played out of the hand (no ``#event``
    annotation): the Fate decks, hands, plays, discards and draws are logged
    as VASSAL logs them."""
    t = Table("combat-commander", CC_PLAYERS, seed)
    hero_fix = False
    IT, FR = "Италия", "Франция"
    ORD, DIS, DRAW = "Приказы и действия", "Сброс", "Добор карт"

    def end_of_turn(turn, side, who, note, discards=(), draws=(), draw_note="Добираю до полной руки."):
        t.phase(turn, DIS, side)
        t.say(note, who)
        own = "it" if side == IT else "fr"
        for card in discards:
            t.discard_card(card, own, who)
        t.phase(turn, DRAW, side)
        t.say(draw_note, who)
        for card in draws:
            t.draw_card(card, own, who)

    def play(card, side, who):
        t.play_card(card, side, who)

    # ---- set-up: the Surrender markers on the Casualty Tracks (E54 moves them) -----
    fr_surrender = t.marker_off_map("surrender", "Дорожка потерь (Франция) 6", JEAN)
    t.marker_off_map("surrender", "Дорожка потерь (Италия) 7", MARIO)
    # ---- the first hands (4 Italian, 5 French cards) ---------------------------------
    t.say("Раздаю карты судьбы.", MARIO)
    for card in ("it.dust", "it.deploy", "it.fire", "it.move"):
        t.draw_card(card, "it", MARIO)
    for card in ("fr.fire", "fr.entrench", "fr.move", "fr.rally", "fr.recover"):
        t.draw_card(card, "fr", JEAN)

    # ---- turn 1: Italy ------------------------------------------------------------
    t.phase(1, ORD, IT)
    t.say("Начинаем! Приказ «Движение»: 2-е и 3-е отделения идут к мосту.", MARIO)
    play("it.move", "it", MARIO)
    t.say("Удачи, Марио.", JEAN)
    t.mv("it.sq_line.2", "0803", MARIO)
    t.mv("it.sq_line.3", "0703", MARIO)
    t.say("Приказ «Огонь»: пулемёт Фиат бьёт по 0404.", MARIO)
    play("it.fire", "it", MARIO)
    t.roll("2d6", [5, 6], MARIO)
    t.say("Отделение Г подавлено.", MARIO)
    t.layer("fr.sq_line.2", "suppressed", True, JEAN)
    t.say("Событие «Пыль»: дым в случайный гекс.", MARIO)
    play("it.dust", "it", MARIO)
    t.marker("smoke", "0606" if seed == "smoke-in-water" else "0705", MARIO)
    t.say("Событие «Развёртывание»: Новобранцы 7 разворачиваются в две команды.", MARIO)
    play("it.deploy", "it", MARIO)
    t.to_box("it.sq_green.2", "it_mix", MARIO)
    t.mv("it.tm_green.1", "0906", MARIO)
    t.mv("it.tm_green.2", "0906", MARIO)
    end_of_turn(1, IT, MARIO, "Сбрасывать нечего: рука пуста.",
                draws=("it.promotion", "it.rally", "it.hero", "it.fire#2"))
    if seed == "hand-over-limit":
        t.draw_card("it.deploy#2", "it", MARIO)
        t.say("Ой, у меня пять карт — сбрасываю лишнюю.", MARIO)
        t.discard_card("it.deploy#2", "it", MARIO)

    # ---- turn 1: France -------------------------------------------------------------
    t.phase(1, ORD, FR)
    t.say("Приказ «Огонь» по 0803.", JEAN)
    play("fr.fire", "fr", JEAN)
    t.roll("2d6", [6, 6], JEAN)
    t.say("Отделение 3 сломлено!", JEAN)
    t.layer("it.sq_line.2", "broken", True, MARIO)
    t.say("Событие «Окапывание»: окопы в 0404.", JEAN)
    play("fr.entrench", "fr", JEAN)
    t.marker("foxholes", "0607" if seed == "foxholes-in-water" else "0404", JEAN)
    t.say("Приказ «Движение»: лейтенант Дюран переходит в 0403.", JEAN)
    play("fr.move", "fr", JEAN)
    t.mv("fr.ldr.1", "0403", JEAN)
    t.say("Отделение Д тоже движется.", JEAN)
    t.mv("fr.sq_line.3", "0305", JEAN)
    t.w.undo(player=JEAN)
    t.say("Нет, передумал — остаётся в Гараване.", JEAN)
    t.say("Огонь пулемёта Гочкис по 0703.", JEAN)
    t.roll("2d6", [1, 2], JEAN)
    t.say("Мимо.", JEAN)
    end_of_turn(1, FR, JEAN, "Сброс: две карты.", discards=("fr.rally", "fr.recover"),
                draws=("fr.deploy", "fr.elan", "fr.entrench#2", "fr.fire#2", "fr.move#2"))

    # ---- turn 2: Italy --------------------------------------------------------------
    t.phase(2, ORD, IT)
    t.say("Событие «Полевое повышение»: рядовой в 0803.", MARIO)
    play("it.promotion", "it", MARIO)
    t.mv("it.private", "0704" if seed == "private-without-broken" else "0803", MARIO)
    t.say("Приказ «Сплочение» в 0803.", MARIO)
    play("it.rally", "it", MARIO)
    t.roll("2d6", [2, 3], MARIO)
    t.layer("it.sq_line.2", "broken", False, MARIO)
    t.say("Капитан Росси с отделением 2 и пулемётом продвигаются к 0704.", MARIO)
    t.stack(["it.sq_line.1", "it.lmg.1", "it.ldr.1"], "0704", MARIO)
    t.say("Событие «Герой» в 0704.", MARIO)
    play("it.hero", "it", MARIO)
    t.mv("it.hero", "0604" if seed == "hero-alone" else "0704", MARIO)
    t.say("Приказ «Огонь»: миномёт Бриксия стреляет по 0304.", MARIO)
    play("it.fire#2", "it", MARIO)
    t.roll("2d6", [2, 2], MARIO)
    t.say("Промах. Теперь пулемёт Фиат по 0304.", MARIO)
    t.roll("2d6", [6, 5], MARIO)
    t.say("Отделение В уничтожено.", MARIO)
    t.w.move(t.unit["fr.sq_line.1"], "Дорожка потерь (Франция) 1", map_name=OFF_MAP_NAME, player=JEAN)
    t.say("Вспыхнул пожар в 0503.", MARIO)
    t.marker("blaze", "0503", MARIO)
    t.phase(2, DIS, IT)
    t.say("Сбрасывать нечего.", MARIO)
    t.phase(2, DRAW, IT)
    t.say("Добираю до полной руки.", MARIO)
    for card in ("it.dust#2", "it.advance", "it.move#2"):
        t.draw_card(card, "it", MARIO)
    if seed == "card-wrong-deck":
        t.draw_card("fr.promotion", "it", MARIO, deck="fr_fate")
    else:
        t.draw_card("it.entrench", "it", MARIO)

    # ---- turn 2: France -------------------------------------------------------------
    t.phase(2, ORD, FR)
    t.say("Огонь по 0704: целюсь в героя.", JEAN)
    play("fr.fire#2", "fr", JEAN)
    t.roll("2d6", [6, 4], JEAN)
    t.say("Герой убит.", JEAN)
    if seed == "hero-on-casualty-track":
        t.w.move(t.unit["it.hero"], "Дорожка потерь (Италия) 1", map_name=OFF_MAP_NAME, player=MARIO)
        hero_fix = True
    else:
        t.say("Герой возвращается в набор фишек (E58.1b).", MARIO)
        t.to_box("it.hero", "it_mix", MARIO)
    t.say("Событие «Развёртывание»: элитное отделение разворачивается.", JEAN)
    play("fr.deploy", "fr", JEAN)
    t.to_box("fr.sq_elite.2", "fr_mix", JEAN)
    if seed == "deploy-wrong-quality":
        t.mv("fr.tm_line.1", "0202", JEAN)
        t.mv("fr.tm_line.2", "0202", JEAN)
    else:
        t.mv("fr.tm_elite.1", "0202", JEAN)
        t.mv("fr.tm_elite.2", "0202", JEAN)
    t.say("Команды готовы.", JEAN)
    t.say("Приказ «Движение»: сержант Мартен с отделением Д в Гараван.", JEAN)
    play("fr.move#2", "fr", JEAN)
    t.stack(["fr.sq_line.3", "fr.ldr.2"], "0305", JEAN)
    end_of_turn(2, FR, JEAN, "Карты оставляю.", draws=("fr.dust", "fr.hero", "fr.fog"))
    if hero_fix:
        t.say("Ой, герой должен был вернуться в набор фишек, исправляю.", MARIO)
        t.to_box("it.hero", "it_mix", MARIO)

    # ---- turn 3: Italy --------------------------------------------------------------
    t.phase(3, ORD, IT)
    t.say("Приказ «Движение».", MARIO)
    play("it.move#2", "it", MARIO)
    t.mv("it.sq_line.3", "0302" if seed == "over-long-move" else "0603", MARIO)
    t.mv("it.sq_line.4", "0904", MARIO)
    t.mv("it.sq_green.1", "0805", MARIO)
    t.say("Событие «Пыль».", MARIO)
    play("it.dust#2", "it", MARIO)
    t.marker("smoke", "0503" if seed == "smoke-with-blaze" else "0504", MARIO)
    if seed == "card-out-of-window":
        t.say("А я сыграю «Пыль»!", JEAN)
        play("fr.dust", "fr", JEAN)
        t.say("Жан, сейчас не твой ход.", MARIO)
    t.say("Огонь по 0404 под прикрытием дыма.", MARIO)
    t.roll("2d6", [4, 3], MARIO)
    t.say("Без результата.", MARIO)
    t.layer("fr.sq_line.2", "suppressed", False, JEAN)
    end_of_turn(3, IT, MARIO, "Сброс.", discards=("it.advance",), draws=("it.elan", "it.advance#2"),
                draw_note="Беру две карты.")

    # ---- turn 3: France -------------------------------------------------------------
    t.phase(3, ORD, FR)
    t.say("Сержант Мартен и отделение Д назад в 0205.", JEAN)
    t.stack(["fr.sq_line.3", "fr.ldr.2"], "0205", JEAN)
    if seed == "enemy-hex":
        t.say("Дюран идёт в штыковую!", JEAN)
        t.mv("fr.ldr.1", "0603", JEAN)
    t.say("Событие «Окапывание»: окапываемся.", JEAN)
    play("fr.entrench#2", "fr", JEAN)
    t.marker("foxholes", "0404" if seed == "foxholes-on-fortification" else "0303", JEAN)
    t.roll("2d6", [3, 1], JEAN)
    t.say("Огонь мимо.", JEAN)
    t.say("Событие «Порыв»: маркер сдачи на одно деление выше.", JEAN)
    play("fr.elan", "fr", JEAN)
    t.move_off_map(fr_surrender, "Дорожка потерь (Франция) " + ("8" if seed == "elan-two-spaces"
                                                                else "7"), JEAN)
    end_of_turn(3, FR, JEAN, "Конец третьего хода. Хорошая партия!", draws=("fr.elan#2",),
                draw_note="Беру одну карту.")
    t.say("Спасибо, до следующей недели.", MARIO)
    return t


#: system -> (game function, {seed: what the illegal copy does}, {extra clean log: seed})
SYSTEMS: dict[str, tuple] = {
    "modern-tactical": (waw_game, WAW_SEEDS, {"game-2-withdrawn": "withdrawn"}),
    "ww1-operational": (ww1_game, WW1_SEEDS, {}),
    "combat-commander": (cc_game, CC_SEEDS, {}),
}


def logs_of(system: str) -> dict[str, str | None]:
    """File name -> seed of every log of a system."""
    _game, seeds, extra = SYSTEMS[system]
    names: dict[str, str | None] = {"game-1.vlog": None}
    names.update({f"{name}.vlog": seed for name, seed in extra.items()})
    names.update({f"illegal-{seed}.vlog": seed for seed in seeds})
    return names


def write_system(system: str, out: Path) -> list[Path]:
    game = SYSTEMS[system][0]
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, seed in logs_of(system).items():
        path = out / name
        atomic_write(path, game(seed).data())
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("systems", nargs="*", default=list(SYSTEMS))
    ap.add_argument("--out", type=Path, help="folder to write <system>/*.vlog into "
                    "(default: examples/<system>/logs)")
    args = ap.parse_args(argv)
    for system in args.systems:
        folder = (args.out / system) if args.out else HERE / system / "logs"
        for path in write_system(system, folder):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
