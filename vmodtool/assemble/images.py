"""The images of a generated module: every counter face (``vmodtool
counters``' renderer), marker counters and activation chits, overlays for
status layers, and the board (``vmodtool board``, or the scenario's own
board image) — collected into a :class:`~vmodtool.assemble.module.ModuleImages`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import PIL  # its version only: Pillow's drawing modules are imported where they draw

from vmodtool.assemble.module_images import ModuleImages
from vmodtool.fileio import atomic_write, output_folder, parse_json
from vmodtool.scenario.cards import HAND_MARGIN, VASSAL_CARD_DPI, card_pixels, hand_board_size
from vmodtool.scenario.model import Scenario

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from PIL import Image, ImageFont

    from vmodtool.render.board_layout import PlacementWarning
    from vmodtool.render.counters import CounterError, CounterSpec

__all__ = ["render_module_images", "start_module_images", "PendingImages", "module_image_names", "FACE_PACK"]

Progress = Callable[[str, int, int], None]


def _counters() -> ModuleType:
    """The counter renderer, imported on first use: a build that takes its
    faces from the cache's pack imports neither it nor Pillow's drawing."""
    from vmodtool.render import counters

    return counters


def _encode_png(img: Image.Image, level: int | None = None) -> bytes:
    from vmodtool.render.png import encode_png

    return encode_png(img) if level is None else encode_png(img, level)


def _load_font(style: str, size: int) -> ImageFont.FreeTypeFont:
    from vmodtool.render.fonts import load_font

    return load_font(style, size)


#: the files of the board cache in ``cache_dir``: the PNG and what it was made of
BOARD_CACHE = ("board.png", "board.json")
_BOARD_SOURCES = ("board.py", "board_canvas.py", "board_geometry.py", "board_layout.py", "board_symbols.py",
                  "fonts.py", "png.py", "board_curves.py", "board_tracks.py")
#: a board as the build takes it: the PNG, its size and the renderer's warnings (one located line each)
_Board = tuple[bytes, tuple[int, int], list[str]]


def board_key(scenario: Scenario) -> str:
    """A content key of the module's board: everything of the scenario's map
    (its grid by the attributes that define it), the bytes of its own board
    image, the source of the board renderer and Pillow's version."""
    hmap = scenario.map
    h = hashlib.sha256()
    fields = [(f.name, getattr(hmap, f.name)) for f in dataclasses.fields(hmap) if f.name != "grid"]
    h.update(repr((PIL.__version__, fields, hmap.grid.grid_attributes, hmap.grid.numbering_attributes,
                   hmap.grid.size)).encode("utf-8"))
    render = Path(__file__).resolve().parent.parent / "render"
    for name in _BOARD_SOURCES:
        h.update((render / name).read_bytes())
    if hmap.board_image is not None:
        try:
            h.update(Path(hmap.board_image).read_bytes())
        except OSError:
            return ""               # read (and reported) by the renderer
    return h.hexdigest()


def _cached_board(cache_dir: Path, key: str) -> tuple[bytes, tuple[int, int], dict[str, Any]] | None:
    """The cached board PNG, its size and its index when the cache holds
    the board of ``key`` with the bytes it recorded and its warnings; None
    otherwise (corrupt: drawn again)."""
    try:
        index = parse_json((cache_dir / BOARD_CACHE[1]).read_text("utf-8"))
        if not key or index.get("key") != key:
            return None
        _notes(index)                          # an entry without its warnings is drawn again
        data = (cache_dir / BOARD_CACHE[0]).read_bytes()
        if hashlib.sha256(data).hexdigest() != index.get("sha256"):
            return None
        size = (int(index["size"][0]), int(index["size"][1]))
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None
    return data, size, index


