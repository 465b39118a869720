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

The entry is a pickle (the model is a tree of dataclasses), and unpickling
runs whatever a pickle names: so it is signed (HMAC-SHA256) with a secret
that only this user's vmodtool knows (:func:`user_secret`, a random key in
the user's cache folder, readable by the user alone), and unpickled only
when the signature checks out.  A cache folder from someone else — shared
in a repository, unpacked from an archive, crafted — is therefore never
unpickled: its model entry is ignored and the scenario loaded afresh.
Without a usable secret (a read-only home) no model is kept or read.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import os
import pickle
import sys
import tempfile
from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vmodtool.fileio import atomic_write, output_folder
from vmodtool.scenario.limits import MAX_FILE_BYTES
from vmodtool.vassal.grid_numbering import RegularGridNumbering

if TYPE_CHECKING:
    from vmodtool.scenario.model import Scenario

__all__ = ["MODEL_CACHE", "load_build_scenario", "cached_scenario", "model_bytes", "user_secret"]

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


#: the secret's length (bytes) and file name in the user's cache folder
_SECRET_BYTES = 32
_SECRET_FILE = "cache-signing-key"


def _user_cache_home() -> Path:
    base = os.environ.get("XDG_CACHE_HOME")
    return Path(base) if base else Path.home() / ".cache"


def _make_secret(folder: Path, path: Path) -> None:
    """Write a new key beside ``path`` and link it into place whole: a
    process starting at the same moment reads either no key or a whole one,
    never a file still empty (a key is never replaced: of two made at once,
    the first linked stands)."""
    fd, temp = tempfile.mkstemp(prefix=".key-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(os.urandom(_SECRET_BYTES))
            fh.flush()
            os.fsync(fh.fileno())
        try:
            os.link(temp, path)
        except FileExistsError:
            pass
    finally:
        os.unlink(temp)


def user_secret() -> bytes | None:
    """This user's signing key of cached models: read from
    ``$XDG_CACHE_HOME/vmodtool/cache-signing-key`` (``~/.cache`` without it),
    made there (random, mode 0600, never replaced) on first use; ``None``
    when it cannot be read or made, or is not the user's own private file."""
    folder = _user_cache_home() / "vmodtool"
    path = folder / _SECRET_FILE
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not os.path.lexists(path):
            _make_secret(folder, path)
        info = os.stat(path, follow_symlinks=False)
        if not os.path.isfile(path) or os.path.islink(path):
            return None
        if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o077):
            return None                      # someone else's, or readable by others: not a secret
        secret = path.read_bytes()
    except OSError:
        return None
    return secret if len(secret) == _SECRET_BYTES else None


def _signature(secret: bytes, head: bytes, payload: bytes) -> str:
    return hmac.new(secret, head + b"\n" + payload, hashlib.sha256).hexdigest()


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
    secret = user_secret()
    if secret is None:
        return None
    try:
        raw = (cache_dir / MODEL_CACHE).read_bytes()
        signature, _, rest = raw.partition(b"\n")
        head, _, payload = rest.partition(b"\n")
        # nothing of the entry is trusted before its signature is checked
        if not hmac.compare_digest(signature.decode("ascii"), _signature(secret, head, payload)):
            return None
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
        scenario = pickle.loads(payload)   # signed by this user's vmodtool (checked above)
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError, EOFError, ImportError,
            UnicodeDecodeError, pickle.UnpicklingError):
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
    secret = user_secret()
    if secret is None:
        return ""       # no secret to sign with: the model is not kept
    try:
        payload = model_bytes(scenario)
    except (pickle.PicklingError, TypeError, AttributeError):
        return ""       # a model holding something that does not pickle is not kept
    index = {"format": _FORMAT, "key": _key(os.fspath(path), inputs.digest),
             "files": [[os.fspath(f), _file_state(f)] for f in inputs.files],
             "folders": [[os.fspath(f), _folder_state(f)] for f in inputs.folders],
             "sha256": _sha(payload)}
    head = json.dumps(index, ensure_ascii=True).encode("ascii")
    output_folder(cache_dir)
    signature = _signature(secret, head, payload).encode("ascii")
    atomic_write(cache_dir / MODEL_CACHE, signature + b"\n" + head + b"\n" + payload)
    return str(index["sha256"])
