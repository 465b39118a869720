"""Counter templates: the small declarative YAML files (``templates/`` in
the source tree, ``vmodtool/templates`` in the wheel) that say where the
regions of a counter face lie and how they are drawn, and the art they
name (``counters/art.yaml``, ``vmodtool/counters`` in the wheel).

A template is checked against ``template.schema.json`` and becomes a
:class:`CounterTemplate` (plain, hashable, picklable data); a scenario names
one in ``styles.counter.template`` by a bundled name or by a path relative
to the scenario's folder.  Problems are :class:`TemplateError` with the
template file and line.  The renderer (``render/counters.py``) reads only
the resolved :class:`CounterTemplate`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vmodtool.errors import ScenarioError

if TYPE_CHECKING:
    from vmodtool.scenario.source import Document

__all__ = ["CounterTemplate", "TemplateError", "TemplateRef", "bundled_templates", "template_file",
           "load_template", "art_library", "art_file", "DEFAULT_TEMPLATE", "template_refs", "templates_dir",
           "template_document", "template_error", "is_template_file", "side_entry", "template_schema"]

DEFAULT_TEMPLATE = "nato"
_PACKAGE = Path(__file__).resolve().parent.parent      # vmodtool/


class TemplateError(ScenarioError):
    """A template (or the art it names) that cannot be used."""


def _data_dir(installed: str, source: str) -> Path:
    """The folder of shipped data: inside the installed package, else the
    source tree's top-level folder (a checkout run without installing)."""
    inside = _PACKAGE / installed
    if inside.is_dir():
        return inside
    return _PACKAGE.parent / source


def templates_dir() -> Path:
    return _data_dir("templates", "templates")


def art_file() -> Path:
    return _data_dir("counters", "counters") / "art.yaml"


def bundled_templates() -> dict[str, Path]:
    """Name → file of every template shipped with vmodtool."""
    folder = templates_dir()
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))} if folder.is_dir() else {}


@dataclass(frozen=True)
class CounterTemplate:
    """A counter template, resolved (see ``templates/template.schema.json``)."""

    name: str
    description: str = ""
    symbol: str = "nato"                               # nato | art
    art_box: tuple[float, float, float, float] = (0.16, 0.3, 0.84, 0.6)
    size_mark: bool = True
    art_default: str | None = None
    art_by_type: tuple[tuple[str, str], ...] = ()
    art_by_symbol: tuple[tuple[str, str], ...] = ()
    art_by_size: tuple[tuple[str, str], ...] = ()
    art_by_tag: tuple[tuple[str, str], ...] = ()
    top: float = 0.18
    bottom: float = 0.2
    operational_bottom: float = 0.25
    side: float = 0.15
    label_size: float = 0.16
    label_font: str | None = None
    font: str | None = None
    corners: str = "plain"                             # plain | boxed
    pip_size: float = 0.065
    stripe: float = 0.07
    formation: float = 0.055
    reduced: float = 0.05
    sides: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()

    def art_for(self, type_id: str, symbol: str | None, size: str | None,
                tags: frozenset[str] | tuple[str, ...]) -> str | None:
        """The art a unit type gets: by its id, NATO symbol, NATO size, tag
        (in that order), else the default; None keeps the NATO symbol."""
        if self.symbol != "art":
            return None
        for table, key in ((self.art_by_type, type_id), (self.art_by_symbol, symbol),
                           (self.art_by_size, size)):
            for k, v in table:
                if k == key:
                    return v
        for k, v in self.art_by_tag:
            if k in tags:
                return v
        return self.art_default

    def side_style(self, side: str) -> Mapping[str, str]:
        return side_entry(self.sides, side)


def side_entry(sides: tuple[tuple[str, tuple[tuple[str, str], ...]], ...], side: str | None) -> dict[str, str]:
    """A template's settings for ``side`` (its ``sides`` pairs), or none."""
    for k, v in sides:
        if k == side:
            return dict(v)
    return {}


