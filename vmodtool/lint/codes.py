"""The registry of lint finding codes.  Each check module registers the
codes it emits beside its checks (``register = registrar(__name__)``, then
``register(code, severity, explanation)``); :data:`CODES` is the public,
read-only view of them all, listed family by family in :data:`FAMILIES`
order (which also sorts the findings of one buildFile line), each family's
in the order it registers them."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from vmodtool.findings import SEVERITIES

__all__ = ["CodeInfo", "CODES", "FAMILIES", "registrar", "family"]


@dataclass(frozen=True)
class CodeInfo:
    """What a finding code means and how bad it is."""

    severity: str
    explanation: str
    #: the code itself (empty for a CodeInfo made outside :func:`registrar`)
    code: str = ""


#: the modules of :mod:`vmodtool.lint` that register codes, in listing order
FAMILIES = ("archive", "attributes", "components", "maps", "traits", "pieces", "gpids", "files",
            "decks", "uniqueness", "extension")

_BY_FAMILY: dict[str, dict[str, CodeInfo]] = {family: {} for family in FAMILIES}
_ALL: dict[str, CodeInfo] = {}


class _Codes(Mapping[str, CodeInfo]):
    """Every registered code → its :class:`CodeInfo`, in listing order."""

    def __getitem__(self, code: str) -> CodeInfo:
        return _ALL[code]

    def __iter__(self) -> Iterator[str]:
        for family in FAMILIES:
            yield from _BY_FAMILY[family]

    def __len__(self) -> int:
        return len(_ALL)

    def __repr__(self) -> str:
        return f"CODES({dict(self)!r})"


#: every finding code, its severity and a one-line explanation
CODES: Mapping[str, CodeInfo] = _Codes()


def registrar(module: str) -> Callable[[str, str, str], CodeInfo]:
    """The ``register(code, severity, explanation)`` of the check module
    named ``module`` (its ``__name__``; one of :data:`FAMILIES`).  A code
    registered twice, or with an unknown severity, is a bug: ValueError."""
    family = module.rsplit(".", 1)[-1]
    if family not in _BY_FAMILY:
        raise ValueError(f"{module} is not a lint check family (vmodtool.lint.codes.FAMILIES)")
    own = _BY_FAMILY[family]

    def register(code: str, severity: str, explanation: str) -> CodeInfo:
        if code in _ALL:
            raise ValueError(f"lint code {code!r} is registered twice")
        if severity not in SEVERITIES:
            raise ValueError(f"lint code {code!r}: unknown severity {severity!r}")
        info = CodeInfo(severity, explanation, code)
        own[code] = info
        _ALL[code] = info
        return info

    return register


def family(code: str) -> str:
    """The check family (module of :mod:`vmodtool.lint`) that registered
    ``code``; KeyError for an unknown code."""
    for name, own in _BY_FAMILY.items():
        if code in own:
            return name
    raise KeyError(code)
