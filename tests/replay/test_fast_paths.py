"""The replay's fast paths give exactly what the general code gives.

* AddPieces are parsed once per text (``engine_adds._plan_add``) and a piece or
  stack is built from the plan: replaying with every plan refused (the
  general path) must give the same steps, states and chain findings;
* ``chain.compare_states`` compares equal state strings without splitting
  them and stacks without building tuples: it must find what the plain
  comparison (kept here as the oracle) finds, above all when a log's saved
  state differs from the previous log's end (a restarted log, an edited
  save);
* a map indexes its objects by point lazily, places are cached per point,
  states are split once per text, the GC is relaxed and frozen while a
  replay runs.
"""

from __future__ import annotations

import gc
import os
from pathlib import Path

import pytest

from vmodtool.replay import Replay, load_board_sizes
from vmodtool.replay import engine_adds as adds_module
from vmodtool.replay.chain import ChainDifference, _props_without_position, _type_difference
from vmodtool.replay.engine import Engine
from vmodtool.replay.game import Step, relaxed_gc, snapshot
from vmodtool.replay.positions import Positions, _MapInfo
from vmodtool.replay.state import GameState, MapState, Piece, Stack, split_levels, split_nested
from vmodtool.replay.visitor import BoardView, LogStart, ReplayVisitor
from vmodtool.vassal.commands import AddPiece, ChangePiece, MovePiece
from vmodtool.vassal.savefile import SavedGame
from vmodtool.vassal.sequence import encode_sequence

ESC = "\x1b"
TYPE = "mark;UnitId\tpiece;;;inf.png;1/A/1-36 Inf"
TYPE2 = "mark;UnitId\tpiece;;;arm.png;2/B/1-12 Arm"
SECRET = "hunter2-secret"
SHARED = Path(os.environ.get("VMODTOOL_SHARED", Path(__file__).resolve().parents[3] / "shared"))
TLD = SHARED / "corpus" / "tld"


def piece(pid: str, map_id: str, x: int, y: int, unit: str = "A1", type_: str = TYPE,
          props: str = "1;0") -> str:
    return AddPiece.build(pid, type_, encode_sequence([unit, f"{map_id};{x};{y};{props}"], "\t")).text


def stack(sid: str, map_id: str, x: int, y: int, *members: str) -> str:
    return AddPiece.build(sid, "stack", ";".join([map_id, str(x), str(y), *members, "@@0"])).text


def move(pid: str, to: str, xy: tuple[int, int], frm: str, oxy: tuple[int, int]) -> str:
    return MovePiece.build(pid, to, xy[0], xy[1], None, frm, oxy[0], oxy[1], None, SECRET).text


def change(pid: str, new: str, old: str) -> str:
    return ChangePiece.build(pid, new, old).text


def state(unit: str, map_id: str, x: int, y: int) -> str:
    return encode_sequence([unit, f"{map_id};{x};{y};1;0"], "\t") or ""


def game(restore: list[str], steps: list[str], name: str) -> SavedGame:
    restore_node = encode_sequence([""] + list(restore), ESC)
    parts = ["begin_save", "", restore_node, f"PLAYER\t{SECRET}\tAlice\tAllies",
             "Main MapBoardPicker\tMain\t0\t0", "end_save"] + ["LOG\t" + s for s in steps]
    return SavedGame.from_bytes((encode_sequence(parts, ESC) or "").encode("utf-8"), file=name)


M = "Main Map"
#: the first log: four pieces in stacks, a move onto another stack (to its
#: bottom: no under id), a flip, a move out of a stack to an empty point
FIRST_RESTORE = [piece("p1", M, 100, 100, "A1"), piece("p2", M, 200, 200, "B2"),
                 piece("p3", M, 300, 300, "C3"), piece("p4", M, 400, 400, "D4"),
                 stack("s1", M, 100, 100, "p1"), stack("s2", M, 200, 200, "p2"),
                 stack("s3", M, 300, 300, "p3", "p4")]
FIRST_STEPS = [move("p1", M, (200, 200), M, (100, 100)),
               change("p3", state("C3x", M, 300, 300), state("C3", M, 300, 300)),
               move("p4", M, (500, 500), M, (300, 300))]
#: the first log's end state, as VASSAL saves it
END = [piece("p1", M, 200, 200, "A1"), piece("p2", M, 200, 200, "B2"),
       piece("p3", M, 300, 300, "C3x"), piece("p4", M, 500, 500, "D4"),
       stack("s2", M, 200, 200, "p1", "p2"), stack("s3", M, 300, 300, "p3")]
