"""Game time from a log: turn, phasing side, phase and activation
(``docs/seed-rules.md`` §4.4), plus players' chat annotations and dice.

* **Turn tracker reports.** A generated module's TurnTracker reports
  ``* TT|<turn>|[<side>|]<phase>`` in the chat; the scenario's
  ``log.turn_tracker.report_regex`` (named groups ``turn``, ``side``,
  ``phase``) overrides the pattern for other modules.  Phase and side names
  are mapped back to the scenario's ids.
* **The turn tracker's state.** Each ``TURN`` command (and the state a
  saved game starts from) sets the tracker's levels; the levels named in
  ``log.turn_tracker.levels`` (default ``Turn``, ``Side``, ``Phase``: what
  ``vmodtool build`` writes; a name or a position, 1 = ``$level1$``) give
  the turn, the phasing side and the phase.  Works for any module whose
  tracker levels show them, with no chat report needed.
* **Chit pulls.** A formation chit moved into the activation's ``drawn``
  box starts that formation's activation.
* **Annotations.** ``#kind args`` typed in the chat (``#attack 0302,0403 >
  0503``, ``#retreat 0503 > 0604``, ``#check 0607 pass``, ``#event Deploy``).
* **Dice.** Report lines matching ``log.dice_regex``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass

from vmodtool.audit.api import Annotation
from vmodtool.scenario.model import Scenario

__all__ = ["Clock", "ClockChange", "parse_annotation", "DEFAULT_REPORT_REGEX",
           "DEFAULT_DICE_REGEX", "DEFAULT_TYPED_CHAT_REGEX", "DEFAULT_LEVELS"]

DEFAULT_REPORT_REGEX = r"^\*\s*TT\|(?P<turn>-?\d+)(?:\|(?P<a>[^|*]+?))?(?:\|(?P<b>[^|*]+?))?\s*\*?\s*$"
DEFAULT_DICE_REGEX = (r"^\*\*\* (?P<label>[^=]+?) = (?P<values>[0-9, ]+) \*\*\*"
                      r"(?: by (?P<player>.+)| <(?P<player2>.+)>)?\s*$")
DEFAULT_TYPED_CHAT_REGEX = r"^(?:<|&lt;)(?P<player>.+?)(?:>|&gt;) - (?P<text>.*)$"
#: which turn-tracker levels show the turn, the phasing side and the phase
#: (the level names ``vmodtool build`` gives them)
DEFAULT_LEVELS: dict[str, object] = {"turn": "Turn", "side": "Side", "phase": "Phase"}


@dataclass(frozen=True)
class ClockChange:
    """A change of game time found in a chat line."""

    turn: int | None
    side: str | None
    phase: str | None
    #: the line announces the phase of the side it is addressed to (a
    #: ``report_regex`` group ``addressed`` matched: "your movement
    #: phase"), not the speaker's: with two sides, the other one
    addressed: bool = False


class Clock:
    """Reads time, dice and annotations from chat lines of one scenario."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        log = scenario.log if isinstance(scenario.log, dict) else {}
        tracker = log.get("turn_tracker") or {}
        self.report = re.compile(tracker.get("report_regex") or DEFAULT_REPORT_REGEX)
        #: whether any chat line may report the time (a scenario's own
        #: pattern: players type "Beginning the Air Drop Phase."), not only
        #: a ``*`` report line of a turn tracker
        self.any_line = bool(tracker.get("report_regex"))
        self.tracker_name = tracker.get("component")
        self.levels = {**DEFAULT_LEVELS, **(tracker.get("levels") or {})}
        self.dice = re.compile(log.get("dice_regex") or DEFAULT_DICE_REGEX)
        self.typed = re.compile(log.get("typed_chat_regex") or DEFAULT_TYPED_CHAT_REGEX)
        # a line that cannot match is known by its start (most chat lines are
        # neither time reports nor dice): the text every match begins with
        self._report_start = literal_prefix(self.report.pattern) if not self.report.flags & ~re.UNICODE else ""
        self._dice_start = literal_prefix(self.dice.pattern) if not self.dice.flags & ~re.UNICODE else ""
        self.prefix = ((log.get("annotations") or {}).get("prefix") or "#")
        phases = scenario.turns.phases if scenario.turns else ()
        self.phase_ids: dict[str, str] = {}
        for phase in phases:
            self.phase_ids[phase.name.casefold()] = phase.id
            self.phase_ids[phase.id.casefold()] = phase.id
        self.side_ids: dict[str, str] = {}
        for side in scenario.game.sides:
            self.side_ids[side.name.casefold()] = side.id
            self.side_ids[side.id.casefold()] = side.id

    @staticmethod
    def _text(message: str) -> str:
        return html.unescape(message).strip()

    def time(self, message: str) -> ClockChange | None:
        """The time a turn-tracker report announces, or None."""
        if self._report_start and _cannot_start(message, self._report_start):
            return None
        text = self._text(message)
        m = self.report.match(text)
        if not m:
            return None
        groups = m.groupdict()
        turn = int(groups["turn"]) if groups.get("turn") not in (None, "") else None
        side = groups.get("side")
        phase = groups.get("phase")
        rest = [groups.get(k) for k in ("a", "b") if groups.get(k)]
        if phase is None and rest:       # the default pattern: [side|]phase
            phase = rest[-1]
            if side is None and len(rest) == 2:
                side = rest[0]
        side_id = self.side_ids.get(side.strip().casefold()) if side else None
        phase_id = self.phase_ids.get(phase.strip().rstrip(" *").casefold()) if phase else None
        return ClockChange(turn, side_id, phase_id, bool(groups.get("addressed")))

    def tracker_time(self, levels: Sequence[tuple[str, str]]) -> ClockChange | None:
        """The time the turn tracker's active levels show ((level name, value),
        outermost first), or None when none of the configured levels is there."""
        found: dict[str, str] = {}
        for what, ref in self.levels.items():
            if ref is None:
                continue
            if isinstance(ref, int) and not isinstance(ref, bool):
                if 1 <= ref <= len(levels):
                    found[what] = levels[ref - 1][1]
                continue
            for name, value in levels:
                if name == ref:
                    found[what] = value
                    break
        if not found:
            return None
        turn = found.get("turn", "").strip()
        side, phase = found.get("side"), found.get("phase")
        return ClockChange(int(turn) if re.fullmatch(r"-?\d+", turn) else None,
                           self.side_ids.get(side.strip().casefold()) if side else None,
                           self.phase_ids.get(phase.strip().casefold()) if phase else None)

    def roll(self, message: str) -> tuple[str, tuple[int, ...]] | None:
        """(label, values) of a dice report, or None."""
        if self._dice_start and _cannot_start(message, self._dice_start):
            return None
        m = self.dice.match(self._text(message))
        if not m:
            return None
        values = tuple(int(v) for v in re.findall(r"\d+", m.group("values")))
        return m.group("label").strip(), values

    def typed_text(self, message: str) -> tuple[str, str] | None:
        """(player name, text) of a line a player typed, or None."""
        m = self.typed.match(message.strip())
        if not m:
            return None
        return html.unescape(m.group("player")), html.unescape(m.group("text"))

    def annotation(self, message: str, step: int) -> Annotation | None:
        if self.prefix not in message and "&" not in message:
            # (the typed text is part of the message, and html.unescape
            # changes only what follows an "&": no prefix, no annotation)
            return None
        typed = self.typed_text(message)
        if typed is None:
            return None
        player, text = typed
        note = parse_annotation(text, step, player, self.prefix)
        if note is not None and note.kind == "event":
            # '#event Field Promotion it' -> name "Field Promotion", side "it"
            # (the event plug-ins read args["name"] and args["side"])
            words = str(note.args.get("text", "")).split()
            side = None
            if len(words) > 1 and words[-1].casefold() in self.side_ids:
                side = self.side_ids[words.pop().casefold()]
            args = dict(note.args, name=" ".join(words), side=side)
            note = Annotation(note.kind, args, note.step, note.player)
        return note