def _notes(index: dict[str, Any]) -> list[PlacementWarning]:
    """The board's warnings in a cache index, by scenario entry (raises
    ValueError when they are not as written)."""
    from vmodtool.render.board_layout import PlacementWarning  # no drawing: a dataclass and a function

    out = []
    for entry, message in index["notes"]:
        if not (isinstance(entry, list) and all(isinstance(p, (str, int)) for p in entry)
                and isinstance(message, str)):
            raise ValueError("not a board warning")
        out.append(PlacementWarning(tuple(entry), message))
    return out


def _source_digest(scenario: Scenario) -> str:
    """The sha256 of the scenario file's bytes ('' when it cannot be read):
    the lines the board's warnings name belong to these bytes."""
    try:
        return hashlib.sha256(Path(scenario.path).read_bytes()).hexdigest() if scenario.path else ""
    except OSError:
        return ""


def _located(scenario: Scenario, index: dict[str, Any], cache_dir: Path) -> list[str]:
    """The cached board's warnings as lines: those kept with the entry when
    the scenario file and its path are the ones they were located in, else
    located again (the board is the same, the lines may have moved) and kept."""
    notes = _notes(index)
    if not notes:
        return []
    digest = _source_digest(scenario)
    kept = index.get("located")
    if (isinstance(kept, dict) and digest and kept.get("sha256") == digest and kept.get("file") == str(scenario.path)
            and isinstance(kept.get("lines"), list) and len(kept["lines"]) == len(notes)
            and all(isinstance(line, str) for line in kept["lines"])):
        return list(kept["lines"])
    from vmodtool.render.board_layout import located_warnings

    lines = located_warnings(scenario.path, notes)
    _write_board_index(cache_dir, index["key"], index["sha256"], index["size"], notes, scenario, lines)
    return lines


def _write_board_index(cache_dir: Path, key: str, digest: str, size: Sequence[int],
                       notes: Sequence[PlacementWarning], scenario: Scenario, lines: list[str]) -> None:
    atomic_write(cache_dir / BOARD_CACHE[1], json.dumps(
        {"key": key, "sha256": digest, "size": list(size), "notes": [[list(n.entry), n.message] for n in notes],
         "located": {"file": str(scenario.path), "sha256": _source_digest(scenario), "lines": lines}},
        ensure_ascii=True).encode("ascii"))


def _draw_board(scenario: Scenario) -> tuple[Image.Image, list[PlacementWarning], list[str]]:
    """The module's board image and the renderer's warnings (by scenario
    entry, and as located lines)."""
    from vmodtool.render.board import module_board  # not imported by a warm build

    image, drawing = module_board(scenario)
    return image, (drawing.notes if drawing else []), (drawing.warnings if drawing else [])


def _drawn_board(scenario: Scenario) -> tuple[bytes, tuple[int, int], list[PlacementWarning], list[str]]:
    """The board drawn: its PNG, its size and its warnings."""
    board, notes, lines = _draw_board(scenario)
    from vmodtool.render.png import BOARD_LEVEL

    return _encode_png(board.convert("RGB"), BOARD_LEVEL), board.size, notes, lines


def _board(scenario: Scenario, cache_dir: Path | None) -> _Board:
    """The board PNG, its size and its warnings: from the cache when its key
    is unchanged (the warnings with it), else drawn (and cached)."""
    key = board_key(scenario) if cache_dir is not None else ""
    if cache_dir is not None:
        found = _cached_board(cache_dir, key)
        if found is not None:
            data, size, index = found
            try:
                return data, size, _located(scenario, index, cache_dir)
            except (OSError, ValueError, KeyError, TypeError):
                pass                              # drawn again
    data, size, notes, lines = _drawn_board(scenario)
    if cache_dir is not None and key:
        output_folder(cache_dir)
        atomic_write(cache_dir / BOARD_CACHE[0], data)
        _write_board_index(cache_dir, key, hashlib.sha256(data).hexdigest(), size, notes, scenario, lines)
    return data, size, lines