@lru_cache(maxsize=4)
def template_schema(path: Path) -> dict[str, Any]:
    """A template JSON Schema, read once."""
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


def _schema() -> dict[str, Any]:
    return template_schema(templates_dir() / "template.schema.json")


@lru_cache(maxsize=1)
def art_library() -> Mapping[str, Mapping[str, Any]]:
    """The shipped art: name → {view, shapes} (``counters/art.yaml``)."""
    import yaml

    path = art_file()
    # the C parser when PyYAML has it (the same safe constructor: 0.004 s
    # instead of 0.034 for the shipped art, which every cold build reads)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(path.read_text("utf-8"), Loader=loader)
    except (OSError, yaml.YAMLError) as exc:
        raise TemplateError(f"the counter art cannot be read ({exc}); reinstall vmodtool", file=path) from None
    if not isinstance(data, dict):
        raise TemplateError("the counter art must be a map of names to shapes", file=path)
    return data


def template_file(ref: str, folder: Path | None) -> Path | None:
    """The file a template reference names: a bundled name, else a path
    relative to ``folder`` (the scenario's); None when there is none."""
    bundled = bundled_templates()
    if ref in bundled:
        return bundled[ref]
    if folder is not None and (ref.endswith((".yaml", ".yml")) or "/" in ref):
        candidate = folder / ref
        if is_template_file(candidate):
            return candidate
    return None


def file_in_folder(folder: Path, ref: str) -> Path | None:
    """``folder / ref`` when it is a file inside ``folder`` once ``..`` and
    symbolic links are resolved; None otherwise.  A template a scenario
    file names, like its images, must be in the scenario's folder (checked
    when the scenario is loaded; a template named on the command line, as
    ``templates show FILE`` does, may be anywhere)."""
    candidate = folder / ref
    try:
        candidate.resolve().relative_to(folder.resolve())
    except (ValueError, OSError, RuntimeError):
        return None
    return candidate if is_template_file(candidate) else None


