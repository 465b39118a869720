"""The frames of a game report: the scene of step 0 in full, then for every
step only what changed (a piece drawn elsewhere, with another look or
label, or no longer drawn), with looks, labels, images and piece ids
interned in tables.  The page replays these changes forward (and from
checkpoints backward), so its size grows with the moves, not with
pieces × steps.

One change is ``[piece, map, x, y, look, label, z]`` (indexes into the
tables; ``x``/``y`` the drawn centre, stack offset included; ``z`` the
drawing order, later on top) or ``[piece]`` for a piece no longer drawn.
A look is a list of image layers ``[image, left, top, width, height]``
relative to the centre, or ``[[-1, left, top, width, height]]`` for a
labelled box.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vmodtool.replay.scene import Counter, Scene, SceneBuilder, SceneDelta
from vmodtool.replay.visitor import BoardView, LogStart, ReplayVisitor

if TYPE_CHECKING:
    from vmodtool.replay.events import BoardsEvent, ChangeEvent, Event, MoveEvent, UnknownEvent
    from vmodtool.replay.game import Replay, Step

__all__ = ["Frames", "FrameRecorder", "StepInfo", "counters_at", "record_frames"]


@dataclass
class StepInfo:
    """What the move list shows of one step: its number, log, player, the
    readable lines (moves, chat, dice), undo marks and the moves as
    arrows ``[map, x1, y1, x2, y2]`` (map index)."""

    number: int
    file: str | None
    player: str | None
    lines: list[str]
    undo: bool
    undone_by: int | None
    arrows: list[list[int]]
    dice: bool = False

    def record(self) -> dict[str, Any]:
        return {"n": self.number, "file": self.file, "player": self.player, "lines": self.lines,
                "undo": self.undo, "undone_by": self.undone_by, "arrows": self.arrows, "dice": self.dice}


@dataclass
class Frames:
    """The tables and the per-step changes of one game."""

    maps: list[dict[str, Any]] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    looks: list[list[list[int]]] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    pieces: list[str] = field(default_factory=list)
    #: changes[0]: the saved state; changes[n]: what step n changed
    changes: list[list[list[int]]] = field(default_factory=list)
    steps: list[StepInfo] = field(default_factory=list)
    _image_ix: dict[str, int] = field(default_factory=dict, repr=False)
    _look_ix: dict[tuple[Any, ...], int] = field(default_factory=dict, repr=False)
    _label_ix: dict[str, int] = field(default_factory=dict, repr=False)
    _piece_ix: dict[str, int] = field(default_factory=dict, repr=False)
    _map_ix: dict[str, int] = field(default_factory=dict, repr=False)

    # -- interning --------------------------------------------------------
    def image(self, name: str) -> int:
        ix = self._image_ix.get(name)
        if ix is None:
            ix = self._image_ix[name] = len(self.images)
            self.images.append(name)
        return ix

    def _intern(self, table: list[Any], index: dict[Any, int], key: Any, value: Any) -> int:
        ix = index.get(key)
        if ix is None:
            ix = index[key] = len(table)
            table.append(value)
        return ix

    def look(self, c: Counter) -> int:
        if c.box is not None:
            left, top, w, h = c.box
            key: tuple[Any, ...] = ("box", left - c.x, top - c.y, w, h)
            return self._intern(self.looks, self._look_ix, key, [[-1, left - c.x, top - c.y, w, h]])
        key = tuple((lay.image, lay.x - c.x, lay.y - c.y, lay.w, lay.h) for lay in c.layers)
        if key in self._look_ix:
            return self._look_ix[key]
        return self._intern(self.looks, self._look_ix, key,
                            [[self.image(i), lx, ly, w, h] for i, lx, ly, w, h in key])

    def label(self, text: str) -> int:
        return self._intern(self.labels, self._label_ix, text, text)

    def piece(self, piece_id: str) -> int:
        return self._intern(self.pieces, self._piece_ix, piece_id, piece_id)

    def has_map(self, name: str) -> bool:
        return name in self._map_ix

    def map_index(self, name: str | None) -> int:
        return self._map_ix.get(name or "", -1)

    def set_maps(self, scene: Scene) -> None:
        for m in scene.maps:
            if m.name in self._map_ix:
                continue
            self._map_ix[m.name] = len(self.maps)
            self.maps.append({"name": m.name, "w": m.width, "h": m.height,
                              "boards": [{"name": b.name, "img": self.image(b.image) if b.image else -1,
                                          "x": b.x, "y": b.y, "w": b.w, "h": b.h, "rev": b.reversed,
                                          "labels": [list(t) for t in b.labels]}
                                         for b in m.boards]})

    def record(self) -> dict[str, Any]:
        return {"maps": self.maps, "looks": self.looks, "labels": self.labels,
                "pieces": self.pieces, "changes": self.changes, "steps": [s.record() for s in self.steps]}


class _Differ:
    """Each step's scene compared with the last one drawn."""

    def __init__(self, frames: Frames) -> None:
        self.frames = frames
        #: id -> its counter as drawn last, that counter's key and the id's
        #: number in the order ids were first drawn (the order of removals)
        self.drawn: dict[str, tuple[Counter, tuple[object, ...], int]] = {}
        self._next = 0
        self.z = 0
        #: a piece id was drawn twice: every scene compared whole from then on
        self.repeats = False

    def changes(self, scene: Scene) -> list[list[int]]:
        f = self.frames
        f.set_maps(scene)
        out: list[list[int]] = []
        seen: set[str] = set()
        repeats: dict[str, int] = {}
        drawn = self.drawn
        for c in scene.counters():
            ident = c.id
            if ident in seen:
                # a piece id can repeat (a broken save): each repeat its own, in order
                repeats[c.id] = repeats.get(c.id, 0) + 1
                ident = f"{c.id}#{repeats[c.id]}"
            seen.add(ident)
            last = drawn.get(ident)
            if last is not None and last[0] is c:
                continue
            self._draw(c, ident, last, out)
        if repeats:
            self.repeats = True
        for ident in [i for i in self.drawn if i not in seen]:
            del self.drawn[ident]
            out.append([f.piece(ident)])
        return out

    def delta_changes(self, delta: SceneDelta) -> list[list[int]]:
        """:meth:`changes` from what a step drew again (the same changes in
        the same order, without walking the pieces it left alone)."""
        out: list[list[int]] = []
        drawn = self.drawn
        ids: set[str] = set()
        for c in delta.counters:
            ids.add(c.id)
            last = drawn.get(c.id)
            if last is not None and last[0] is c:
                continue
            self._draw(c, c.id, last, out)
        f = self.frames
        for ident in sorted({i for i in delta.replaced if i not in ids and i in drawn}, key=lambda i: drawn[i][2]):
            del drawn[ident]
            out.append([f.piece(ident)])
        return out

    def _draw(self, c: Counter, ident: str, last: tuple[Counter, tuple[object, ...], int] | None,
              out: list[list[int]]) -> None:
        key = c.key()
        if last is None:
            seq = self._next
            self._next += 1
        else:
            seq = last[2]
        self.drawn[ident] = (c, key, seq)
        if last is None or last[1] != key:
            f = self.frames
            self.z += 1
            out.append([f.piece(ident), f.map_index(c.map), c.x, c.y, f.look(c), f.label(c.label), self.z])