#: the counter faces of the last build with the cache, in one file (see :func:`_read_pack`)
FACE_PACK = "faces.pack"
_PACK_FORMAT = "vmodtool-face-pack/1"
#: (counter id, face, image name) of each face, in the order the build names them
_PackFace = tuple[str, str, str]


def pack_key(model_digest: str) -> str:
    """The key of a face pack: the scenario model's digest (its pickle,
    ``build/scenario_cache.py``: the counters are made of the model alone),
    the renderer's source (every module of ``vmodtool/render``), Pillow's
    version and the bundled fonts (name, size and time); '' without a model
    digest."""
    if not model_digest:
        return ""
    fonts_dir = Path(__file__).resolve().parent.parent / "data" / "fonts"
    try:
        fonts = sorted((f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in fonts_dir.iterdir())
    except OSError:
        fonts = []
    blob = repr((_PACK_FORMAT, model_digest, _render_sources(), PIL.__version__, fonts))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _render_sources() -> str:
    """A digest of every module of ``vmodtool/render`` (by name, size and
    time): the counter renderer, its version and whatever it uses, read
    without importing them."""
    render = Path(__file__).resolve().parent.parent / "render"
    try:
        with os.scandir(render) as listing:
            found = sorted((e.name, e.stat().st_size, e.stat().st_mtime_ns) for e in listing if e.name.endswith(".py"))
    except OSError:
        return ""
    return hashlib.sha256(repr(found).encode("utf-8")).hexdigest()


def _read_pack(cache_dir: Path, key: str) -> tuple[int, list[tuple[_PackFace, bytes]]] | None:
    """The counters' size and faces of the pack in ``cache_dir`` when it
    was written for ``key`` and its bytes are those it recorded; None
    otherwise (no pack, another key, damaged: the faces come from
    ``render_all``'s cache or are drawn).  The pack is one file (a JSON line
    naming each face and its length, then the PNGs end to end), so a warm
    build reads one file instead of one per face."""
    if not key:
        return None
    try:
        raw = (cache_dir / FACE_PACK).read_bytes()
        end = raw.index(b"\n")
        index = parse_json(raw[:end])
        if not isinstance(index, dict) or index.get("format") != _PACK_FORMAT or index.get("key") != key:
            return None
        body = memoryview(raw)[end + 1:]
        px = int(index["px"])
        if _pack_digest([px, index["faces"]], body) != index.get("sha256"):
            return None
        out: list[tuple[_PackFace, bytes]] = []
        at = 0
        for counter_id, face, name, size in index["faces"]:
            size = int(size)
            if size < 0 or at + size > len(body):
                return None
            out.append(((str(counter_id), str(face), str(name)), bytes(body[at:at + size])))
            at += size
        if at != len(body):
            return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return px, out


def _pack_digest(faces: object, body: bytes | memoryview) -> str:
    """The digest of a pack's list of faces (names and lengths) and bytes."""
    h = hashlib.sha256(json.dumps(faces, ensure_ascii=True).encode("ascii") + b"\n")
    h.update(body)
    return h.hexdigest()


def _write_pack(cache_dir: Path, key: str, px: int, faces: list[tuple[_PackFace, bytes]]) -> None:
    body = b"".join(data for _, data in faces)
    listed = [[*names, len(data)] for names, data in faces]
    index = {"format": _PACK_FORMAT, "key": key, "px": px, "sha256": _pack_digest([px, listed], body),
             "faces": listed}
    atomic_write(cache_dir / FACE_PACK, json.dumps(index, ensure_ascii=True).encode("ascii") + b"\n" + body)


def _overlay(text: str, px: int) -> bytes:
    """A status layer drawn over a unit: a band across the lower third with
    the marker's name, transparent elsewhere."""
    from PIL import Image, ImageDraw

    img = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    top, bottom = int(px * 0.36), int(px * 0.64)
    draw.rectangle((0, top, px - 1, bottom), fill=(250, 245, 220, 225), outline=(120, 20, 20, 255),
                   width=max(1, px // 40))
    size = max(6, int(px * 0.16))
    font = _load_font("condensed-bold", size)
    while size > 6 and draw.textlength(text, font=font) > px * 0.92:
        size -= 1
        font = _load_font("condensed-bold", size)
    draw.text((px / 2, (top + bottom) / 2), text, font=font, fill=(120, 20, 20, 255), anchor="mm")
    return _encode_png(img)


def _plain_chit(text: str, px: int) -> bytes:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (px, px), (245, 245, 240))
    draw = ImageDraw.Draw(img)
    draw.rectangle((0, 0, px - 1, px - 1), outline=(0, 0, 0), width=max(1, px // 30))
    font = _load_font("condensed-bold", max(6, int(px * 0.2)))
    draw.multiline_text((px / 2, px / 2), text.replace(" ", "\n"), font=font, fill=(0, 0, 0),
                        anchor="mm", align="center")
    return _encode_png(img)


#: what a chunk of faces' specs renders to: the PNG files of each spec's
#: faces, up to the first spec that cannot be drawn, and that spec's error
_Rendered = tuple[list[list[bytes]], "CounterError | None"]


def _render_chunk(job: tuple[Sequence[CounterSpec], int]) -> _Rendered:
    """The faces of ``job``'s specs at its size, stopping at the first spec
    that cannot be drawn (a text that does not fit: the check of
    ``check_text_fits``, made as the face is laid out), whose error comes
    back to be located at its unit type's line."""
    specs, px = job
    rc = _counters()
    out: list[list[bytes]] = []
    for spec in specs:
        try:
            out.append([_encode_png(img) for img in rc.render_spec(spec, px)])
        except rc.CounterError as exc:
            return out, exc
    return out, None


def renders_in_workers(count: int, jobs: int | None) -> bool:
    """Whether a cache-less build of ``count`` counter faces' specs renders
    them (and draws the board) in worker processes."""
    return (jobs or os.cpu_count() or 1) > 1 and count >= 200


class _CounterJobs:
    """Counter faces at VASSAL size, rendered in memory — in worker
    processes for large sets, started first so that the board and the
    buildFile can be made in this process meanwhile — or through
    ``render_all``'s file cache when ``cache_dir`` is given."""

    def __init__(self, scenario: Scenario, specs: list[CounterSpec], px: int, jobs: int | None,
                 cache_dir: Path | None, progress: Progress | None,
                 packed: list[tuple[_PackFace, bytes]] | None = None) -> None:
        self.scenario, self.px, self.progress, self.cache_dir = scenario, px, progress, cache_dir
        self.jobs = jobs
        self.packed = packed
        self.pool: ProcessPoolExecutor | None = None
        self.futures: list[Future[_Rendered]] = []
        self.specs = specs
        self.chunks: list[list[CounterSpec]] = []
        self.board_future: Future[_Board | None] | None = None

    def start_board(self, count: int) -> None:
        """Start the workers and the board's job when ``count`` faces' specs
        will make a pool worth it (before the specs are laid out: the board
        is drawn meanwhile)."""
        workers = self.jobs or os.cpu_count() or 1
        if self.cache_dir is not None or self.pool is not None or not renders_in_workers(count, self.jobs):
            return
        from concurrent.futures import ProcessPoolExecutor  # only when rendering many faces

        from vmodtool.pools import pool_context

        global _FORKED_SCENARIO
        context = pool_context()
        if context.get_start_method() == "fork":
            _FORKED_SCENARIO = self.scenario
            # imported once here, where the faces' specs need it anyway,
            # rather than again in every worker (a fork inherits it)
            _counters()
        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
        self.board_future = self.pool.submit(_board_job, id(self.scenario))

    def start_faces(self, specs: list[CounterSpec]) -> None:
        """Send the faces' specs to the workers (started now if
        :meth:`start_board` did not)."""
        self.specs = specs
        if self.cache_dir is not None:
            return
        workers = self.jobs or os.cpu_count() or 1
        chunk = max(16, len(specs) // (workers * 4) + 1)
        self.chunks = [specs[i:i + chunk] for i in range(0, len(specs), chunk)]
        self.start_board(len(specs))
        if self.pool is not None:
            self.futures = [self.pool.submit(_render_chunk, (c, self.px)) for c in self.chunks]

    def board(self) -> _Board | None:
        """The board a worker drew (None: none did; draw it here)."""
        future, self.board_future = self.board_future, None
        return future.result() if future is not None else None

    def results(self) -> Iterator[tuple[str, bytes]]:
        """(file name, PNG bytes) of every face."""
        if self.packed is not None:
            for (_, _, name), data in self.packed:
                yield name, data
            return
        if self.cache_dir is not None:
            def counters_progress(done: int, total: int) -> None:
                if self.progress:
                    self.progress("counters", done, total)
            manifest = _counters().render_all(self.scenario, self.cache_dir, resolutions=("vassal",),
                                              jobs=self.jobs, cache=True, progress=counters_progress,
                                              specs=self.specs, keep_data=True)
            for entry in manifest.entries:
                yield Path(entry.path).name, manifest.data[entry.path]
            return
        try:
            done = 0
            for i, chunk_specs in enumerate(self.chunks):
                rendered, error = (self.futures[i].result() if self.pool is not None
                                   else _render_chunk((chunk_specs, self.px)))
                if error is not None:
                    raise _counters().located_counter_error(self.scenario, chunk_specs[len(rendered)].id,
                                                            error) from None
                for spec, pngs in zip(chunk_specs, rendered, strict=True):  # one result per spec
                    for (face, _), data in zip(spec.faces, pngs, strict=True):  # and per face
                        yield _counters().face_filename(spec.id, face), data
                done += len(chunk_specs)
                if self.progress:
                    self.progress("counters", done, len(self.specs))
        finally:
            self.close()

    def close(self) -> None:
        global _FORKED_SCENARIO
        _FORKED_SCENARIO = None
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)
            self.pool = None


#: the scenario of a cache-less build whose workers are forked: they inherit
#: it and one of them draws the board (the scenario itself cannot be
#: pickled); with another start method a worker finds None and the board is
#: drawn in the main process
_FORKED_SCENARIO: Scenario | None = None


def _board_job(wanted: int) -> _Board | None:
    """The board of the scenario whose ``id`` is ``wanted`` (a fork keeps
    ids), or None when this worker did not inherit that one — another
    thread's build set the variable meanwhile, or the worker was not forked."""
    scenario = _FORKED_SCENARIO
    if scenario is None or id(scenario) != wanted:
        return None
    data, size, _notes, lines = _drawn_board(scenario)
    return data, size, lines


def _name_counter(images: ModuleImages, counter_id: str, face: str, name: str) -> None:
    """Record which piece uses a counter face's image file."""
    if counter_id.startswith("marker."):
        images.marker[counter_id[len("marker."):]] = name
    elif counter_id.startswith("chit."):
        images.chit[counter_id[len("chit."):]] = name
    else:
        images.unit[(counter_id, face)] = name


def _name_extras(images: ModuleImages, scenario: Scenario, px: int) -> None:
    """End Turn chits and status-layer overlays (drawn when ``images.draw``)."""
    # End Turn chits: the scenario's end-turn marker kind, or a plain chit
    setups = [scenario.setup, *(named.setup for named in scenario.scenarios)]
    if any(getattr(e, "chits", ()) and "end_turn" in e.chits for setup in setups for e in setup):
        end_kind = next((k for k in images.marker if "end_turn" in k), None)
        if end_kind is not None:
            images.chit["end_turn"] = images.marker[end_kind]
        else:
            if images.draw:
                images.files["chit-end-turn.png"] = _plain_chit("End Turn", px)
            images.chit["end_turn"] = "chit-end-turn.png"
    for kind in scenario.markers.values():
        if kind.representation == "layer":
            name = f"layer-{kind.id}.png"
            if images.draw:
                images.files[name] = _overlay(kind.text or kind.name, px)
            images.layer[kind.id] = name


def _hand_board(scenario: Scenario, side: str, size: tuple[int, int]) -> bytes:
    """A hand's board: a felt-coloured table with a frame per card place."""
    from PIL import Image, ImageDraw

    sides = {s.id: s for s in scenario.game.sides}
    img = Image.new("RGB", size, (46, 92, 64))
    draw = ImageDraw.Draw(img)
    hand = next(h for h in scenario.hands if h.side == side)
    sizes = [card_pixels(d.size) for d in scenario.decks] or [card_pixels("poker")]
    w, h = max(s[0] for s in sizes), max(s[1] for s in sizes)
    for i in range(hand.size or 5):
        x = HAND_MARGIN + i * (w + HAND_MARGIN)
        draw.rounded_rectangle((x, HAND_MARGIN, x + w, HAND_MARGIN + h), radius=10, outline=(200, 220, 200),
                               width=2)
    label = _load_font("bold", 16)
    draw.text((6, 2), f"{hand.vassal_name} ({sides[side].name})", font=label, fill=(230, 240, 230))
    return _encode_png(img)


def _name_cards(images: ModuleImages, scenario: Scenario) -> None:
    """Card fronts, deck backs and hand boards (drawn when ``images.draw``)."""
    if not scenario.decks and not scenario.hands:
        return
    from vmodtool.render.cards import (
        back_filename,
        card_filename,
        check_card_texts,
        render_card_back,
        render_card_front,
    )

    if scenario.decks:
        check_card_texts(scenario)
    for deck in scenario.decks:
        if not deck.cards:
            continue      # a deck that starts empty (a discard pile) shows the backs of its visitors
        images.card_back[deck.id] = back_filename(deck.id)
        if images.draw:
            images.files[back_filename(deck.id)] = _encode_png(render_card_back(scenario, deck, VASSAL_CARD_DPI))
        for card in deck.cards:
            images.card[card.id] = card_filename(card.id)
            if images.draw:
                images.files[card_filename(card.id)] = _encode_png(render_card_front(scenario, deck, card,
                                                                               VASSAL_CARD_DPI))
    for hand in scenario.hands:
        name = f"hand-{_counters().safe_name(hand.side)}.png"
        images.hand_board[hand.side] = name
        if images.draw:
            images.files[name] = _hand_board(scenario, hand.side, hand_board_size(scenario.decks, hand))


def module_image_names(scenario: Scenario) -> ModuleImages:
    """The image names of the module :func:`render_module_images` makes,
    without drawing anything (``draw=False``): for a module wanted for its
    buildFile only (tests and benchmarks write logs with it), under the
    same names as the built module's, so that both name each piece's images
    alike."""
    rc = _counters()
    style = rc.counter_style(scenario)
    px = rc.resolution_px(style, "vassal")
    images = ModuleImages(counter_size=(px, px), board_size=(scenario.map.size[0], scenario.map.size[1]),
                           draw=False)
    for spec in rc.counter_specs(scenario, style):
        for face, _ in spec.faces:
            _name_counter(images, spec.id, face, rc.face_filename(spec.id, face))
    _name_extras(images, scenario, px)
    _name_cards(images, scenario)
    return images


class PendingImages:
    """The images of a module on their way: ``images`` names every file and
    holds the board and the small images already; :meth:`finish` adds the
    counter faces (waiting for the workers, or reading the cache)."""

    def __init__(self, images: ModuleImages, counters: _CounterJobs, scenario: Scenario,
                 pack: tuple[str, int, list[_PackFace]] | None = None) -> None:
        self.images = images
        self.images_scenario = scenario
        self._counters: _CounterJobs | None = counters
        self._pack = pack     # (key, size, faces) of a face pack to write once the faces are in

    def finish(self) -> ModuleImages:
        if self._counters is not None:
            counters, self._counters = self._counters, None
            if "board.png" not in self.images.files:
                drawn = counters.board() if counters.pool is not None else None
                self.images.files["board.png"], self.images.board_size, self.images.board_warnings = \
                    drawn if drawn is not None else _board(self.images_scenario, None)
            for name, data in counters.results():
                self.images.files[name] = data
            if self._pack is not None and counters.cache_dir is not None:
                key, px, faces = self._pack
                _write_pack(counters.cache_dir, key, px, [(f, self.images.files[f[2]]) for f in faces])
                self._pack = None
        return self.images

    def close(self) -> None:
        """Stop the workers of an unfinished build."""
        if self._counters is not None:
            self._counters.close()
            self._counters = None


def start_module_images(scenario: Scenario, *, jobs: int | None = None, cache_dir: Path | None = None,
                        progress: Progress | None = None, model_digest: str = "") -> PendingImages:
    """Start rendering every image the module needs (or taking it from
    ``cache_dir``): the counter faces in worker processes, the board and the
    small images here.  ``model_digest`` (``build/scenario_cache.py``): with
    ``cache_dir``, the counter faces of a scenario with this model are taken
    from the cache's face pack when it has them (not even laid out again),
    and the pack is written when it has not."""
    key = pack_key(model_digest) if cache_dir is not None else ""
    found = _read_pack(cache_dir, key) if cache_dir is not None else None
    pack: tuple[str, int, list[_PackFace]] | None = None
    if found is not None:
        px, packed = found      # the counters' size is the model's, as the faces are
        counter_jobs = _CounterJobs(scenario, [], px, jobs, cache_dir, progress, packed=packed)
        names = [f for f, _ in packed]
    else:
        counter_jobs = _CounterJobs(scenario, [], 0, jobs, cache_dir, progress)
        # the board is drawn by a worker while the faces are laid out here
        counter_jobs.start_board(len(scenario.counters))
        try:
            rc = _counters()
            style = rc.counter_style(scenario)
            px = counter_jobs.px = rc.resolution_px(style, "vassal")
            specs = rc.resolved_specs(scenario, style)
            counter_jobs.start_faces(specs)
            if cache_dir is not None:
                # rendered, or found, by render_all: checked here first.
                # Without a cache each face is checked as it is laid out to
                # be drawn (_render_chunk): a text that cannot fit still
                # ends the build with its located error before anything
                # is written, the workers stopped
                rc.check_text_fits(scenario, specs)
        except BaseException:
            counter_jobs.close()
            raise
        names = [(spec.id, face, rc.face_filename(spec.id, face)) for spec in specs for face, _ in spec.faces]
        if key:
            pack = (key, px, names)
    images = ModuleImages(counter_size=(px, px))
    try:
        for counter_id, face, name in names:
            _name_counter(images, counter_id, face, name)
        # the board: from the cache, or drawn by a worker (forked: it has the
        # scenario) while the others render the counters, or drawn here
        images.board = "board.png"
        if counter_jobs.board_future is None:
            if progress:
                progress("board", 0, 1)
            images.files["board.png"], images.board_size, images.board_warnings = _board(scenario, cache_dir)
            if progress:
                progress("board", 1, 1)
        _name_extras(images, scenario, px)
        _name_cards(images, scenario)
    except BaseException:
        counter_jobs.close()
        raise
    return PendingImages(images, counter_jobs, scenario, pack)


def render_module_images(scenario: Scenario, *, jobs: int | None = None,
                         cache_dir: Path | None = None,
                         progress: Progress | None = None) -> ModuleImages:
    """Render (or take from ``cache_dir``) every image the module needs."""
    pending = start_module_images(scenario, jobs=jobs, cache_dir=cache_dir, progress=progress)
    try:
        return pending.finish()
    finally:
        pending.close()