NEXT_STEPS = [move("p2", M, (600, 600), M, (200, 200)),
              change("p4", state("D4x", M, 500, 500), state("D4", M, 500, 500))]


def edited(replace: dict[int, str | None], extra: tuple[str, ...] = ()) -> list[str]:
    """The end state with some AddPieces replaced (None: left out)."""
    out = [replace.get(i, cmd) for i, cmd in enumerate(END)]
    return [c for c in out if c is not None] + list(extra)


SECOND_STATES = {
    "same": END,
    "moved": edited({3: piece("p4", M, 510, 500, "D4")}),
    "stacked": edited({}, (stack("s4", M, 500, 500, "p4"),)),
    "trait state": edited({0: piece("p1", M, 200, 200, "A1-flipped")}),
    "properties": edited({1: piece("p2", M, 200, 200, "B2", props="7;1;Moved;true")}),
    "type": edited({2: piece("p3", M, 300, 300, "C3x", type_=TYPE2)}),
    "restacked": edited({4: stack("s2", M, 200, 200, "p2", "p1")}),
    "removed": edited({3: None}),
    "added": edited({}, (piece("p9", M, 900, 900, "Z9"), stack("s9", M, 900, 900, "p9"))),
    "stack renumbered": edited({4: stack("s2-new", M, 200, 200, "p1", "p2")}),
    "unstacked": edited({5: None}),
    "restarted": FIRST_RESTORE,
}


def chain(second: list[str]) -> Replay:
    return Replay([game(FIRST_RESTORE, FIRST_STEPS, "one.vlog"), game(second, NEXT_STEPS, "two.vlog")],
                  Positions())


def plain_compare(before: GameState, after: GameState, place_before, place_after, ref,
                  before_file, after_file) -> list[ChainDifference]:
    """``compare_states`` as it was before its fast paths (the oracle)."""
    out: list[ChainDifference] = []
    a_pieces = {p.id: p for p in before.game_pieces()}
    b_pieces = {p.id: p for p in after.game_pieces()}

    def neighbours(p: Piece):
        parent = p.parent
        if parent is None or p not in parent.members:
            return None
        return tuple(m.id for m in parent.members)

    def diff(kind, piece=None, pb=None, pa=None, detail="", was=None):
        out.append(ChainDifference(before_file, after_file, kind, piece, pb, pa, detail, was))

    for pid, a in a_pieces.items():
        b = b_pieces.get(pid)
        if b is None:
            diff("removed", ref(a), place_before(a), None)
            continue
        ma, mb = a.current_map, b.current_map
        if (ma.name if ma else None, a.position) != (mb.name if mb else None, b.position):
            diff("moved", ref(b), place_before(a), place_after(b))
        elif neighbours(a) != neighbours(b):
            diff("restacked", ref(b), place_before(a), place_after(b),
                 f"stack {len(a.parent.members) if a.parent else 0} → "
                 f"{len(b.parent.members) if b.parent else 0} pieces")
        if a.type != b.type:
            diff("changed", ref(b), None, place_after(b), _type_difference(a.type, b.type), ref(a))
            continue
        if list(a.levels) != list(b.levels) or _props_without_position(a) != _props_without_position(b):
            changed = [i for i, (x, y) in enumerate(zip(a.levels, b.levels, strict=False)) if x != y]
            what = (f"trait state(s) {', '.join(str(i + 1) for i in changed)}" if changed
                    else "BasicPiece gpid/properties")
            diff("changed", ref(b), None, place_after(b), what, ref(a))
    for pid, b in b_pieces.items():
        if pid not in a_pieces:
            diff("added", ref(b), None, place_after(b))
    return out


