"""``vmodtool build``: scenario file → ``.vmod``, the whole pipeline.

Validate the scenario (nothing is written when it has errors), render the
counters and the board, assemble the module, and write it atomically (an
existing output is replaced in one step, never half-written)."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Union

from vmodtool.assemble.images import renders_in_workers, start_module_images
from vmodtool.errors import VmodError
from vmodtool.fileio import atomic_write, output_folder, refuse_overwrite
from vmodtool.gc_policy import relaxed_gc

if TYPE_CHECKING:
    from vmodtool.assemble.module import ModuleBuild

__all__ = ["build_module_file", "BuildSummary", "build_extension_file", "ExtensionSummary"]

PathLike = Union[str, "os.PathLike[str]"]
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class BuildSummary:
    """What :func:`build_module_file` wrote: the module file and its size, how
    many piece slots, prototypes and images it holds, the board's size in
    pixels and the game's title (what ``vmodtool build`` reports)."""

    output: Path
    bytes: int
    pieces: int
    prototypes: int
    images: int
    board_size: tuple[int, int]
    title: str
    #: the board renderer's warnings (as ``vmodtool board`` prints them), drawn or from the cache
    warnings: tuple[str, ...] = ()


def _checked() -> None:
    """The schema check of a scenario taken from the cache (done)."""


def build_module_file(scenario_path: PathLike, output: PathLike, *, jobs: int | None = None,
                      cache_dir: PathLike | None = None,
                      progress: Progress | None = None) -> BuildSummary:
    """Build the module of a scenario file into ``output``."""
    out = Path(output)
    refuse_overwrite(out, scenario_path)
    if out.suffix.lower() not in (".vmod", ".zip"):
        raise VmodError("the module file name should end in .vmod", file=out)
    if cache_dir is not None:
        output_folder(cache_dir)
    # raises with every problem; writes nothing (but the cache).  Without a
    # cache the schema check waits until the workers are drawing (the model's
    # own checks passed: a model they can work on), and it still refuses
    # the scenario, with every problem, before anything is written
    check_schema: Callable[[], None] = _checked
    if cache_dir is None:
        from vmodtool.scenario.loader import load_scenario_unchecked

        scenario, check_schema = load_scenario_unchecked(scenario_path)
        model_digest = ""
        if not renders_in_workers(len(scenario.counters), jobs):
            check_schema()               # nothing to overlap it with
            check_schema = _checked
    else:
        from vmodtool.assemble.scenario_cache import load_build_scenario

        scenario, model_digest = load_build_scenario(scenario_path, Path(cache_dir))
    if scenario.map.module_map is not None:
        check_schema()
        raise VmodError(f"the scenario's map is map {scenario.map.module_map!r} of the module it binds "
                        "(map.from_module): it describes a game played with that module, which 'vmodtool build' "
                        "does not make; give the scenario its own map.grid to build a module", file=scenario_path)
    boards = [m.board_image for m in (scenario.map, *scenario.maps) if m.board_image is not None]
    boards += [b.image for b in scenario.map.boards if b.image is not None]
    for extra in boards + [c.image for c in scenario.charts]:
        refuse_overwrite(out, extra)
    # the model and the modules loaded so far are frozen for the collector
    # before the render workers fork (they inherit it), and the buildFile's
    # elements are made without a collection (gc_policy.relaxed_gc)
    with relaxed_gc():
        pending = start_module_images(scenario, jobs=jobs, cache_dir=Path(cache_dir) if cache_dir else None,
                                      progress=progress, model_digest=model_digest)
        # imported once the workers have forked, while they draw (they do not assemble)
        from vmodtool.assemble.module import assemble_module

        def images_ready() -> None:
            pending.finish()
            if progress:
                progress("module", 0, 1)

        try:
            check_schema()
            # the buildFile is made while the workers render the counter faces
            build: ModuleBuild = assemble_module(scenario, pending.images, images_ready=images_ready)
        finally:
            pending.close()
        images = pending.images
        data = build.to_bytes()
    atomic_write(out, data)
    if progress:
        progress("module", 1, 1)
    return BuildSummary(out, len(data), build.slots, build.prototypes,
                        sum(1 for name in build.entries if name.startswith("images/")),
                        images.board_size, scenario.game.title, tuple(images.board_warnings))


@dataclass(frozen=True)
class ExtensionSummary:
    """What :func:`build_extension_file` wrote: the extension file and its
    size, its name, how many piece slots and images it holds, and the
    module (title and version) it extends."""

    output: Path
    bytes: int
    name: str
    pieces: int
    images: int
    module: str
    module_version: str


def build_extension_file(scenario_path: PathLike, name: str, output: PathLike, *, jobs: int | None = None,
                         cache_dir: PathLike | None = None,
                         progress: Progress | None = None) -> ExtensionSummary:
    """Build the extension ``name`` (of the scenario's ``extensions``) into
    ``output`` (``.vmdx``): the module is assembled in memory as
    :func:`build_module_file` writes it, so that the extension's targets,
    prototypes and ``moduledata`` are that module's."""
    out = Path(output)
    refuse_overwrite(out, scenario_path)
    if out.suffix.lower() not in (".vmdx", ".vext", ".zip"):
        raise VmodError("the extension file name should end in .vmdx", file=out)
    if cache_dir is not None:
        output_folder(cache_dir)
        from vmodtool.assemble.scenario_cache import load_build_scenario

        scenario, model_digest = load_build_scenario(scenario_path, Path(cache_dir))
    else:
        from vmodtool.scenario.loader import load_scenario

        scenario, model_digest = load_scenario(scenario_path), ""
    from vmodtool.assemble.extension import assemble_extension, find_extension

    spec = find_extension(scenario, name)
    if scenario.map.module_map is not None:
        raise VmodError("the scenario's map is taken from a module (map.from_module): 'vmodtool build' "
                        "makes no module of it, nor an extension", file=scenario_path)
    with relaxed_gc():
        pending = start_module_images(scenario, jobs=jobs, cache_dir=Path(cache_dir) if cache_dir else None,
                                      progress=progress, model_digest=model_digest)
        from vmodtool.assemble.module import assemble_module

        try:
            build = assemble_module(scenario, pending.images, images_ready=pending.finish)
        finally:
            pending.close()
        made = assemble_extension(scenario, pending.images, spec, build.entries)
        data = made.to_bytes()
    atomic_write(out, data)
    root = build.buildfile.root
    return ExtensionSummary(out, len(data), spec.name, made.slots,
                            sum(1 for entry in made.entries if entry.startswith("images/")),
                            root.get("name", ""), root.get("version", ""))
