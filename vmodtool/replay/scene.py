"""What a picture of a game shows at one step: the maps (their size and the
boards at their offsets), every piece's images at the pixels VASSAL draws
them, stacks offset as ``StackMetrics`` draws them, decks and pieces whose
images the module lacks as labelled boxes.  The step PNG
(:mod:`vmodtool.render.step_picture`) and the HTML report
(:mod:`vmodtool.report.frames`) both draw this one model.

Stacks (``VASSAL.build.module.map.StackMetrics.getContents``/
``nextPosition``, VASSAL 3.7.26): the bottom piece is drawn at the stack's
point; each next visible piece is moved so that its bounds' left edge is
``unexSepX`` right of the previous one's and its bottom edge ``unexSepY``
above the previous one's (stacks are drawn unexpanded; a piece invisible
to the viewer takes no room).  A map without stacking draws every piece at
its own point.  The separations are the map's ``StackMetrics`` attributes
(defaults 2 and 4).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vmodtool.replay.visitor import BoardView, LogStart, ReplayVisitor
from vmodtool.vassal.appearance import Appearance, piece_appearance
from vmodtool.vassal.grid_board import Board
from vmodtool.vassal.grid_common import LocationError
from vmodtool.vassal.grid_hex import HexGrid

if TYPE_CHECKING:
    from vmodtool.replay.engine import Engine
    from vmodtool.replay.game import Replay, Step
    from vmodtool.replay.positions import Positions
    from vmodtool.replay.state import Piece
    from vmodtool.vassal.module import Module

__all__ = ["BOX_SIZE", "Counter", "ImageCatalog", "Layer", "Scene", "SceneBoard", "SceneBuilder", "SceneDelta",
           "SceneMap", "SceneAfter", "StackSeparation", "hex_labels", "scene_at"]

#: the size of a labelled box standing for a piece whose images the module lacks
BOX_SIZE = (48, 48)
_STACK_METRICS = "VASSAL.build.module.map.StackMetrics"
#: a piece's appearance, its layers (image, left, top, width, height) relative
#: to its point, and its bounds (left, top, width, height) relative to it
_Look = tuple[Appearance, tuple[tuple[str, int, int, int, int], ...], tuple[int, int, int, int]]


@dataclass(frozen=True)
class Layer:
    """One image of a piece: its name and its top-left map pixel and size."""

    image: str
    x: int
    y: int
    w: int
    h: int


@dataclass(frozen=True)
class Counter:
    """One piece (or deck) as drawn: ``x``/``y`` its drawn centre (its point
    plus the stack offset), ``layers`` bottom → top; ``box`` (left, top,
    width, height) when it is drawn as a labelled box instead (no image held,
    or a deck); ``label`` its name as the viewer may know it."""

    id: str
    map: str
    x: int
    y: int
    label: str
    layers: tuple[Layer, ...] = ()
    box: tuple[int, int, int, int] | None = None
    masked: bool = False

    def key(self) -> tuple[object, ...]:
        """What changes the picture of this piece (for per-step deltas)."""
        return (self.map, self.x, self.y, self.label, self.layers, self.box, self.masked)


@dataclass(frozen=True)
class SceneBoard:
    """A board on a map: its image (None: none held), top-left map pixel,
    size, whether it is shown rotated 180°."""

    name: str
    image: str | None
    x: int
    y: int
    w: int
    h: int
    reversed: bool = False
    #: the grid's labels (text, map x, map y) at its hex centres, when the
    #: module shows its numbering or the board has no image to show them
    labels: tuple[tuple[str, int, int], ...] = ()


#: at most this many labels on one board (a finer grid is not labelled)
MAX_LABELS = 20000


def hex_labels(board: Board, origin: tuple[int, int]) -> tuple[tuple[str, int, int], ...]:
    """Every hex centre of a board's hex grid with its name, map pixels:
    candidate points one column and half a row apart snapped to the grid's
    centres (``HexGrid.snapTo``), named by ``locationName``."""
    named = board.grid
    # a zoned board: the background hex grid's centres, named by the zones
    grid = named if isinstance(named, HexGrid) else getattr(named, "background", None)
    if named is None or not isinstance(grid, HexGrid):
        return ()
    dx, dy = (grid.dy, grid.dx) if grid.sideways else (grid.dx, grid.dy)
    if dx < 4 or dy < 4 or (board.width / dx) * (board.height / dy) * 2 > MAX_LABELS:
        return ()
    seen: dict[tuple[int, int], str] = {}
    y = -dy
    while y < board.height + dy:
        x = -dx
        while x < board.width + dx:
            cx, cy = grid.snap_to(int(x), int(y), True, True)
            if (cx, cy) not in seen and 0 <= cx < board.width and 0 <= cy < board.height:
                seen[(cx, cy)] = named.location_name(cx, cy) or ""
            x += dx / 2
        y += dy / 2
    ox, oy = origin
    out = []
    for name in dict.fromkeys(seen.values()):
        if not name:
            continue
        try:
            # the centre as VASSAL's getLocation gives it for the name
            cx, cy = named.get_location(name)
        except (LocationError, ValueError):
            continue
        gx, gy = board.global_point(cx, cy)
        out.append((name, gx + ox, gy + oy))
    return tuple(sorted(out, key=lambda t: (t[2], t[1])))


def _numbering_visible(board: Board) -> bool:
    numbering = getattr(board.grid, "numbering", None)
    return bool(getattr(numbering, "visible", False))


@dataclass
class SceneMap:
    """A map window: its name, pixel size, boards, and the counters on it in
    drawing order (bottom first)."""

    name: str
    width: int
    height: int
    boards: list[SceneBoard] = field(default_factory=list)
    counters: list[Counter] = field(default_factory=list)


@dataclass
class Scene:
    """All maps at one step (the module's map order, then maps only the game
    names)."""

    step: int
    maps: list[SceneMap]

    def counters(self) -> Iterator[Counter]:
        for m in self.maps:
            yield from m.counters

    def map(self, name: str) -> SceneMap | None:
        for m in self.maps:
            if m.name == name:
                return m
        return None


@dataclass(frozen=True)
class SceneDelta:
    """What a step changed in a scene (:meth:`SceneBuilder.delta`): the
    counters drawn again, in drawing order, and the ids of the counters
    they replace or that are no longer drawn (some may be drawn again)."""

    counters: list[Counter]
    replaced: list[str]


@dataclass(frozen=True)
class StackSeparation:
    """A map's unexpanded stack separations and whether it stacks at all."""

    dx: int = 2
    dy: int = 4