def fingerprint(replay: Replay) -> dict[str, object]:
    """Everything a replay gives: each log's saved state (and the previous
    log's end) as board states and raw objects, every step, every finding."""
    restored: list[object] = []
    previous: list[Engine] = []

    def raw(engine: Engine) -> list[object]:
        objects = [(pid, type(o).__name__, o.x, o.y, o.map.name if o.map else None, o.state_string(),
                    [m.id for m in o.members] if isinstance(o, Stack) else o.parent.id if o.parent else None,
                    o.layer if isinstance(o, Stack) else None)
                   for pid, o in engine.state.pieces.items()]
        # each map's top-level objects in drawing order, and what its point
        # index finds where they are
        maps = [(name, [(o.id, m.at(o.x, o.y) == [x for x in m.pieces if (x.x, x.y) == (o.x, o.y)
                                                     and not (isinstance(x, Stack) and not x.members)])
                        for o in m.pieces])
                for name, m in engine.state.maps.items()]
        return [objects, maps]

    class Restores(ReplayVisitor[list[object]]):
        """Each log's end and the next log's saved state, read off the
        engine behind the view (the replay's own test may look there)."""

        def __init__(self) -> None:
            self.steps: list[object] = []

        def begin_log(self, log: LogStart, initial: BoardView) -> None:
            if previous:
                restored.append(("end", snapshot(previous[-1]).pieces, raw(previous[-1])))
            restored.append(("start", snapshot(initial._engine).pieces, raw(initial._engine)))

        def end_log(self, log: LogStart, final: BoardView) -> None:
            previous.append(final._engine)

        def end_step(self, step: Step) -> None:
            self.steps.append((step.record(), {k: v for k, v in step.stacks.items() if not k.startswith("@")},
                               step._moves))

        def result(self) -> list[object]:
            return self.steps

    (steps,) = replay.run(Restores())
    assert replay.engine is not None
    return {"restored": restored, "steps": steps,
            "chain": [(d.record(), d.text(), d.before_piece.record() if d.before_piece else None)
                      for d in replay.chain_differences],
            "warnings": [str(w) for w in replay.warnings],
            "end": (snapshot(replay.engine).pieces, raw(replay.engine))}


def general_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(adds_module, "_plan_add", lambda text: None)