_SPECIAL = frozenset(".^$*+?{}[]|()\\")


def literal_prefix(pattern: str) -> str:
    """The text every match of ``pattern`` (matched at the start of a text,
    no flags) begins with: its literal characters after a leading ``^``, up
    to the first that is not one (``""`` when there are none, or when the
    pattern has an alternative: a ``|`` outside a ``\\|``)."""
    if not pattern.startswith("^"):
        return ""
    out: list[str] = []
    i, n = 1, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            if i + 1 >= n or pattern[i + 1].isalnum() or pattern[i + 1] in " \t\n":
                break                   # (a class like \d, or an escape that is not a literal)
            c, step = pattern[i + 1], 2
        elif c in _SPECIAL:
            break
        else:
            step = 1
        if i + step < n and pattern[i + step] in "*+?{":
            break                       # (quantified: may be absent or repeated)
        out.append(c)
        i += step
    return "" if _has_top_alternative(pattern) else "".join(out)


def _has_top_alternative(pattern: str) -> bool:
    """Whether a ``|`` outside every group and character class splits the
    pattern (its second part need not begin as the first)."""
    depth = 0
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i += 1
            if i < n and pattern[i] == "^":
                i += 1
            if i < n and pattern[i] == "]":
                i += 1                      # (a "]" first in a class is one of its characters)
            while i < n and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth <= 0:
            return True
        i += 1
    return False


def _cannot_start(message: str, start: str) -> bool:
    """Whether ``Clock._text(message)`` surely does not begin with
    ``start``: the text before the first ``&`` is the message's own
    (``html.unescape`` changes only what follows an ``&``)."""
    head = message.lstrip()[:len(start)]
    return "&" not in head and head != start


def parse_annotation(text: str, step: int, player: str | None = None,
                     prefix: str = "#") -> Annotation | None:
    """``#attack 0302,0403 > 0503`` → Annotation(kind="attack",
    args={"from": ("0302", "0403"), "to": ("0503",), "words": (), "text": …})."""
    text = text.strip()
    if not text.startswith(prefix) or len(text) <= len(prefix):
        return None
    body = text[len(prefix):]
    kind, _, rest = body.partition(" ")
    if not re.fullmatch(r"[A-Za-z_][\w-]*", kind):
        return None
    left, arrow, right = rest.partition(">")
    def items(part: str) -> tuple[str, ...]:
        return tuple(t for t in re.split(r"[,\s]+", part.strip()) if t)
    args: dict[str, object] = {"text": rest.strip()}
    if arrow:
        args["from"] = items(left)
        right_items = items(right)
        words = tuple(w for w in right_items if w.lower() in ("pass", "fail", "result"))
        args["to"] = tuple(w for w in right_items if w not in words)
        args["words"] = words
    else:
        tokens = items(left)
        args["words"] = tuple(t for t in tokens if t.lower() in ("pass", "fail"))
        args["from"] = tuple(t for t in tokens if t.lower() not in ("pass", "fail"))
        args["to"] = ()
    return Annotation(kind.lower(), args, step, player)
