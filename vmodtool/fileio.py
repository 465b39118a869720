"""File output helpers shared by every layer: atomic writes that never
destroy an input."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Union

from vmodtool.errors import VmodError

PathLike = Union[str, "os.PathLike[str]"]


def atomic_write(path: PathLike, data: bytes | Iterable[bytes]) -> None:
    """Write ``data`` to ``path`` atomically: into a temporary file in the
    same folder, flushed to disk, then renamed over the target.  A reader
    never sees a half-written file and an interrupted run leaves the old file
    intact."""
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise VmodError(f"the output folder {folder} does not exist", file=target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        # mkstemp makes the file private (0600); give it the mode a normal
        # open() would (or keep the mode of the file it replaces)
        try:
            mode = os.stat(target).st_mode & 0o7777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as out:
            if isinstance(data, (bytes, bytearray, memoryview)):
                out.write(data)
            else:
                for chunk in data:
                    out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def refuse_overwrite(output: PathLike, *inputs: PathLike) -> None:
    """Raise :class:`VmodError` when ``output`` is one of ``inputs``."""
    out = Path(output)
    for item in inputs:
        src = Path(item)
        try:
            same = out.exists() and src.exists() and os.path.samefile(out, src)
        except OSError:
            same = False
        if same or out.resolve() == src.resolve():
            raise VmodError("refusing to overwrite an input file; choose another output path",
                            file=out)
