"""Write Paths of Glory game logs from a real save, to audit an area game on
logs and not only on saves (issue 42).

No log of a Paths of Glory game is in reach, so these are written with
vmodtool's own encoder (:class:`~vmodtool.vassal.gamewriter.GameWriter`) on
the published module (Cattlesquat/PathsOfGlory 10.8), going on from the
position of one of its saves (``Historical10-8.vsav``, the 1914 set-up):
the log's restore part is the save's own (boards, global properties, the
turn), its roster two players of our own, and each step a move of units
between the map's spaces as VASSAL logs a drag.  The module and the save
are not ours to publish, so nothing here is committed: the logs are made
again wherever they are needed (``tests/audit/test_pog_logs.py`` makes them
in a temporary folder)::

    python examples/paths-of-glory/make_logs.py CORPUS_DIR OUT_DIR

``CORPUS_DIR`` holds ``buildFile.xml`` and the save (``../shared/corpus/pog``).
The logs (deterministic: fixed ids, passwords, key and date):

- ``moves.vlog``: legal play only: corps moved along printed lines, three
  spaces brought to exactly three units (the limit, rule 10.1.1).
- ``overstack.vlog``: a 4th French corps dragged into Belfort (step 2) and
  the drag undone (step 3, VASSAL's Undo); two corps dragged in together,
  five units in Belfort (step 4); a German corps joins two in Liege (step 5,
  three: legal); the two corps dragged on to Nancy (step 6: three in each).
- ``unconnected.vlog``: a move to a space with no typed connection (the BEF
  from Brussels to the region "France", which is no printed space).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent.parent) not in sys.path:          # run from a checkout without installing
    sys.path.insert(0, str(HERE.parent.parent))

import yaml  # noqa: E402

from vmodtool.errors import VmodError  # noqa: E402
from vmodtool.fileio import atomic_write  # noqa: E402
from vmodtool.vassal.gamepieces import MissingPrototypeWarning  # noqa: E402
from vmodtool.vassal.gamewriter import GameWriter, Player  # noqa: E402
from vmodtool.vassal.module import Module  # noqa: E402
from vmodtool.vassal.savefile import SavedGame  # noqa: E402

SAVE = "Historical10-8__63fbf0b.vsav"
MODULE = "buildFile.xml"
MAP = "Map"
AP = Player("pog-ap-not-a-secret", "Ann", "Allied Powers")
CP = Player("pog-cp-not-a-secret", "Carl", "Central Powers")
KEY = 0x5A
DATE_SAVED = "1767225600000"                          # 2026-01-01 00:00 UTC


def board_sizes() -> dict[str, tuple[int, int]]:
    """The boards' sizes the example states (their images are not in the
    corpus): ``module.board_sizes`` of ``scenario.yaml``."""
    data = yaml.safe_load((HERE / "scenario.yaml").read_text(encoding="utf-8"))
    return {name: (int(w), int(h)) for name, (w, h) in data["module"]["board_sizes"].items()}


class Table:
    """A game going on from the save: the writer, and units looked up as a
    player sees them (a counter's name in a space)."""

    def __init__(self, corpus: Path) -> None:
        module = Module.open(corpus / MODULE)
        with warnings.catch_warnings():
            # the module names prototypes it does not define (ArmyRebuild_TU …):
            # expanded to nothing, as VASSAL does (docs/vassal-format.md §3.6)
            warnings.simplefilter("ignore", MissingPrototypeWarning)
            self.w = GameWriter.from_save(module, SavedGame.read(corpus / SAVE), players=[AP, CP],
                                          board_sizes=board_sizes())

    def unit(self, name: str, space: str) -> str:
        """The piece id of the counter ``name`` (``FR1``, ``GE3`` …) in ``space``."""
        found = [pid for pid, p in self.w.pieces.items()
                 if p.map == MAP and p.piece.name == name and self.w.location(pid) == space]
        if not found:
            raise ValueError(f"no {name} in {space}")
        return found[0]

    def mv(self, name: str, space: str, to: str, who: Player) -> None:
        self.w.move(self.unit(name, space), to, map_name=MAP, player=who.name)

    def drag(self, names: list[str], space: str, to: str, who: Player) -> None:
        """Several counters of one space dragged together (one step)."""
        ids: list[str] = []
        for name in names:
            ids.append(next(pid for pid in self._all(name, space) if pid not in ids))
        self.w.move_stack(ids, to, map_name=MAP, player=who.name)

    def _all(self, name: str, space: str) -> list[str]:
        return [pid for pid, p in self.w.pieces.items()
                if p.map == MAP and p.piece.name == name and self.w.location(pid) == space]


def moves(t: Table) -> None:
    t.mv("FR1", "Nancy", "Belfort", AP)        # Belfort: FRc, FRc, FR1 (three: the limit)
    t.mv("GE3", "Koblenz", "Metz", CP)         # Metz: GE4, GE5, GE3
    t.mv("FR5", "Sedan", "Verdun", AP)         # Verdun: FR3, FR4, FR5


def overstack(t: Table) -> None:
    t.mv("FR1", "Nancy", "Belfort", AP)        # step 1: three, legal
    t.mv("FR2", "Nancy", "Belfort", AP)        # step 2: a 4th corps in Belfort
    t.w.undo(player=AP.name)                   # step 3: undone (VASSAL's Undo), three again
    t.drag(["FR3", "FR4"], "Verdun", "Belfort", AP)   # step 4: five in Belfort
    t.mv("GE3", "Koblenz", "Liege", CP)        # step 5: Liege three (CP), Belfort still five
    t.drag(["FR3", "FR4"], "Belfort", "Nancy", AP)    # step 6: put right: Belfort three, Nancy three


def unconnected(t: Table) -> None:
    t.mv("BEF", "Brussels", "France", AP)      # "France": a region no printed line reaches
    t.mv("FR5", "Sedan", "Verdun", AP)         # along a printed line


LOGS: dict[str, Callable[[Table], None]] = {"moves": moves, "overstack": overstack, "unconnected": unconnected}


def write_logs(corpus: Path, out: Path) -> dict[str, Path]:
    """Write every log into ``out``; returns name → path."""
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for name, play in LOGS.items():
        table = Table(corpus)
        play(table)
        path = out / f"{name}.vlog"
        atomic_write(path, table.w.to_bytes(key=KEY, date_saved=DATE_SAVED,
                                            comment=f"Paths of Glory: {name} (written by make_logs.py)"))
        written[name] = path
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", type=Path, help="folder with buildFile.xml and " + SAVE)
    parser.add_argument("out", type=Path, help="folder to write the logs into")
    args = parser.parse_args(argv)
    try:
        written = write_logs(args.corpus, args.out)
    except VmodError as exc:                         # (a missing or broken module or save: one line)
        print(f"make_logs.py: {exc}", file=sys.stderr)
        return 2
    for path in written.values():
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
