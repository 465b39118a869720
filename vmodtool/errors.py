"""The error types of vmodtool.

Every error a user can cause (a bad file, a bad option value) is a
:class:`VmodError`: it names the file, the place in it (line, entry, byte
offset, command index, step …) and what was expected.  The CLI turns a
``VmodError`` into one line on stderr and exit code 2; any other exception is
a bug in vmodtool.  ``str()`` of an error is always one line.
"""

from __future__ import annotations

import os
from typing import Any, Union

PathLike = Union[str, "os.PathLike[str]"]


class VmodError(Exception):
    """Base class of every error vmodtool reports to a user.

    ``file`` is the file the problem is in (or ``None``), ``place`` says where
    in it (``"entry savedGame, byte 1234"``, ``"line 12"``, ``"command 3.1"``)
    and ``message`` what is wrong and what was expected.
    """

    def __init__(self, message: str, *, file: PathLike | None = None,
                 place: str | None = None) -> None:
        self.message = message
        self.file = os.fspath(file) if file is not None else None
        self.place = place
        super().__init__(str(self))

    def __str__(self) -> str:
        """``file: place: message`` on one line, whatever the parts hold: a
        library's message (libxml2, zipfile, Pillow, YAML) or a name from
        the file may carry newlines or terminal controls, so they are
        written as visible escapes (:func:`vmodtool.textsafe.escape_controls`)
        and surrounding white space is dropped."""
        # imported here, not at the top: the plug-in API stays light
        from vmodtool.textsafe import escape_controls

        parts = []
        if self.file:
            parts.append(self.file)
        if self.place:
            parts.append(self.place)
        parts.append(self.message)
        return ": ".join(escape_controls(part.strip()) for part in parts)

    def located(self, *, file: PathLike | None = None,
                place: str | None = None) -> VmodError:
        """Return a copy of this error with ``file``/``place`` filled in
        where they are still unknown (an outer reader knows the file name,
        an inner decoder only the offset).  An outer place is put in front
        of the inner one (``entry savedGame`` + ``byte 12``)."""
        new_place = self.place
        if place:
            new_place = f"{place}, {self.place}" if self.place else place
        return _rebuild_error(type(self), dict(
            self.__dict__, file=self.file or (os.fspath(file) if file is not None else None), place=new_place))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled with its fields (``file``, ``place``, a subclass's own),
        so that an error raised in a worker process reaches the caller as
        it was raised, still able to be :meth:`located`."""
        return _rebuild_error, (type(self), dict(self.__dict__))


def _rebuild_error(cls: type[VmodError], fields: dict[str, Any]) -> VmodError:
    """A :class:`VmodError` from its pickled fields (:meth:`VmodError.__reduce__`)."""
    err = cls.__new__(cls)
    err.__dict__.update(fields)
    Exception.__init__(err, str(err))
    return err


class FormatError(VmodError):
    """A VASSAL file (module, save, log, buildFile …) is malformed or unsafe."""


class UnsafeFileError(FormatError):
    """A file was refused because reading it could harm the machine: a zip
    entry that escapes its folder, a decompression bomb, an XML external
    entity or entity expansion."""


class ScenarioError(VmodError):
    """A scenario file does not follow the scenario format."""
