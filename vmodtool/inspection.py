"""What ``vmodtool inspect`` and ``vmodtool dump`` report, as plain data.

The CLI only prints what these functions return: :func:`inspect_file` gives
one JSON-ready summary of any VASSAL file, :func:`dump_records` one record per
command (saves, logs) or per piece definition (modules, buildFiles).  Player
ids — VASSAL passwords — are replaced by player names everywhere.  The
text forms escape what a file's names and texts may hold to fool a terminal
(control characters, embedded newlines, bidi overrides:
:func:`vmodtool.textsafe.escape_controls`); the JSON-ready data keeps them
as they are.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from vmodtool.errors import FormatError, VmodError
from vmodtool.fileio import sniff
from vmodtool.textsafe import escape_controls
from vmodtool.vassal.archive import Archive, is_zip_data, read_head
from vmodtool.vassal.commands import AddPiece, Command, CommandGroup, LogEntry, Node, leaf_commands, walk
from vmodtool.vassal.decks import DECK_ID, DeckState, DeckType, HandDef
from vmodtool.vassal.decks import hands as module_hands
from vmodtool.vassal.metadata import ExtensionMetadata, ModuleMetadata, SaveMetadata
from vmodtool.vassal.pieces import PieceDef, basic_state_written, written_fields
from vmodtool.vassal.savefile import SavedGame

if TYPE_CHECKING:   # a save is inspected without the module layer unless a module is given
    from vmodtool.vassal.buildfile import BoardEntry, BuildFile
    from vmodtool.vassal.module import Module

__all__ = ["detect_kind", "inspect_file", "format_inspection", "dump_records",
           "format_dump_record", "parse_board_sizes"]

PathLike = Union[str, "os.PathLike[str]"]
#: a JSON-ready report or record (what ``--format json`` prints)
Report = dict[str, Any]
#: an lxml element of a buildFile (lxml has no type stubs here)
Element = Any
_SIZE = re.compile(r"^(?P<name>.+)=(?P<w>\d+)[xX](?P<h>\d+)$")


def parse_board_sizes(values: Sequence[str]) -> dict[str, tuple[int, int]]:
    """``["Main=800x600"]`` → ``{"Main": (800, 600)}``."""
    sizes: dict[str, tuple[int, int]] = {}
    for value in values:
        m = _SIZE.match(value)
        if not m:
            raise VmodError(f"--board-size {value!r}: expected NAME=WIDTHxHEIGHT, e.g. Main=800x600")
        sizes[m.group("name")] = (int(m.group("w")), int(m.group("h")))
    return sizes


#: kinds :func:`~vmodtool.fileio.sniff` reports that may be a VASSAL file
#: (the readers' own errors say what is wrong with them)
_VASSAL_LIKE = frozenset({"zip", "xml", "vassal-stream", "xz", "text", "empty"})


def detect_kind(path: PathLike) -> str:
    """``save``/``log`` (zip or bare stream), ``module``/``extension``
    (archive, folder or buildFile) or ``metadata``."""
    src = Path(path)
    if src.is_dir():
        return "module"
    head = read_head(src, 512)
    kind = sniff(head)
    if kind is not None and kind.key not in _VASSAL_LIKE:
        raise FormatError(f"this is {kind.phrase}, not a VASSAL file (a module, extension, save, log, "
                          "buildFile or metadata file)", file=path)
    if is_zip_data(head):
        with Archive.open(src) as arc:
            if "savedGame" in arc:
                return "save"
            if "extensiondata" in arc:
                return "extension"
            if "buildFile.xml" in arc or "buildFile" in arc:
                return "module"
            raise FormatError("a zip archive, but not a VASSAL module, extension, save or log "
                              "(no savedGame, buildFile.xml or buildFile entry)", file=path)
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"<"):
        m = re.search(rb"<(?![?!])([A-Za-z_][\w.$-]*)", text)
        if m and m.group(1) == b"data":
            return "metadata"
        return "module"
    return "save"


# --------------------------------------------------------------------------
# inspect

def inspect_file(path: PathLike, *, board_sizes: dict[str, tuple[int, int]] | None = None,
                 module: PathLike | None = None) -> Report:
    """A JSON-ready summary of any VASSAL file; for a save or log,
    ``module`` (its module, buildFile or folder) names its hands."""
    kind = detect_kind(path)
    if kind == "metadata":
        return _inspect_metadata(path)
    if kind == "save" and module is None:
        return _inspect_save(path, None)
    from vmodtool.vassal.module import Module

    if kind == "save":
        assert module is not None
        with Module.open(module) as opened:
            return _inspect_save(path, opened)
    with Module.open(path) as opened_module:
        return _inspect_module(opened_module, board_sizes or {})


def _metadata_class(name: str) -> type[ModuleMetadata] | type[SaveMetadata] | type[ExtensionMetadata]:
    """The metadata class of an entry or file named ``name``."""
    if name == "savedata":
        return SaveMetadata
    if name == "extensiondata":
        return ExtensionMetadata
    return ModuleMetadata


def _metadata_fields(xml: bytes | None, file: str, entry: str) -> Report | None:
    if not xml:
        return None
    import dataclasses

    try:
        meta = _metadata_class(entry).parse(xml, file=f"{file}!{entry}" if "!" not in entry else file)
    except FormatError as exc:
        return {"error": str(exc)}
    fields = dataclasses.asdict(meta)
    return {k: v for k, v in fields.items() if v not in ("", {}, None)}


def _inspect_metadata(path: PathLike) -> Report:
    import dataclasses

    data = Path(path).read_bytes()
    meta = _metadata_class(Path(path).name).parse(data, file=path)
    fields = {k: v for k, v in dataclasses.asdict(meta).items() if v not in ("", {}, None)}
    return {"file": os.fspath(path), "kind": "metadata", "metadata": fields}


def _inspect_save(path: PathLike, module: Module | None) -> Report:
    game = SavedGame.read(path)
    file = os.fspath(path)
    tree = game.commands
    kinds: Counter[str] = Counter()
    logged: Counter[str] = Counter()
    for cmd in leaf_commands(tree):
        if isinstance(cmd, LogEntry):
            inner = cmd.logged
            logged[inner.kind if inner is not None else "null"] += 1
        else:
            kinds[cmd.kind] += 1
    leaf_count = sum(kinds.values()) + sum(logged.values())
    for kind, count in logged.items():
        kinds["Log:" + kind] += count
    depth = _depth(tree)
    adds = [cmd for node in game.restore_part() for cmd in leaf_commands(node) if isinstance(cmd, AddPiece)]
    made, start = _start_maps(adds)
    pieces, stacks, per_map, bad = _start_pieces(made, adds, start)
    decks, hands = _start_decks(made, adds, start, module_hands(module.buildfile) if module is not None else [])
    steps = game.log_steps()
    undo_steps = _undo_steps(game) if steps else 0
    report: Report = {
        "file": file,
        "kind": "log" if steps else "save",
        "container": game.container,
        "entries": [n for n in game.entries] if game.container == "zip" else [],
        "encoding": game.decoded.encoding.value,
        "key": game.decoded.key,
        "hex_case": game.decoded.hex_case,
        "plaintext_bytes": game.decoded.plaintext_bytes,
        "savedata": _metadata_fields(game.entries.get("savedata"), file, "savedata"),
        "moduledata": _metadata_fields(game.entries.get("moduledata"), file, "moduledata"),
        "version_checks": game.version_checks() or None,
        "players": [{"name": p.name, "side": p.side} for p in game.players()],
        "commands": {"leaves": leaf_count, "top_level": len(game.top_level()), "depth": depth,
                     "by_kind": dict(sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])))},
        "pieces_at_start": {"pieces": pieces, "stacks": stacks, "by_map": per_map,
                            "undecodable": bad},
        "decks": decks,
        "hands": hands if module is not None else None,
        "steps": len(steps),
        "undo_steps": undo_steps,
    }
    return report


def _undo_steps(game: SavedGame) -> int:
    """The undo steps as the replay marks them: VASSAL's UNDO brackets and
    the undos older versions logged as plain steps (exact reversals, ``* UNDO:``
    chat lines), which no single command shows.  The log is replayed without
    a module (positions stay pixels), which costs about what reading it did."""
    from vmodtool.replay.game import Replay
    from vmodtool.replay.output import StepCount

    ((_, undo),) = Replay([game]).run(StepCount())
    return undo


def _depth(tree: Node) -> int:
    """The longest path from the root to a leaf (``leaves``' path length)."""
    deepest = 0
    stack: list[tuple[Node, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, CommandGroup):
            stack.extend((child, depth + 1) for child in node.children)
        elif depth > deepest:
            deepest = depth
    return deepest


#: what an AddPiece of the saved state makes
_STACK, _DECK, _PIECE = "stack", "deck", "piece"


def _start_maps(adds: Sequence[AddPiece]) -> tuple[list[str], dict[int, str | None | FormatError]]:
    """What each AddPiece of the saved state makes (:data:`_STACK`,
    :data:`_DECK` or :data:`_PIECE`) and the BasicPiece map of every piece
    (by the id of its command), or the error its definition has.  Each
    definition is read once, from its fields as written where they can be
    cut out without decoding them (the type of every piece decoded was a
    third of inspect); the others through their decoded fields."""
    kinds: list[str] = []
    maps: dict[int, str | None | FormatError] = {}
    for cmd in adds:
        written = written_fields(cmd.text)
        type_ = written[0] if written is not None else cmd.type
        if type_ == "stack":
            kinds.append(_STACK)
            continue
        if type_.startswith(DECK_ID):
            kinds.append(_DECK)
            continue
        kinds.append(_PIECE)
        state = basic_state_written(*written) if written is not None else None
        if state is not None:
            maps[id(cmd)] = state.map
            continue
        try:
            maps[id(cmd)] = PieceDef.basic_state_of(cmd.text, fields=cmd.fields).map
        except FormatError as error:
            maps[id(cmd)] = error
    return kinds, maps


def _start_pieces(kinds: Sequence[str], adds: Sequence[AddPiece], maps: dict[int, str | None | FormatError]
                  ) -> tuple[int, int, dict[str, int], int]:
    pieces = stacks = bad = 0
    per_map: Counter[str] = Counter()
    for kind, cmd in zip(kinds, adds, strict=True):
        if kind == _STACK:
            stacks += 1
            continue
        if kind == _DECK:
            continue            # a deck: listed with its cards under "decks"
        pieces += 1
        found = maps[id(cmd)]
        if isinstance(found, FormatError):
            bad += 1
        else:
            per_map[found or "(not on a map)"] += 1
    return pieces, stacks, dict(sorted(per_map.items())), bad


def _start_decks(kinds: Sequence[str], adds: Sequence[AddPiece], maps: dict[int, str | None | FormatError],
                 hand_defs: Sequence[HandDef]) -> tuple[list[Report], list[Report]]:
    """The decks of the saved state (each ``deck;`` AddPiece: name, map,
    card count, face) and, for the module's private maps, the pieces on
    them outside decks.  Read from the commands themselves, not replayed."""
    decks: list[Report] = []
    in_deck: set[str] = set()
    piece_maps: dict[str, str | None] = {}
    for kind, cmd in zip(kinds, adds, strict=True):
        if kind == _DECK:
            dtype, dstate = DeckType.parse(cmd.type), DeckState.parse(cmd.state)
            in_deck.update(dstate.cards)
            decks.append({"name": dtype.name, "map": dstate.map, "cards": len(dstate.cards),
                          "face_down": dstate.face_down})
        elif kind == _PIECE and hand_defs:
            found = maps[id(cmd)]
            if not isinstance(found, FormatError):
                piece_maps[cmd.piece_id or ""] = found
    counts: Counter[str] = Counter(m for pid, m in piece_maps.items() if m and pid not in in_deck)
    hands = [{"name": h.name, "kind": h.kind, "sides": list(h.sides), "pieces": counts.get(h.name, 0)}
             for h in hand_defs]
    return decks, hands


def _grid_summary(board: BoardEntry) -> Report | None:
    grid, kind = board.grid, board.grid_kind
    if grid is None or kind is None:
        return None
    summary: Report = {"kind": kind}
    keys = ("dx", "dy", "x0", "y0", "sideways")
    summary.update({k: grid.get(k) for k in keys if grid.get(k) is not None})
    numbering = [c for c in grid if isinstance(c.tag, str) and c.tag.endswith("Numbering")]
    if numbering:
        n = numbering[0]
        summary["numbering"] = {k: v for k, v in sorted(n.attrib.items())
                                if k in ("first", "sep", "hType", "vType", "hLeading", "vLeading",
                                         "hOff", "vOff", "hDescend", "vDescend", "stagger",
                                         "locationFormat")}
    elif kind in ("HexGrid", "SquareGrid"):
        summary["numbering"] = None
    if kind == "ZonedGrid":
        zones = [c for c in grid if isinstance(c.tag, str) and c.tag.endswith(".Zone")]
        inner: Counter[str] = Counter()
        for zone in zones:
            for c in zone:
                if isinstance(c.tag, str) and c.tag.endswith("Grid"):
                    inner[c.tag.rsplit(".", 1)[-1]] += 1
        summary["zones"] = len(zones)
        summary["zone_grids"] = dict(inner)
        background = [c.tag for c in grid if isinstance(c.tag, str) and c.tag.endswith("Grid")]
        summary["background"] = str(background[0]).rsplit(".", 1)[-1] if background else None
    return summary


def _inspect_module(module: Module, given_sizes: dict[str, tuple[int, int]]) -> Report:
    bf = module.buildfile
    sizes, missing = module.board_sizes(given_sizes)
    maps = []
    for m in bf.maps():
        boards = []
        for b in m.boards:
            size = sizes.get(b.name)
            boards.append({"name": b.name, "image": b.image or None,
                           "size": list(size) if size else None, "grid": _grid_summary(b)})
        maps.append({"name": m.name, "class": m.class_name, "boards": boards})
    grid_counts: Counter[str] = Counter()
    for el in bf.root.iter():
        if isinstance(el.tag, str) and el.tag.endswith("Grid") and ".board." in el.tag:
            grid_counts[el.tag.rsplit(".", 1)[-1]] += 1
    slots = bf.piece_slots()
    prototypes = bf.prototypes()
    undecodable = 0
    trait_counts: Counter[str] = Counter()
    for slot in slots:
        try:
            piece = PieceDef.parse(slot.definition)
        except FormatError:
            undecodable += 1
            continue
        for trait in piece.decorators:
            trait_counts[trait.prefix] += 1
    gpids = [s.gpid for s in slots]
    duplicates = sorted(g for g, n in Counter(gpids).items() if n > 1 and g)
    meta = module.extensiondata if module.is_extension else module.moduledata
    file = module.file or ""
    return {
        "file": file,
        "kind": "extension" if module.is_extension else "module",
        "container": module.container,
        "buildfile_entry": module.buildfile_entry,
        "root": bf.root_tag,
        "name": bf.name,
        "version": bf.version,
        "vassal_version": bf.vassal_version,
        "metadata": _metadata_fields(meta, file, "extensiondata" if module.is_extension
                                     else "moduledata"),
        "files": len(module.files),
        "images": len(module.images),
        "maps": maps,
        "boards_without_size": missing,
        "grids": dict(sorted(grid_counts.items())),
        "pieces": {"slots": len(slots), "prototypes": len(prototypes),
                   "undecodable": undecodable, "max_gpid": bf.max_gpid(),
                   "next_piece_slot_id": bf.next_piece_slot_id, "duplicate_gpids": duplicates,
                   "traits": dict(trait_counts.most_common(12))},
    }


def format_inspection(report: Report) -> Iterator[str]:
    """Readable lines for an :func:`inspect_file` report, every text from
    the file escaped (one line each)."""
    report = _escaped(report)
    kind = report["kind"]
    yield f"{report['file']}: {kind}"
    if kind in ("save", "log"):
        yield from _format_save(report)
    elif kind == "metadata":
        for k, v in (report.get("metadata") or {}).items():
            yield f"  {k}: {v}"
    else:
        yield from _format_module(report)


def _escaped(value: Any) -> Any:
    """``value`` (a report or part of it) with every string, keys too,
    passed through :func:`escape_controls`."""
    if isinstance(value, str):
        return escape_controls(value)
    if isinstance(value, dict):
        return {_escaped(k): _escaped(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_escaped(v) for v in value]
    return value


def _meta_line(meta: Report | None) -> str | None:
    if not meta:
        return None
    if "error" in meta:
        return f"unreadable ({meta['error']})"
    bits = [str(meta.get("name") or ""), str(meta.get("version") or "")]
    line = " ".join(b for b in bits if b)
    if meta.get("vassal_version"):
        line += f" (VASSAL {meta['vassal_version']})"
    return line or None


def _format_save(r: Report) -> Iterator[str]:
    enc = str(r["encoding"])
    if r.get("key") is not None:
        enc += f", key 0x{r['key']:02x}"
    if r.get("hex_case"):
        enc += f", {r['hex_case']}-case hex"
    container = "zip with " + ", ".join(r["entries"]) if r["container"] == "zip" else "bare stream"
    yield f"  container: {container}"
    yield f"  encoding: {enc}; {r['plaintext_bytes']} bytes of command text"
    module = _meta_line(r.get("moduledata"))
    if module:
        yield f"  module: {module}"
    saved = r.get("savedata") or {}
    if saved and "error" not in saved:
        yield f"  saved by: VASSAL {saved.get('vassal_version') or '?'}" + (
            f"; description: {saved['description']}" if saved.get("description") else "")
    checks = r.get("version_checks") or {}
    if checks:
        yield f"  written by: VASSAL {checks.get('vassal', '?')} (module version {checks.get('module', '?')})"
    players = r.get("players") or []
    yield "  players: " + (", ".join(f"{p['name']} ({p['side'] or 'observer'})" for p in players)
                           or "none listed")
    c = r["commands"]
    yield f"  commands: {c['leaves']} ({c['top_level']} top-level, depth {c['depth']})"
    kinds = ", ".join(f"{k} {v}" for k, v in c["by_kind"].items())
    yield f"    {kinds}"
    p = r["pieces_at_start"]
    yield f"  pieces at start: {p['pieces']} in {p['stacks']} stacks"
    for name, count in p["by_map"].items():
        yield f"    {name}: {count}"
    if p["undecodable"]:
        yield f"    ({p['undecodable']} piece definitions could not be decoded)"
    for d in r.get("decks") or []:
        yield (f"  deck {d['name']} on {d['map'] or '(not on a map)'}: {d['cards']} card"
               f"{'s' if d['cards'] != 1 else ''}, face {'down' if d['face_down'] else 'up'}")
    for h in r.get("hands") or []:
        sides = f" ({', '.join(h['sides'])})" if h["sides"] else ""
        yield f"  hand {h['name']}{sides}: {h['pieces']} piece{'s' if h['pieces'] != 1 else ''}"
    if r["kind"] == "log":
        yield f"  steps: {r['steps']} ({r['undo_steps']} undo)"


def _format_module(r: Report) -> Iterator[str]:
    yield f"  name: {r['name']}  version: {r['version']}  VASSAL: {r['vassal_version'] or '?'}"
    yield f"  read from: {r['container']} ({r['buildfile_entry']}, root {r['root']})"
    meta = _meta_line(r.get("metadata"))
    if meta:
        yield f"  metadata: {meta}"
    if r["container"] != "buildfile":
        yield f"  files: {r['files']} ({r['images']} images)"
    yield f"  maps: {len(r['maps'])}"
    for m in r["maps"]:
        yield f"    {m['name']} ({m['class'].rsplit('.', 1)[-1]})"
        for b in m["boards"]:
            size = "x".join(map(str, b["size"])) if b["size"] else "size unknown"
            grid = b["grid"]
            if grid:
                desc = grid["kind"]
                if grid["kind"] in ("HexGrid", "SquareGrid"):
                    desc += " " + " ".join(f"{k}={grid[k]}" for k in ("dx", "dy", "x0", "y0", "sideways") if k in grid)
                    desc += "; numbered" if grid.get("numbering") else "; no numbering"
                if grid["kind"] == "ZonedGrid":
                    desc += f" ({grid['zones']} zones, background {grid['background'] or 'none'})"
            else:
                desc = "no grid"
            yield f"      board {b['name']}: {size}, {desc}"
    if r["boards_without_size"]:
        yield ("  boards without a known size (give --board-size NAME=WxH): "
               + ", ".join(r["boards_without_size"]))
    if r["grids"]:
        yield "  grids: " + ", ".join(f"{k} {v}" for k, v in r["grids"].items())
    p = r["pieces"]
    yield (f"  pieces: {p['slots']} slots, {p['prototypes']} prototypes; max gpid {p['max_gpid']}, "
           f"nextPieceSlotId {p['next_piece_slot_id']}")
    if p["duplicate_gpids"]:
        yield f"    duplicate gpids: {', '.join(p['duplicate_gpids'][:10])}"
    if p["undecodable"]:
        yield f"    {p['undecodable']} definitions could not be decoded"
    if p["traits"]:
        yield "    traits: " + ", ".join(f"{k} {v}" for k, v in p["traits"].items())


# --------------------------------------------------------------------------
# dump

def dump_records(path: PathLike) -> Iterator[Report]:
    """One record per command (saves, logs) or per piece definition
    (modules), each with its ``path``."""
    kind = detect_kind(path)
    if kind == "save":
        yield from _dump_save(path)
    elif kind == "metadata":
        report = _inspect_metadata(path)
        yield {"path": "metadata", **report["metadata"]}
    else:
        from vmodtool.vassal.module import Module

        with Module.open(path) as module:
            yield from _dump_module(module)


def _dump_save(path: PathLike) -> Iterator[Report]:
    game = SavedGame.read(path)
    redactor = game.redactor()
    for node_path, node in walk(game.commands):
        dotted = ".".join(map(str, node_path)) or "root"
        if isinstance(node, CommandGroup):
            yield {"path": dotted, "depth": len(node_path), "kind": "Group",
                   "children": len(node.children)}
        elif isinstance(node, Command):
            rec = node.record(redactor)
            yield {"path": dotted, "depth": len(node_path), **rec}


def _dump_module(module: Module) -> Iterator[Report]:
    bf = module.buildfile
    yield {"path": _xml_path(bf.root), "kind": "module", "root": bf.root_tag, "name": bf.name,
           "version": bf.version, "vassal_version": bf.vassal_version,
           "buildfile_entry": module.buildfile_entry}
    for slot in bf.piece_slots():
        yield _piece_record(bf, slot.element, slot.kind, slot.entry_name, slot.definition,
                            gpid=slot.gpid)
    for el in bf.components("PrototypeDefinition"):
        yield _piece_record(bf, el, "PrototypeDefinition", el.get("name") or "", bf.text_of(el))


def _piece_record(bf: BuildFile, element: Element, kind: str, name: str, definition: str, *,
                  gpid: str | None = None) -> Report:
    rec: Report = {"path": _xml_path(element), "line": bf.line_of(element), "kind": kind,
                   "entry_name": name}
    if gpid is not None:
        rec["gpid"] = gpid
    try:
        piece = PieceDef.parse(definition)
    except FormatError as exc:
        rec["error"] = exc.message
        rec["definition"] = definition
        return rec
    rec["piece_name"] = piece.name
    rec["traits"] = [{"prefix": t.prefix, "class": t.java_class, "type": t.type, "state": t.state}
                     for t in piece.traits]
    return rec


def _xml_path(element: Element | None) -> str:
    parts = []
    while element is not None and isinstance(element.tag, str):
        label = element.get("entryName") or element.get("name") or element.get("mapName")
        short = element.tag.rsplit(".", 1)[-1]
        parts.append(f"{short}[{label}]" if label else short)
        element = element.getparent()
    return "/".join(reversed(parts))


def format_dump_record(rec: Report) -> str:
    """One readable line (or block of lines) for a dump record; what came
    from the file is escaped, so every line break is the dump's own."""
    e = escape_controls
    if "traits" in rec or "error" in rec and "entry_name" in rec:
        head = f"{e(str(rec['path']))} (line {rec.get('line')})"
        if "error" in rec:
            return f"{head}\n    error: {e(str(rec['error']))}"
        lines = [f"{head}: {e(str(rec.get('piece_name')))}"
                 + (f" gpid={e(str(rec['gpid']))}" if rec.get("gpid") else "")]
        for t in rec["traits"]:
            state = f"  state={_clip(t['state'])}" if t["state"] else ""
            lines.append(f"    {e(t['class'].rsplit('.', 1)[-1])}: {_clip(t['type'])}{state}")
        return "\n".join(lines)
    if rec.get("kind") == "module":
        return (f"{e(str(rec['path']))}: {e(str(rec['root']))} {rec['name']!r} version {rec['version']!r}, "
                f"VASSAL {e(str(rec['vassal_version'] or '?'))} ({e(str(rec['buildfile_entry']))})")
    if rec.get("path") == "metadata":
        return "\n".join(f"{e(str(k))}: {_clip(str(v), limit=None)}" for k, v in rec.items() if k != "path")
    indent = "  " * int(rec.get("depth", 0) or 0)
    kind = rec["kind"]
    if kind == "Group":
        return f"{indent}{rec['path']} group of {rec['children']}"
    if kind == "Log":
        logged = rec.get("logged")
        if logged is None:
            return f"{indent}{rec['path']} LOG null"
        return f"{indent}{rec['path']} LOG {_describe(logged)}"
    return f"{indent}{rec['path']} {_describe(rec)}"


def _describe(rec: Report) -> str:
    fields = {k: v for k, v in rec.items() if k not in ("kind", "text", "path", "depth")}
    if not fields:
        return f"{rec['kind']} {_clip(str(rec.get('text', '')))}".rstrip()
    return f"{rec['kind']} " + " ".join(f"{k}={_clip(str(v))}" for k, v in fields.items())


def _clip(text: str, limit: int | None = 100) -> str:
    """``text`` on one line (VASSAL's ESC separator as ``\\e``, every other
    control escaped), cut to ``limit`` characters."""
    text = escape_controls(text.replace("\x1b", "\\e"))
    return text if limit is None or len(text) <= limit else text[:limit - 3] + "..."