#: every this many steps the whole scene is drawn again (a safety net under
#: the per-step drawing of what the step's events name)
FULL_EVERY = 500


class FrameRecorder(ReplayVisitor[Frames]):
    """Records the frames of a game as it is replayed: the scene of step 0
    in full, then each step's changes and its line in the move list.
    ``replay.run(FrameRecorder(builder))`` (it may share the pass: ``vmodtool
    report`` audits and checks the game in the same one).

    A step is compared by what it drew again (``incremental``) unless only
    its whole scene will do; False compares every step's whole scene (the
    same frames, slower: the tests' reference).

    What the step's events name is read from its events (a card drawn,
    returned or played is a move here: it has an arrow); the board is read
    through the view the log started with, which shows the live replay
    state until the log ends."""

    def __init__(self, builder: SceneBuilder, *, incremental: bool = True) -> None:
        self.builder = builder
        self.incremental = incremental
        self.frames = Frames()
        self.differ = _Differ(self.frames)
        self.steps: list[Step] = []
        self._view: BoardView | None = None
        # the current step: the pieces and decks its events name (None: an
        # event may change what no event names), its moves on one map
        self._touched: set[str] | None = set()
        self._moves: list[tuple[str, int, int, int, int]] = []
        self._dice = False

    def begin_log(self, log: LogStart, initial: BoardView) -> None:
        self._view = initial
        if log.index == 0:
            # step 0: the first file's saved state
            self.frames.changes.append(self.differ.changes(self.builder.scene(initial, 0)))

    def end_log(self, log: LogStart, final: BoardView) -> None:
        self._view = None

    def begin_step(self, step: Step) -> None:
        self._touched = set()
        self._moves = []
        self._dice = False

    def visit_event(self, event: Event) -> None:
        touched = self._touched
        if touched is not None:
            piece = getattr(event, "piece", None)
            if piece is not None and piece.id:
                touched.add(piece.id)
            for attr in ("deck", "from_deck"):
                deck = getattr(event, attr, None)
                if deck is not None and getattr(deck, "id", None):
                    touched.add(deck.id)
        if event.kind == "dice":
            self._dice = True

    def visit_move(self, event: MoveEvent) -> None:
        source, target = event.source, event.target
        if source.map is not None and source.map == target.map:
            self._moves.append((target.map, source.x, source.y, target.x, target.y))
        self.visit_event(event)

    def visit_change(self, event: ChangeEvent) -> None:
        self.visit_event(event)
        if self._touched is not None and event.after is not None and event.after.id:
            self._touched.add(event.after.id)

    def visit_boards(self, event: BoardsEvent) -> None:
        self._whole(event)

    def visit_unknown(self, event: UnknownEvent) -> None:
        self._whole(event)

    def _whole(self, event: Event) -> None:
        """An event that may change what no event names (boards chosen, a
        command not understood): the step's whole scene is drawn again."""
        self.visit_event(event)
        self._touched = None

    def end_step(self, step: Step) -> None:
        frames, differ, builder, view = self.frames, self.differ, self.builder, self._view
        assert view is not None
        touched = None if step.number % FULL_EVERY == 0 else self._touched
        delta = None
        if self.incremental and touched is not None and not differ.repeats and \
                builder.has_maps(view, frames.has_map):
            delta = builder.delta(view, touched)
        if delta is not None:
            frames.changes.append(differ.delta_changes(delta))
        else:
            frames.changes.append(differ.changes(builder.scene(view, step.number, touched)))
        frames.steps.append(self._step_info(step))
        self.steps.append(step)

    def _step_info(self, step: Step) -> StepInfo:
        from vmodtool.replay.output import step_lines

        frames = self.frames
        arrows: list[list[int]] = []
        for map_name, x1, y1, x2, y2 in self._moves:
            m = frames.map_index(map_name)
            if m >= 0 and (x1, y1) != (x2, y2):
                arrow = [m, x1, y1, x2, y2]
                if arrow not in arrows:
                    arrows.append(arrow)
        return StepInfo(step.number, Path(step.file).name if step.file else None, step.player,
                        [line.split(": ", 1)[1] if ": " in line else line
                         for line in step_lines(step, show_chat=True, show_warnings=False)],
                        step.undo, step.undone_by, arrows, self._dice)

    def result(self) -> Frames:
        for info, step in zip(self.frames.steps, self.steps, strict=True):
            # an undo marks the step it undoes only when it is replayed itself
            info.undone_by = step.undone_by
        return self.frames


def record_frames(replay: Replay, builder: SceneBuilder | None = None, *,
                  incremental: bool = True) -> tuple[Frames, list[Step]]:
    """Replay every step with a :class:`FrameRecorder` (alone in its pass);
    returns the frames and the steps (for checks that read them)."""
    recorder = FrameRecorder(builder or SceneBuilder(replay.positions, replay.positions.module),
                             incremental=incremental)
    (frames,) = replay.run(recorder)
    return frames, recorder.steps


def counters_at(frames: Frames, step: int) -> dict[str, list[int]]:
    """The drawn pieces after ``step`` as the page computes them (for tests):
    piece id → change record."""
    state: dict[int, list[int]] = {}
    for changes in frames.changes[:step + 1]:
        for ch in changes:
            if len(ch) == 1:
                state.pop(ch[0], None)
            else:
                state[ch[0]] = ch
    return {frames.pieces[k]: v for k, v in state.items()}
