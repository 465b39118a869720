"""``vmodtool terrain``: a scenario's terrain read from its board image."""

from __future__ import annotations

from pathlib import Path

import click

from vmodtool.commands import REPLACED, BadInput, Command, check_output, module_option, output_option, warn

__all__ = ["terrain"]


@click.command("terrain", cls=Command)
@click.argument("source", metavar="MODULE|IMAGE", type=click.Path(exists=True, path_type=str))
@click.option("--scenario", "scenario_file", required=True, metavar="SCENARIO",
              type=click.Path(exists=True, dir_okay=False, path_type=str),
              help="The scenario whose grid, terrain types and hexside types are read.")
@click.option("--samples", "samples_file", required=True, metavar="LABELS.yaml",
              type=click.Path(exists=True, dir_okay=False, path_type=str),
              help="A few hexes labelled per terrain type (and hexsides per hexside type).")
@output_option(f"The terrain to write, as scenario YAML ({REPLACED}).", required=True, metavar="FILE.yaml")
@module_option("The module of a scenario whose map is the module's (map.from_module), when the scenario "
               "does not name its file and MODULE|IMAGE is an image.")
@click.option("--picture", "picture_file", default=None, metavar="FILE.png",
              type=click.Path(dir_okay=False, path_type=str),
              help=f"Also draw the result over the board, doubtful hexes outlined ({REPLACED}).")
@click.option("--report-layer", "layer_file", default=None, metavar="LAYER.json",
              type=click.Path(dir_okay=False, path_type=str),
              help=f"Also write the result as a layer for vmodtool report --terrain-layer ({REPLACED}).")
@click.option("--suggest", "suggest_count", type=click.IntRange(0, 1000), default=5, show_default=True,
              help="Name this many hexes whose labels would teach the classifier most.")
@click.option("--keep-typed", is_flag=True,
              help="Keep the hexes and hexsides the scenario already types (they win over the image).")
def terrain(source: str, scenario_file: str, samples_file: str, output: str, module: str | None,
            picture_file: str | None, layer_file: str | None, suggest_count: int, keep_typed: bool) -> None:
    """Read a scenario's terrain from its board image.

    MODULE|IMAGE is the board: an image of it (the VASSAL board, or the same
    board drawn larger for print), or the module whose board the scenario's
    map is (map.from_module).  From a few hexes you label per terrain type
    (--samples), every hex of the scenario's grid gets the type whose
    samples it looks most like, and every hexside the hexside features
    (river, road, bridge …) whose samples it looks like.  The output is the
    scenario's map.terrain and map.hexsides sections, each entry with its
    confidence; the doubtful ones are listed for you to check.

    \b
    LABELS.yaml:
      hexes:
        clear: ["0101", "0102", "0103"]
        woods: ["0401", "0602", "1102"]
      hexsides:
        river: [["0106", "0206"], ["0206", "0306"]]

    \b
    Examples:
      vmodtool terrain board.png --scenario s.yaml --samples labels.yaml -o terrain.yaml
      vmodtool terrain game.vmod --scenario s.yaml --samples l.yaml -o t.yaml --picture t.png --report-layer l.json
    """
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise BadInput("vmodtool terrain needs numpy: pip install 'vmodtool[terrain]'") from None
    from vmodtool.fileio import atomic_write
    from vmodtool.scenario import check_scenario
    from vmodtool.scenario.problems import ScenarioProblems
    from vmodtool.terrain.derive import (
        LOW_CONFIDENCE,
        derive_terrain,
        label_counts,
        read_board_image,
        read_samples,
        terrain_yaml,
    )

    check_output(output, source, scenario_file, samples_file, suffixes=(".yaml", ".yml"),
                 what="scenario YAML")
    if picture_file is not None:
        check_output(picture_file, source, scenario_file, samples_file, output, suffixes=(".png",),
                     what="a PNG picture")
    if layer_file is not None:
        check_output(layer_file, source, scenario_file, samples_file, output, picture_file, suffixes=(".json",),
                     what="a JSON terrain layer")
    image_source = Path(source)
    if module is None and _is_module(image_source):
        module = source
    found, problems = check_scenario(scenario_file, module=module)
    if found is None or any(p.severity == "error" for p in problems):
        raise ScenarioProblems(problems, file=scenario_file)
    scenario = found
    for problem in problems:
        warn(str(problem))
    samples = read_samples(Path(samples_file), scenario)
    image = read_board_image(Path(source), scenario)
    result = derive_terrain(scenario, image, samples, suggest_count)
    atomic_write(output, terrain_yaml(scenario, result, keep=keep_typed, source=source,
                                      samples_file=samples_file).encode("utf-8"))
    counts = label_counts(result)
    features = sum(len(v) for v in result.hexsides.values())
    click.echo(f"wrote {output}: {len(result.hexes)} hexes ("
               + ", ".join(f"{n} {name}" for name, n in sorted(counts.items(), key=lambda kv: -kv[1]))
               + f"), {features} hexside features")
    low = result.low_confidence()
    if low:
        warn(f"{len(low)} hexes of low confidence (< {LOW_CONFIDENCE}): "
             + ", ".join(f"{h} ({t}?)" for h, t, _ in sorted(low, key=lambda t: t[2])[:20])
             + (" …" if len(low) > 20 else ""))
    if result.doubtful_sides:
        warn(f"{len(result.doubtful_sides)} hexsides near a feature's threshold: "
             + ", ".join(f"{a}|{b} ({t}?)" for t, a, b, _ in result.doubtful_sides[:20])
             + (" …" if len(result.doubtful_sides) > 20 else ""))
    sides = max(1, sum(len(scenario.map.grid.neighbours(h)) for h in result.hexes) // 2)
    for type_id, sides_found in result.hexsides.items():
        if len(sides_found) > sides / 3:
            warn(f"{type_id} found on {len(sides_found)} of {sides} hexsides: its samples look like most hexsides "
                 "(check that they are hexsides of that feature)")
    if result.suggested:
        click.echo("label these next (the classifier is least sure of them): " + ", ".join(result.suggested))
    if picture_file is not None:
        from PIL import Image

        from vmodtool.render.terrain_picture import terrain_picture

        picture = terrain_picture(Image.fromarray(image), scenario, result.hexes, result.hexsides,
                                  scale=result.scale, low=LOW_CONFIDENCE)
        buffer = _png(picture)
        atomic_write(picture_file, buffer)
        click.echo(f"wrote {picture_file}")
    if layer_file is not None:
        import json

        from vmodtool.terrain.layer import layer_document

        layer = layer_document(scenario, result.hexes, result.hexsides, LOW_CONFIDENCE)
        atomic_write(layer_file, json.dumps(layer, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
        click.echo(f"wrote {layer_file}")


def _is_module(path: Path) -> bool:
    return path.is_dir() or path.suffix.lower() in (".vmod", ".xml") or path.name == "buildFile"


def _png(image: object) -> bytes:
    import io

    from PIL import Image

    assert isinstance(image, Image.Image)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


COMMANDS = [terrain]
