"""Lint of gpids (``docs/vassal-format.md`` §2.4.10): the ids Refresh
Counters matches piece slots and place-marker traits by."""

from __future__ import annotations

from lxml import etree

from vmodtool.lint.codes import registrar
from vmodtool.lint.context import LintRun, java_int_ok

__all__ = ["check_gpids"]


register = registrar(__name__)

register("duplicate-gpid", "error",
         "two piece slots (or place/replace-marker traits) share a gpid: Refresh "
         "Counters matches pieces to the wrong slot")
register("bad-gpid", "warning",
         "an empty or non-numeric gpid (the editor renumbers it on open)")
register("gpid-above-next-id", "warning",
         "nextPieceSlotId is not greater than every gpid: new slots can get used ids")
register("gpid-state-mismatch", "info",
         "the gpid in a slot's BasicPiece state differs from the slot gpid (VASSAL "
         "rewrites it when saving)")


def check_gpids(run: LintRun) -> None:
    """The gpids :mod:`vmodtool.lint.pieces` noted: empty, not numbers, shared,
    above nextPieceSlotId, or another in the slot's state."""
    extension = run.bf.is_extension
    by_id: dict[str, list[tuple[etree._Element, str]]] = {}
    numbers: list[int] = []
    empty = [(element, what) for gpid, element, what in run.gpids if not gpid.strip()]
    if empty:
        run.add("bad-gpid", f"{len(empty)} piece slot(s)/marker trait(s) have no gpid "
                f"(the first: {empty[0][1]}): the editor assigns them on open; Refresh "
                "Counters cannot match them", empty[0][0], detail={"count": len(empty)})
    for gpid, element, what in run.gpids:
        value = gpid.strip()
        number = value.rsplit(":", 1)[-1] if extension and ":" in value else value
        if not value:
            continue
        if not number.isdigit():
            run.add("bad-gpid", f"{what} has gpid {gpid!r}, not a number: the editor "
                    "gives it a new one on open; Refresh Counters cannot match it",
                    element, detail={"gpid": gpid})
            continue
        numbers.append(int(number))
        by_id.setdefault(value, []).append((element, what))
    for gpid, users in by_id.items():
        if len(users) < 2:
            continue
        lines = [run.bf.line_of(e) for e, _ in users]
        run.add("duplicate-gpid", f"gpid {gpid} is used {len(users)} times ("
                + ", ".join(f"{w} line {n}" for (_, w), n in zip(users, lines, strict=True)) + ")",
                users[1][0], detail={"gpid": gpid, "lines": lines})
    next_id = run.bf.root.get("nextPieceSlotId")
    if numbers and next_id is not None and java_int_ok(next_id) and \
            max(numbers) >= int(next_id):
        run.add("gpid-above-next-id", f"nextPieceSlotId is {next_id} but gpid "
                f"{max(numbers)} is in use (write max+1 = {max(numbers) + 1})",
                run.bf.root, detail={"next": int(next_id), "max_gpid": max(numbers)})
    if run.state_gpid_mismatch:
        run.add("gpid-state-mismatch", f"{len(run.state_gpid_mismatch)} slot(s) carry "
                "another gpid in their BasicPiece state than on the slot (the first is "
                "here)", run.state_gpid_mismatch[0],
                detail={"count": len(run.state_gpid_mismatch)})