def is_template_file(path: Path) -> bool:
    """Whether ``path`` is a file; False for a name no file can have (too
    long, a NUL byte), which a scenario may write."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _pairs(raw: Any) -> tuple[tuple[str, str], ...]:
    return tuple((str(k), str(v)) for k, v in (raw or {}).items())


def load_template(path: Path) -> CounterTemplate:
    """Read and check a template file (cached by its bytes)."""
    try:
        blob = path.read_bytes()
    except OSError as exc:
        raise TemplateError(f"the template cannot be read ({exc.strerror})", file=path) from None
    return _parse(str(path), blob)


def template_document(file: str, blob: bytes, schema: Mapping[str, Any], schema_name: str) -> Document:
    """A template file's bytes as a YAML document checked against ``schema``
    (``schema_name``, for the message): a :class:`TemplateError` at the
    line of the first problem.  Counter and card templates are read by it."""
    from vmodtool.scenario.schema_verdict import verdict_of
    from vmodtool.scenario.source import load_yaml

    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError:
        raise TemplateError("a template must be UTF-8 text", file=file) from None
    doc = load_yaml(text, file)
    if doc.problems or doc.data is None:
        first = doc.problems[0] if doc.problems else None
        raise TemplateError(first.message if first else "not a template", file=file,
                            place=f"line {first.line}" if first and first.line else None)
    verdict = verdict_of(schema)
    if verdict is not None and verdict(doc.data):
        return doc                       # valid: jsonschema is imported only to word a problem
    import jsonschema

    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc.data),
                    key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        e = errors[0]
        where = ".".join(str(x) for x in e.absolute_path) or "the template"
        raise template_error(doc, tuple(e.absolute_path), f"{where}: {e.message} (see templates/{schema_name})")
    return doc


def template_error(doc: Document, path: tuple[str | int, ...], message: str) -> TemplateError:
    """A :class:`TemplateError` at the line of ``path`` in the template ``doc``."""
    line, _ = doc.where(path)
    return TemplateError(message, file=doc.file, place=f"line {line}" if line else None)


@lru_cache(maxsize=64)
def _parse(file: str, blob: bytes) -> CounterTemplate:
    doc = template_document(file, blob, _schema(), "template.schema.json")
    data = doc.data
    art = data.get("art") or {}
    known_art = art_library()
    for table in ("by_type", "by_symbol", "by_size", "by_tag"):
        for key, name in (art.get(table) or {}).items():
            if name not in known_art:
                p = doc.problem(("art", table, key), "")
                raise TemplateError(f"art.{table}.{key}: unknown art {name!r}; the art is: "
                                    f"{', '.join(sorted(known_art))}", file=file,
                                    place=f"line {p.line}" if p.line else None)
    if art.get("default") is not None and art["default"] not in known_art:
        raise TemplateError(f"art.default: unknown art {art['default']!r}", file=file)
    rows = data.get("rows") or {}
    label = data.get("label") or {}
    bands = data.get("bands") or {}
    box = tuple(float(v) for v in data.get("art_box", CounterTemplate.art_box))
    if not (box[0] < box[2] and box[1] < box[3]):
        raise TemplateError("art_box: write it as [x0, y0, x1, y1] with x0 < x1 and y0 < y1", file=file)
    return CounterTemplate(
        name=str(data["name"]), description=str(data.get("description", "")),
        symbol=str(data.get("symbol", "nato")), art_box=(box[0], box[1], box[2], box[3]),
        size_mark=bool(data.get("size_mark", True)), art_default=art.get("default"),
        art_by_type=_pairs(art.get("by_type")), art_by_symbol=_pairs(art.get("by_symbol")),
        art_by_size=_pairs(art.get("by_size")), art_by_tag=_pairs(art.get("by_tag")),
        top=float((rows.get("top") or {}).get("size", 0.18)),
        bottom=float((rows.get("bottom") or {}).get("size", 0.2)),
        operational_bottom=float((rows.get("operational_bottom") or {}).get("size", 0.25)),
        side=float((rows.get("side") or {}).get("size", 0.15)),
        label_size=float(label.get("size", 0.16)), label_font=label.get("font"), font=data.get("font"),
        corners=str((data.get("corners") or {}).get("style", "plain")),
        pip_size=float((data.get("pips") or {}).get("size", 0.065)),
        stripe=float(bands.get("stripe", 0.07)), formation=float(bands.get("formation", 0.055)),
        reduced=float(bands.get("reduced", 0.05)),
        sides=tuple((str(k), _pairs(v)) for k, v in (data.get("sides") or {}).items()))


@dataclass(frozen=True)
class TemplateRef:
    """Which template applies: the default and per side / per unit type
    (``styles.counter.template`` as a name or ``{default, sides, unit_types}``)."""

    default: str = DEFAULT_TEMPLATE
    sides: tuple[tuple[str, str], ...] = ()
    unit_types: tuple[tuple[str, str], ...] = ()

    def for_unit(self, type_id: str, side: str) -> str:
        for k, v in self.unit_types:
            if k == type_id:
                return v
        for k, v in self.sides:
            if k == side:
                return v
        return self.default


def template_refs(raw: Any) -> TemplateRef:
    """``styles.counter.template`` (already checked by the schema) as a
    :class:`TemplateRef`."""
    if raw is None:
        return TemplateRef()
    if isinstance(raw, str):
        return TemplateRef(raw)
    if isinstance(raw, Mapping):
        return TemplateRef(str(raw.get("default", DEFAULT_TEMPLATE)), _pairs(raw.get("sides")),
                           _pairs(raw.get("unit_types")))
    raise TemplateError("styles.counter.template must be a template name, a path or "
                        "{default, sides, unit_types}")
