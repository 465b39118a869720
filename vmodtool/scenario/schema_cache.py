"""The result of a scenario's JSON Schema check, kept in a build's cache
folder (``vmodtool build --cache DIR``): a file whose bytes, schema and
vmodtool version are those of a check that found nothing is not checked
again (the check is a fifth of a large scenario's loading).  Only a clean
result is kept; an entry that cannot be read or does not match is ignored
and the check runs."""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path

from vmodtool.fileio import atomic_write, parse_json
from vmodtool.scenario.problems import Problem
from vmodtool.scenario.schema_check import schema_problems
from vmodtool.scenario.source import Document

__all__ = ["CACHE_NAME", "schema_key", "cached_schema_problems"]

CACHE_NAME = "scenario-schema.json"


def schema_key(path: Path) -> str:
    """The key of a check of the file ``path`` as it is now ('' when it
    cannot be read)."""
    try:
        return _key(hashlib.sha256(path.read_bytes()).hexdigest())
    except OSError:
        return ""


def _key(digest: str) -> str:
    """The key of a check of a document whose bytes have the sha256
    ``digest``: those bytes, the schema's and the package version."""
    from vmodtool import __version__

    h = hashlib.sha256(__version__.encode("utf-8") + b"\0" + digest.encode("ascii") + b"\0")
    try:
        h.update(resources.files("vmodtool").joinpath("data/scenario.schema.json").read_bytes())
    except OSError:
        return ""
    return h.hexdigest()


def cached_schema_problems(doc: Document, cache_dir: Path | None) -> list[Problem]:
    """:func:`schema_problems` of ``doc``, skipped when ``cache_dir`` records
    a clean check of the bytes ``doc`` was parsed from (``Document.digest``)."""
    if cache_dir is None:
        return schema_problems(doc)
    key = _key(doc.digest) if doc.digest else ""
    index = cache_dir / CACHE_NAME
    try:
        if key and parse_json(index.read_text("utf-8")).get("clean") == key:
            return []
    except (OSError, ValueError, AttributeError):
        pass
    problems = schema_problems(doc)
    if key and not problems and cache_dir.is_dir():
        atomic_write(index, json.dumps({"clean": key}).encode("ascii"))
    return problems