class ImageCatalog:
    """The module's images: their sizes (from the headers, cached) and bytes."""

    def __init__(self, module: Module | None) -> None:
        self.module = module
        self._sizes: dict[str, tuple[int, int] | None] = {}

    def size(self, image: str) -> tuple[int, int] | None:
        if self.module is None or not image:
            return None
        if image not in self._sizes:
            self._sizes[image] = self.module.image_size(image)
        return self._sizes[image]

    def data(self, image: str) -> bytes | None:
        if self.module is None or not image:
            return None
        return self.module.read_file("images/" + image)


def _separations(module: Module | None) -> dict[str, StackSeparation]:
    out: dict[str, StackSeparation] = {}
    if module is None:
        return out
    for entry in module.buildfile.maps():
        for child in entry.element:
            if isinstance(child.tag, str) and child.tag == _STACK_METRICS:
                out.setdefault(entry.name, StackSeparation(_int(child.get("unexSepX"), 2),
                                                           _int(child.get("unexSepY"), 4)))
    return out


def _board_images(module: Module | None) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], str] = {}
    if module is None:
        return out
    for entry in module.buildfile.maps():
        for board in entry.boards:
            if board.image:
                out.setdefault((entry.name, board.name), board.image)
    return out


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


class SceneBuilder:
    """Builds the :class:`Scene` of the board a
    :class:`~vmodtool.replay.visitor.BoardView` shows, as the replay's viewer
    sees it.  Piece looks are cached by (type, state).

    The builder is of the replay layer: it reads the view's replay engine
    (stacks in drawing order, masks, hidden pieces, the viewer), which a
    consumer of the replay never sees; a consumer passes the view it was
    given."""

    def __init__(self, positions: Positions, module: Module | None = None,
                 catalog: ImageCatalog | None = None) -> None:
        self.positions = positions
        self.module = module
        self.catalog = catalog or ImageCatalog(module)
        self._separations = _separations(module)
        self._board_images = _board_images(module)
        self._engine: Engine | None = None
        self._labels_of: dict[tuple[str, str, bool, tuple[int, int]], tuple[tuple[str, int, int], ...]] = {}
        #: top-level object (piece, stack, deck) -> its counters, until a step touches it
        self._drawn: dict[object, list[Counter]] = {}
        #: piece or deck id -> the top-level object it was drawn in
        self._container: dict[str, object] = {}
        self._labels: dict[tuple[str, str | tuple[str, ...]], str] = {}
        self._looks: dict[tuple[str, str | tuple[str, ...], bool], _Look] = {}
        # what the last scene or delta showed, for :meth:`delta`: the
        # counters of each top-level object, the object each counter id is
        # shown in, and each map's top-level objects
        self._shown: dict[object, list[Counter]] = {}
        self._owner: dict[str, object] = {}
        self._tops: dict[str, set[object]] = {}
        self._stamps: dict[str, tuple[int, int] | None] = {}

    # -- maps ------------------------------------------------------------
    def _map(self, name: str) -> SceneMap:
        geometry = self.positions.geometry(name)
        boards: list[SceneBoard] = []
        width = height = 0
        if geometry is not None:
            for placement in geometry.placements:
                b = placement.board
                x, y = placement.origin
                image = self._board_images.get((name, b.name))
                if image is not None and self.catalog.size(image) is None:
                    image = None  # not held by the module: drawn as a plain board
                labels = (self._hex_labels(name, b, (x, y))
                          if image is None or _numbering_visible(b) else ())
                boards.append(SceneBoard(b.name, image, x, y, b.width, b.height, b.reversed, labels))
                width = max(width, x + b.width)
                height = max(height, y + b.height)
            width += geometry.edge_width
            height += geometry.edge_height
        return SceneMap(name, width, height, boards)

    def _hex_labels(self, map_name: str, board: Board, origin: tuple[int, int]
                    ) -> tuple[tuple[str, int, int], ...]:
        key = (map_name, board.name, board.reversed, origin)
        found = self._labels_of.get(key)
        if found is None:
            found = self._labels_of[key] = hex_labels(board, origin)
        return found

    # -- pieces ----------------------------------------------------------
    def _look(self, engine: Engine, p: Piece, sees_all: bool) -> _Look:
        """(appearance, layers as (image, left, top, w, h) relative to the
        piece's point, bounds relative to it)."""
        key = (p.type, p.levels_key(), sees_all)
        found = self._looks.get(key)
        if found is not None:
            return found
        viewer = engine.viewer

        def sees(by: str) -> bool:
            return sees_all or viewer.sees_masked(engine.roster.who(by)[1], by)

        appearance = piece_appearance(p.definition(), sees=sees)
        layers: list[tuple[str, int, int, int, int]] = []
        for layer in appearance.layers:
            size = self.catalog.size(layer.image)
            if size is None:
                continue
            w, h = size
            layers.append((layer.image, layer.dx - w // 2, layer.dy - h // 2, w, h))
        if layers:
            left = min(lay[1] for lay in layers)
            top = min(lay[2] for lay in layers)
            right = max(lay[1] + lay[3] for lay in layers)
            bottom = max(lay[2] + lay[4] for lay in layers)
            bounds = (left, top, right - left, bottom - top)
        else:
            w, h = BOX_SIZE
            bounds = (-w // 2, -h // 2, w, h)
        found = (appearance, tuple(layers), bounds)
        self._looks[key] = found
        return found

    def _counter(self, engine: Engine, p: Piece, map_name: str, x: int, y: int,
                 look: _Look,
                 visible: bool) -> Counter:
        appearance, layers, bounds = look
        if visible:
            lkey = (p.type, p.levels_key())
            label = self._labels.get(lkey) or ""
            if not label:
                label = self._labels[lkey] = engine.seen_ref(p).name or "?"
        else:
            label = "?"
        if layers:
            return Counter(p.id or "", map_name, x, y, label,
                           tuple(Layer(i, x + lx, y + ly, w, h) for i, lx, ly, w, h in layers),
                           masked=appearance.masked)
        return Counter(p.id or "", map_name, x, y, label, (),
                       (x + bounds[0], y + bounds[1], bounds[2], bounds[3]), masked=appearance.masked)

    def scene(self, view: BoardView, step: int = 0, touched: set[str] | None = None) -> Scene:
        """The scene of the board ``view`` shows.  ``touched``: the ids of
        the pieces and decks the last step changed (from its events); only
        their stacks (where they are and where they were) are drawn again,
        the others keep their counters.  ``None``: draw everything."""
        engine = view._engine        # (the replay layer's own: see the class)
        if touched is None or engine is not self._engine:
            self._drawn.clear()
            self._container.clear()
            self._engine = engine
        else:
            self._forget(engine, touched)
        maps: list[SceneMap] = []
        shown = self._shown = {}
        owner = self._owner = {}
        self._tops = {}
        self._stamps = {}
        for name in self._map_names(engine):
            sm = self._map(name)
            state = engine.state.maps.get(name)
            if state is not None:
                sep = self._separations.get(name, StackSeparation())
                stacking = self.positions.stacking(name)
                tops = list(state.pieces)
                self._tops[name] = set(tops)
                self._stamps[name] = state.stamp
                for obj in tops:
                    counters = self._drawn.get(obj)
                    if counters is None:
                        counters = self._draw(engine, obj, name, sep, stacking)
                        self._drawn[obj] = counters
                    shown[obj] = counters
                    for c in counters:
                        owner[c.id] = obj
                    sm.counters.extend(counters)
                if not sm.boards:
                    for c in sm.counters:
                        sm.width = max(sm.width, c.x + BOX_SIZE[0])
                        sm.height = max(sm.height, c.y + BOX_SIZE[1])
            maps.append(sm)
        return Scene(step, maps)

    def has_maps(self, view: BoardView, known: Callable[[str], bool]) -> bool:
        """Whether every map of the game's state is ``known``."""
        return all(known(name) for name in view._engine.state.maps)

    def _map_names(self, engine: Engine) -> list[str]:
        """The maps in scene order: the module's, then those only the game names."""
        names = self.positions.map_names()
        for n in engine.state.maps:
            if n not in names:
                names.append(n)
        return names

    def _forget(self, engine: Engine, touched: set[str]) -> set[object]:
        """Drop the drawings of the top-level objects the touched ids were
        and are in (their old and new stacks); returns those objects."""
        from vmodtool.replay.state import Piece

        drawn, container = self._drawn, self._container
        stale: set[object] = set()
        for pid in touched:
            old = container.pop(pid, None)
            if old is not None:
                stale.add(old)
                drawn.pop(old, None)
            named = engine.state.get(pid)
            if named is None:
                continue
            top = named.parent if isinstance(named, Piece) and named.parent is not None else named
            stale.add(top)
            drawn.pop(top, None)
            # a command may move pieces into this stack that no event names
            # (an AddPiece of a stack re-parents its members): their old
            # stacks are drawn again too
            for member in getattr(top, "members", ()):
                was = container.get(member.id) if member.id else None
                if was is not None and was is not top:
                    stale.add(was)
                    drawn.pop(was, None)
        return stale

    def delta(self, view: BoardView, touched: set[str]) -> SceneDelta | None:
        """What :meth:`scene` with ``touched`` would change since the last
        scene or delta, without walking the unchanged pieces: the counters of
        the top-level objects drawn again (in drawing order) and the ids of
        the counters they and the objects no longer on a map showed before.
        None when only a whole scene will do: another engine (a log's
        saved state restored), or a piece id shown twice (a broken save),
        which :meth:`scene` tells apart by its order on the maps."""
        engine = view._engine        # (the replay layer's own: see the class)
        if engine is not self._engine:
            return None
        drawn, shown, owner = self._drawn, self._shown, self._owner
        affected = self._forget(engine, touched)
        redrawn: list[Counter] = []
        again: list[tuple[object, list[Counter]]] = []
        for name in self._map_names(engine):
            state = engine.state.maps.get(name)
            stamp = state.stamp if state is not None else None
            if stamp != self._stamps.get(name):
                # objects added or taken off: which, by their sets (in C)
                current = state.pieces if state is not None else {}
                before = self._tops.get(name)
                if before is None:
                    before = self._tops[name] = set()
                gone = before - current.keys()
                added = current.keys() - before
                before -= gone
                before |= added
                affected |= gone
                affected |= added
                self._stamps[name] = stamp
            if state is None:
                continue
            current = state.pieces
            candidates = [o for o in affected if o in current]
            if not candidates:
                continue
            sep = self._separations.get(name, StackSeparation())
            stacking = self.positions.stacking(name)
            for top_obj in state.in_drawing_order(candidates):
                counters = drawn.get(top_obj)
                if counters is None:
                    counters = drawn[top_obj] = self._draw(engine, top_obj, name, sep, stacking)
                again.append((top_obj, counters))
                redrawn.extend(counters)
        # a counter id shown by an object this step leaves alone, or twice:
        # only the whole scene orders the repeats
        ids: set[str] = set()
        for obj, counters in again:
            for c in counters:
                was = owner.get(c.id)
                if c.id in ids or (was is not None and was is not obj and was not in affected):
                    return None
                ids.add(c.id)
        replaced: list[str] = []
        for obj in affected:
            for c in shown.pop(obj, ()):
                replaced.append(c.id)
                if owner.get(c.id) is obj:
                    del owner[c.id]
        for obj, counters in again:
            shown[obj] = counters
            for c in counters:
                owner[c.id] = obj
        return SceneDelta(redrawn, replaced)

    def _draw(self, engine: Engine, obj: object, name: str, sep: StackSeparation, stacking: bool
              ) -> list[Counter]:
        """The counters of one top-level object (a piece, a stack, a deck)."""
        from vmodtool.replay.state import Deck, Stack

        out: list[Counter] = []
        if isinstance(obj, Deck):
            w, h = BOX_SIZE
            label = f"{obj.name} ({len(obj.members)})"
            out.append(Counter(obj.id or "", name, obj.x, obj.y, label, (),
                               (obj.x - w // 2, obj.y - h // 2, w, h)))
            if obj.id:
                self._container[obj.id] = obj
            for m in obj.members:
                if m.id:
                    self._container[m.id] = obj
            return out
        members: list[Piece] = obj.members if isinstance(obj, Stack) else [obj]  # type: ignore[list-item]
        x0, y0 = obj.position  # type: ignore[attr-defined]
        referee = engine.viewer.referee
        current: tuple[int, int, int, int] | None = None  # bounds of the last piece drawn
        cx, cy = x0, y0
        for p in members:
            if p.id:
                self._container[p.id] = obj
            visible = referee or engine.visible(p)
            look = self._look(engine, p, referee)
            appearance, _layers, bounds = look
            if appearance.hidden or (not visible and engine.hidden_by(p) is None
                                     and engine.masked_by(p) is None):
                # invisible to the viewer (takes no room), or in a hand it may not look into
                continue
            if not stacking:
                px, py = p.position
            elif current is None:
                px, py = x0, y0
            else:
                # StackMetrics.nextPosition (dx, dy > 0; 0: the same point)
                px = (current[0] + sep.dx - bounds[0]) if sep.dx > 0 else cx
                py = (current[1] + current[3] - bounds[3] - bounds[1] - sep.dy) if sep.dy > 0 else cy
            out.append(self._counter(engine, p, name, px, py, look, visible))
            cx, cy = px, py
            current = (px + bounds[0], py + bounds[1], bounds[2], bounds[3])
        return out


class SceneAfter(ReplayVisitor[Scene]):
    """The scene after step ``step`` of a replay (0: the first file's saved
    state): ``replay.run(SceneAfter(builder, step), until=step)``.  Its
    result is a :class:`VmodError` when the replay has no such step."""

    def __init__(self, builder: SceneBuilder, step: int, file: str | None = None) -> None:
        self.builder = builder
        self.step = step
        #: the file a missing step is reported against (the last one given)
        self.file = file
        self.last = 0
        self._scene: Scene | None = None

    def end_step(self, step: Step) -> None:
        self.last = step.number

    def end_log(self, log: LogStart, final: BoardView) -> None:
        if self._scene is None and self.last >= self.step:
            self._scene = self.builder.scene(final, self.last)

    def result(self) -> Scene:
        from vmodtool.errors import VmodError

        if self._scene is None:
            raise VmodError(f"step {self.step} does not exist: the replay has {self.last} step(s)", file=self.file)
        return self._scene


def scene_at(replay: Replay, step: int, builder: SceneBuilder | None = None) -> Scene:
    """The scene after step ``step`` of a replay (0: the first file's saved
    state), replayed with :class:`SceneAfter`; a step that does not exist is
    a :class:`VmodError`."""
    builder = builder or SceneBuilder(replay.positions, _module_of(replay))
    (scene,) = replay.run(SceneAfter(builder, step, replay.files[-1] if replay.files else None), until=step)
    return scene


def _module_of(replay: Replay) -> Module | None:
    return replay.positions.module
