"""Loading the ``extensions`` section: optional counters shipped as module
extensions (``vmodtool build --extension NAME``).

Each extension names counters of the scenario; they go into the
extension's palette instead of the module's.  What VASSAL cannot load is
a problem here, located: an extension with no counters (VASSAL fails on
an empty extension), a counter that is not defined or is in two
extensions, and a counter the set-up places (the module's at-start
stacks cannot hold a piece only an extension defines)."""

from __future__ import annotations

from collections.abc import Sequence

from vmodtool.scenario import model as M
from vmodtool.scenario.collector import ProblemCollector

__all__ = ["build_extensions", "EXTENSION_NAME_CHARS"]

#: characters an extension's name may not hold: it is the extension's file name
EXTENSION_NAME_CHARS = '/\\:*?"<>|'


def build_extensions(c: ProblemCollector, counters: Sequence[M.Counter],
                     setup: Sequence[object]) -> list[M.ExtensionSpec]:
    known = [x.id for x in counters]
    placed: dict[str, int | None] = {}
    for entry in setup:
        position = getattr(entry, "position", None)
        for uid in getattr(entry, "units", ()):
            placed.setdefault(uid, getattr(position, "line", None))
    out: list[M.ExtensionSpec] = []
    owner: dict[str, str] = {}
    for ep, _ in c.list_of(("extensions",)):
        name = c.text(ep + ("name",))
        if not name:
            continue
        if any(ch in EXTENSION_NAME_CHARS for ch in name) or name.strip() != name or name.startswith("."):
            c.err(ep + ("name",), f"the extension name {name!r} is its file name: no {EXTENSION_NAME_CHARS} "
                  "characters, no leading dot or surrounding spaces")
        ids: list[str] = []
        for cp, _ in c.list_of(ep + ("counters",)):
            uid = c.ref(cp, known, "counter")
            if uid is None:
                continue
            if uid in owner:
                c.err(cp, f"counter {uid!r} is already in extension {owner[uid]!r}")
                continue
            if uid in placed:
                line = placed[uid]
                c.err(cp, f"counter {uid!r} is placed by the set-up" + (f" (line {line})" if line else "")
                      + ": an extension's counters are not in the module, so its at-start stacks cannot hold them")
                continue
            owner[uid] = name
            ids.append(uid)
        if not ids and not c.get(ep + ("counters",), list, []):
            c.err(ep, f"extension {name!r} has no counters: VASSAL fails on an empty extension")
        out.append(M.ExtensionSpec(name, tuple(ids), str(c.get(ep + ("version",), None, "1.0")),
                                   c.text(ep + ("description",), "") or "", c.pos(ep)))
    c.unique_ids(("extensions",), "name", "extension name")
    return out
