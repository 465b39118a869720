"""The loaded scenario model kept in a build's cache folder (``vmodtool
build --cache DIR``), so that a build of an unchanged scenario does not
parse, check and build it again (for 1,000 counters that, with the imports
of YAML and the schema checker, was a third of a warm build).

An entry is used only when everything the model was made of is as it was:
the scenario file's bytes, every other file and folder the loader read or
looked for (:class:`~vmodtool.scenario.loader.ScenarioInputs`), the path as
given and the working folder (the model keeps paths as given), the source
of the scenario and VASSAL-format layers and of PyYAML, the vmodtool and
Python versions.  Only a model that loaded without errors, without a
module, is kept.  An entry that cannot be read, does not match or does not
unpickle is ignored and the scenario is loaded as if there were no cache
(and the entry written again).

The entry is a pickle (the model is a tree of dataclasses): it is written
and read only in the cache folder the user names, like the rendered
images next to it, and its bytes are checked against the digest recorded
with it before they are unpickled (a damaged entry is never loaded).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import pickle
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vmodtool.fileio import atomic_write
from vmodtool.scenario.limits import MAX_FILE_BYTES
from vmodtool.vassal.grid_numbering import RegularGridNumbering

if TYPE_CHECKING:
    from vmodtool.scenario.model import Scenario

__all__ = ["MODEL_CACHE", "load_build_scenario", "cached_scenario", "model_bytes"]

#: the file of the model cache in the cache folder
MODEL_CACHE = "scenario-model.pickle"
_FORMAT = "vmodtool-scenario-model/1"
_PACKAGE = Path(__file__).resolve().parent.parent
#: the code a model depends on: the package's top modules, the scenario and format layers
_SOURCE_DIRS = ("", "scenario", "vassal")


class _Pickler(pickle.Pickler):
    """Pickles a model without the lazily compiled location formatter a grid
    numbering may hold (a closure; it is compiled again on first use)."""

    def reducer_override(self, obj: Any) -> Any:
        if isinstance(obj, RegularGridNumbering) and obj._compiled is not None:
            state = dict(vars(obj))
            state["_compiled"] = None
            plain = obj.__reduce_ex__(2)       # (copyreg.__newobj__, (class,), state, …)
            return plain[0], plain[1], state
        return NotImplemented


def model_bytes(scenario: Scenario) -> bytes:
    """The pickle of a model as the cache keeps it."""
    buf = io.BytesIO()
    _Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL).dump(scenario)
    return buf.getvalue()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _code_digest() -> str:
    """The vmodtool and Python versions and the code the model is made by:
    the package's top modules, the scenario and VASSAL-format layers and the
    schema, each by name, size and modification time (as Python's own
    bytecode cache judges a source), and PyYAML's version."""
    from vmodtool import __version__

    h = hashlib.sha256(f"{_FORMAT}\0{__version__}\0{sys.version}\0{pickle.HIGHEST_PROTOCOL}\0".encode())
    spec = find_spec("yaml")
    if spec is not None and spec.origin:
        try:
            h.update(Path(spec.origin).read_bytes())         # holds __version__
        except OSError:
            h.update(b"no yaml")
    for sub in (*_SOURCE_DIRS, "data"):
        try:
            with os.scandir(_PACKAGE / sub) as listing:
                found = sorted((e.name, e.stat().st_size, e.stat().st_mtime_ns) for e in listing
                               if e.name.endswith(".py") or e.name == "scenario.schema.json")
        except OSError:
            found = []
        h.update(repr((sub, found)).encode("utf-8"))
    return h.hexdigest()


def _file_state(path: Path) -> str:
    try:
        return _sha(path.read_bytes())
    except OSError:
        return "missing"


def _folder_state(path: Path) -> str:
    return "folder" if path.is_dir() else "missing"


def _key(path: str, digest: str) -> str:
    return _sha(f"{_code_digest()}\0{os.getcwd()}\0{path}\0{digest}".encode())


def cached_scenario(path: str | os.PathLike[str], cache_dir: Path) -> tuple[Scenario, str] | None:
    """The model the cache holds for the scenario file ``path`` as it is
    now and the digest of its pickle, or None (no entry, or one of another
    file, input, code or version, or damaged)."""
    try:
        raw = (cache_dir / MODEL_CACHE).read_bytes()
        head, _, payload = raw.partition(b"\n")
        index = json.loads(head)
        if not isinstance(index, dict) or index.get("format") != _FORMAT:
            return None
        with open(path, "rb") as stream:     # no further than the loader reads
            text = stream.read(MAX_FILE_BYTES + 1)
        if len(text) > MAX_FILE_BYTES:
            return None
        digest = _sha(text)
        if index.get("key") != _key(os.fspath(path), digest):
            return None
        for name, state in index["files"]:
            if _file_state(Path(name)) != state:
                return None
        for name, state in index["folders"]:
            if _folder_state(Path(name)) != state:
                return None
        model_digest = _sha(payload)
        if model_digest != index.get("sha256"):
            return None
        scenario = pickle.loads(payload)   # our own entry, its digest checked above
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError, EOFError, ImportError,
            pickle.UnpicklingError):
        return None                         # any damage means: load the scenario afresh
    from vmodtool.scenario.model import Scenario

    return (scenario, model_digest) if isinstance(scenario, Scenario) else None


def load_build_scenario(path: str | os.PathLike[str], cache_dir: Path | None) -> tuple[Scenario, str]:
    """The scenario of a build and the digest of its model (the sha256 of
    its pickle; '' when it is not kept): from the cache when it holds the
    model of the file as it is now, else loaded (raising every problem, as
    :func:`~vmodtool.scenario.load_scenario`) and kept in the cache.  The
    digest keys what is made of the model alone (``build/images.py``'s
    face pack)."""
    if cache_dir is not None:
        found = cached_scenario(path, cache_dir)
        if found is not None:
            return found
    from vmodtool.scenario.loader import ScenarioInputs, load_scenario

    inputs = ScenarioInputs()
    scenario = load_scenario(path, cache_dir=cache_dir, inputs=inputs)
    digest = ""
    if cache_dir is not None and inputs.digest and not inputs.module:
        digest = _store(path, cache_dir, scenario, inputs)
    return scenario, digest


def _store(path: str | os.PathLike[str], cache_dir: Path, scenario: Scenario, inputs: Any) -> str:
    try:
        payload = model_bytes(scenario)
    except (pickle.PicklingError, TypeError, AttributeError):
        return ""       # a model holding something that does not pickle is not kept
    index = {"format": _FORMAT, "key": _key(os.fspath(path), inputs.digest),
             "files": [[os.fspath(f), _file_state(f)] for f in inputs.files],
             "folders": [[os.fspath(f), _folder_state(f)] for f in inputs.folders],
             "sha256": _sha(payload)}
    head = json.dumps(index, ensure_ascii=True).encode("ascii")
    cache_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(cache_dir / MODEL_CACHE, head + b"\n" + payload)
    return str(index["sha256"])