@pytest.mark.parametrize("name", list(SECOND_STATES))
def test_a_chain_replays_as_the_general_path_does(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = fingerprint(chain(SECOND_STATES[name]))
    with monkeypatch.context() as m:
        general_path(m)
        slow = fingerprint(chain(SECOND_STATES[name]))
    assert fast == slow


def odd_stack(sid: str, map_id: str, *tokens: str) -> str:
    return AddPiece.build(sid, "stack", ";".join([map_id, "200", "200", *tokens])).text


#: saved states whose stacks the restore's own fast path leaves to the
#: general one, or takes from where the general one would not expect them
ODD_STATES = {
    # pieces written without a map inside their stack (as VASSAL 2.9 saves)
    "members off map": [piece("p1", "null", 200, 200, "A1"), piece("p2", "null", 200, 200, "B2"),
                        odd_stack("s2", M, "p1", "p2", "@@2")],
    "listed twice": END[:4] + [odd_stack("s2", M, "p1", "p2", "p1", "@@0")],
    "in two stacks": END[:4] + [odd_stack("s2", M, "p1", "p2"), odd_stack("s5", M, "p2", "p3")],
    "unknown member": END[:4] + [odd_stack("s2", M, "p1", "p7", "p2")],
    "stack as member": END[:4] + [odd_stack("s2", M, "p1"), odd_stack("s5", M, "s2", "p2")],
    "layers": END[:4] + [odd_stack("s2", M, "p1", "@@3", "p2", "@@x"), odd_stack("s3", M, "@@", "p3")],
    "empty tokens": END[:4] + [odd_stack("s2", M, "", "p1", "", "p2")],
    "no map": END[:4] + [odd_stack("s2", "null", "p1", "p2")],
    "unknown map": END[:4] + [odd_stack("s2", "Elsewhere", "p1", "p2")],
    "re-added piece": END + [piece("p1", M, 200, 200, "A1-again"), odd_stack("s6", M, "p1")],
    "re-added stack": END + [odd_stack("s2", M, "p2", "p1")],
    "no id": END[:4] + [AddPiece.build(None, "stack", f"{M};200;200;p1;p2").text,
                        AddPiece.build(None, TYPE, state("N1", M, 50, 50)).text],
}


@pytest.mark.parametrize("name", list(ODD_STATES))
def test_odd_saved_stacks_restore_as_the_general_path_does(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # the second log repeats the first's saved state: its AddPieces are
    # planned by then, and the restore makes them from their plans
    def replay() -> Replay:
        return Replay([game(ODD_STATES[name], FIRST_STEPS, "one.vlog"),
                       game(ODD_STATES[name], NEXT_STEPS, "two.vlog")], Positions())
    fast = fingerprint(replay())
    with monkeypatch.context() as m:
        general_path(m)
        slow = fingerprint(replay())
    assert fast == slow


@pytest.mark.parametrize("name", list(SECOND_STATES))
def test_chain_findings_are_the_plain_comparisons(name: str) -> None:
    replay = chain(SECOND_STATES[name])
    found: list[list[ChainDifference]] = []
    original = replay._compare

    def both(previous: Engine, engine: Engine, k: int) -> list[ChainDifference]:
        fast = original(previous, engine, k)
        plain = plain_compare(previous.state, engine.state, previous.place_of, engine.place_of, Engine.ref,
                              replay.files[k - 1], replay.files[k])
        assert [(d.record(), d.text()) for d in fast] == [(d.record(), d.text()) for d in plain]
        found.append(fast)
        return fast

    replay._compare = both      # type: ignore[method-assign]
    list(replay.steps())
    assert len(found) == 1
    kinds = sorted({d.kind for d in found[0]})
    expected = {"same": [], "moved": ["moved"], "trait state": ["changed"], "properties": ["changed"],
                "type": ["changed"], "restacked": ["restacked"], "removed": ["removed"], "added": ["added"],
                "stack renumbered": [], "unstacked": ["restacked"], "stacked": ["restacked"],
                "restarted": ["changed", "moved", "restacked"]}[name]
    assert kinds == expected


def test_a_snapshot_equal_to_the_end_state_shares_the_parsed_strings() -> None:
    replay = chain(END)
    list(replay.steps())
    assert replay.chain_differences == []
    # the second log's p3 was added from a text the first log never had
    # (its end state came from a ChangePiece), p2 from the first log's text
    engine = replay.engine
    assert engine is not None
    p2 = engine.state.get("p2")
    assert isinstance(p2, Piece)
    assert p2.state_string().startswith("B2\t")


@pytest.mark.skipif(not TLD.exists(), reason="needs the shared corpus")
@pytest.mark.parametrize("order", ["reversed", "every third"])
def test_the_tld_chain_out_of_order_replays_as_the_general_path_does(order: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Logs chained out of order: most saved states differ from the end of
    the log before (pieces moved, stacks changed, pieces added/removed)."""
    files = sorted((TLD / "game").glob("*.log"))
    files = files[::-1][:4] if order == "reversed" else files[::5]
    sizes = load_board_sizes(TLD / "board-sizes.json")

    def run() -> dict[str, object]:
        return fingerprint(Replay.open(files, module=TLD / "buildFile", board_sizes=sizes))

    fast = run()
    assert len(fast["chain"]) > 100      # type: ignore[arg-type]
    with monkeypatch.context() as m:
        general_path(m)
        slow = run()
    assert fast == slow


def test_fresh_piece_is_a_piece_given_its_state() -> None:
    st = state("A1", M, 10, 20)
    p = Piece("p1", TYPE)
    basic = p.set_raw_state(st)
    assert basic is not None
    q = Piece.fresh("p1", TYPE, p.ntraits, st, basic, 10, 20)
    assert (q.id, q.type, q.ntraits, q.levels, q.basic, q.x, q.y, q.map, q.parent) == \
        (p.id, p.type, p.ntraits, p.levels, basic, 10, 20, None, None)
    assert q.state_string() == encode_sequence(["A1", "null;10;20;1;0"], "\t")


@pytest.mark.parametrize("text,count", [("a\tb\\\tc", 3), ("a\tb", 3), ("x", 1), ("", 2),
                                        ("a\t'b\tc'\td", 3), ("a\\\tb\tc", 2)])
def test_split_levels_is_split_nested(text: str, count: int) -> None:
    assert split_levels(text, count) == tuple(split_nested(text, count))
    assert split_levels(text, count) is split_levels(text, count)


def test_a_changed_level_drops_the_whole_state() -> None:
    """While ``_state`` is set it is the truth: a change of a level clears it."""
    replay = chain(END)
    list(replay.steps())
    engine = replay.engine
    assert engine is not None
    p4 = engine.state.get("p4")
    assert isinstance(p4, Piece)
    assert p4.levels[0] == "D4x" and p4._state is None
    assert p4.levels_key() == ("D4x",)
    p3 = Piece("p3", TYPE)                  # a whole state is split on demand
    assert p3.set_raw_state(state("C3x", M, 1, 2)) == f"{M};1;2;1;0"
    assert p3._levels is None and p3.levels_key() == "C3x\t"
    assert p3.levels == ["C3x"] and p3._state is not None   # split, still current
    assert p3.levels_key() == ("C3x",)


def test_lazy_point_index_finds_what_a_scan_finds() -> None:
    m = MapState("Main")
    objs = []
    for i in range(12):
        s = Stack(f"s{i}")
        s.x, s.y = (i % 3) * 10, 0
        s.members.append(Piece(f"p{i}", TYPE))
        m.add(s)
        objs.append(s)
    m.remove(objs[4])
    objs[5].x = 20
    m.relocate(objs[5])
    assert m._at is None                       # nothing looked for a point yet

    def scan(x: int, y: int) -> list[object]:
        return [o for o in m.pieces if (o.x, o.y) == (x, y)]

    for pt in [(0, 0), (10, 0), (20, 0), (30, 0)]:
        assert m.at(*pt) == scan(*pt)
    objs[0].x = 30
    m.relocate(objs[0])                        # kept up to date once built
    m.remove(objs[3])
    for pt in [(0, 0), (10, 0), (20, 0), (30, 0)]:
        assert m.at(*pt) == scan(*pt)


def test_point_keys_tell_points_apart() -> None:
    from vmodtool.replay.state import _point
    points = [(x, y) for x in (-2**40, -2**31, -1, 0, 1, 2**31 - 1, 2**31, 2**40)
              for y in (-2**31 - 1, -2**31, -1, 0, 1, 2**31 - 1, 2**31)]
    assert len({_point(x, y) for x, y in points}) == len(points)
    m = MapState("Main")
    far = Stack("far")
    far.x, far.y = 5, 2**31
    near = Stack("near")
    near.x, near.y = 6, 0            # (6, 0) and (5, 2**31) share their low bits
    for s in (far, near):
        s.members.append(Piece(f"p-{s.id}", TYPE))
        m.add(s)
    assert m.at(5, 2**31) == [far] and m.at(6, 0) == [near]


def test_places_follow_a_change_of_boards() -> None:
    positions = Positions()
    a = positions.place("Main", 10, 20)
    assert a is positions.place("Main", 10, 20)
    assert (a.map, a.x, a.y, a.location) == ("Main", 10, 20, None)
    positions._places[("Main", 10, 20)] = a._replace(location="stale")
    positions.set_boards("Main", [("Board", False, 0, 0)])   # a map it does not know: nothing changes
    assert positions.place("Main", 10, 20).location == "stale"
    positions._maps["Main"] = _MapInfo("Main", {}, (0, 0), True)
    positions.set_boards("Main", [("Board", False, 0, 0)])   # its boards change: places are new
    assert positions.place("Main", 10, 20) == a


def test_relaxed_gc_nests_and_restores_the_collector() -> None:
    threshold = gc.get_threshold()
    before = gc.get_freeze_count()
    with relaxed_gc():
        frozen = gc.get_freeze_count()
        assert frozen >= before
        with relaxed_gc():
            assert gc.get_threshold()[0] >= 1_000_000
        assert gc.get_freeze_count() >= frozen          # the inner one leaves the freeze alone
    assert gc.get_threshold() == threshold
    assert gc.get_freeze_count() == 0
    replay = chain(END)
    list(replay.steps())
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == threshold


class _Node:
    def __init__(self) -> None:
        self.other: object = None


def test_relaxed_gc_hands_its_objects_to_the_oldest_generation_still_collectable() -> None:
    """On leaving, what was made meanwhile goes to the oldest generation
    unscanned (no young collection of the whole replay's objects at the next
    allocation), and its cyclic garbage is still collected by a full
    collection."""
    import weakref
    gc.collect()
    with relaxed_gc():
        kept = [_Node() for _ in range(1000)]
        a, b = _Node(), _Node()
        a.other, b.other = b, a            # a cycle only the cycle collector frees
        gone = weakref.ref(a)
        del a, b
    assert gc.get_freeze_count() == 0
    oldest = {id(o) for o in gc.get_objects(generation=2)}
    assert all(id(k) in oldest for k in kept)
    assert gc.get_count()[0] < 100
    assert gone() is not None              # not collected on the way out ...
    gc.collect()
    assert gone() is None                  # ... but by the next full collection


@pytest.mark.skipif(not TLD.exists(), reason="needs the shared corpus")
def test_replay_open_reads_under_relaxed_gc_and_restores_the_collector() -> None:
    """Replay.open reads without the collector rescanning the trees it
    builds (no collection while reading), leaves the collector as it was,
    and what it read replays as the same log read with the collector on."""
    threshold = gc.get_threshold()
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    files = sorted((TLD / "game").glob("*.log"))[:2]
    gc.callbacks.append(count)
    try:
        replay = Replay.open(files)
    finally:
        gc.callbacks.remove(count)
    assert collections == []
    assert gc.get_threshold() == threshold and gc.get_freeze_count() == 0
    plain = Replay([SavedGame.read(f) for f in files], Positions(), [os.fspath(f) for f in files])
    assert fingerprint(replay) == fingerprint(plain)


def test_relaxed_gc_leaves_the_programs_own_freeze_alone() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert frozen > 0
        made_since = [[] for _ in range(10_000)]     # tracked objects the program made after its freeze
        with relaxed_gc():
            pass
        # not frozen again (the count would grow by what was made since) and not unfrozen (it would fall
        # to 0); another thread (pytest-xdist's) may free a few frozen objects meanwhile, so not equality
        after = gc.get_freeze_count()
        assert frozen - len(made_since) < after < frozen + len(made_since)
    finally:
        gc.unfreeze()


ADD_TEXTS = [
    piece("p1", M, 1, 2), stack("s1", M, 1, 2, "p1"), "+/null/" + TYPE + "/" + state("A", M, 1, 2),
    "+/p2/mark;a\\/b\tpiece;;;x.png;A\\/B/" + state("A", M, 3, 4),          # escaped slashes in the type
    "+/p3/mark;a\\\\/b\tpiece;;;x.png;A/" + state("A", M, 3, 4),            # an escaped backslash, then a slash
    "+/p4/\\/mark;a\tpiece;;;x.png;A/" + state("A", M, 3, 4),               # the type starts escaped
    "+/p5/mark;a/b\tpiece;;;x.png;A/" + state("A", M, 3, 4),                # four fields
    "+/p6/" + TYPE + "/a\\/b",                                              # an escaped slash in the state
    "+/p7/" + TYPE + "/'quoted'", "+/'p8'/" + TYPE + "/x", "+/p9", "+/p9/", "+//", "+/", "+",
    "+/p10/" + TYPE + "\\", "+/p11/stack/" + M + ";1;2;p1;@@0",
]


def test_add_fields_is_the_full_decoder_where_it_answers() -> None:
    """``engine_adds._add_fields`` (both the plans and on_add's general path use
    it) gives what the full ``/`` decoder gives, or None; its type cache
    answers as a first look does."""
    from vmodtool.vassal.commands import _slash_fields, leaf_commands
    texts = list(ADD_TEXTS)
    if TLD.exists():
        for f in sorted((TLD / "game").glob("*.log"))[:3]:
            texts += [c.text for n in SavedGame.read(f).restore_part() for c in leaf_commands(n)
                      if isinstance(c, AddPiece)]
    answered = 0
    for cached in (False, True):
        for text in texts:
            if not cached:
                adds_module._ADD_TYPES.clear()
            got = adds_module._add_fields(text)
            if got is None:
                continue
            answered += 1
            fields = _slash_fields(text)
            assert len(fields) == 3, text
            assert got == (None if fields[0] == "null" else fields[0], fields[1], fields[2]), text
    assert answered >= 8


def test_names_and_properties_shared_by_refs_of_one_state_are_each_refs_own() -> None:
    """A piece's name and properties are kept by (id, type, states) for every
    ref of it in that state: each must be what its own trait chain gives,
    the properties read-only, and a name seen through a mask the ref's own."""
    from vmodtool.replay.events import ChangeEvent, MoveEvent, PieceRef

    log = Path(__file__).resolve().parents[2] / "examples" / "formats" / "demo.vlog"
    refs: list[PieceRef] = []
    for step in Replay.open([log], module=log.with_suffix(".vmod")).steps():
        for e in step.events:
            if isinstance(e, ChangeEvent):
                refs += [e.before, e.after]
            elif isinstance(e, MoveEvent):
                refs.append(e.piece)
    assert len(refs) >= 6
    for ref in refs:
        twin = PieceRef(ref.id, ref.type_text, ref.states)
        definition = twin.definition()
        assert twin.name == definition.name
        assert dict(twin.properties()) == definition.properties()
        assert twin.properties() is PieceRef(ref.id, ref.type_text, ref.states).properties()
        with pytest.raises(TypeError):
            twin.properties()["Moved"] = "x"     # type: ignore[index]
    masked = PieceRef("m1", TYPE, ("A1", "Main;1;1"))
    masked._name = "?"                            # as Engine.seen_ref names it through a mask
    assert PieceRef("m1", TYPE, ("A1", "Main;1;1")).name == "1/A/1-36 Inf" and masked.name == "?"
