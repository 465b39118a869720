"""Write a game log of each Marne scenario, played with the AEF extension.

The module and its extension are built from ``scenario.yaml`` exactly as
``vmodtool build`` and ``vmodtool build --extension AEF`` make them, into
``OUT_DIR``; each game starts from its scenario's predefined setup (the
``.vsav`` File > New Game loads) and is written with vmodtool's own encoder
(:class:`~vmodtool.vassal.gamewriter.GameWriter`) with the extension loaded,
so every log registers it as VASSAL does (``EXT``)::

    python examples/marne-1918/make_logs.py OUT_DIR

The logs (deterministic: fixed ids, passwords, key and date; nothing here is
committed, the tests make them in a temporary folder):

- ``chateau-thierry.vlog``: legal play; the US 3rd Division comes out of the
  reinforcement box on turn 2 and the 26th US Division (an AEF piece) is
  dragged out of the extension's palette next to it.
- ``belleau-wood.vlog``: legal play; the 344th Tank Battalion (AEF) enters
  west of the wood and moves one hex.
- ``second-marne.vlog``: the German reserve moves on the strategic map
  (Soissons to Château-Thierry, judged on that map's grid) and then onto
  the main map; no grid joins the two windows, so the audit says NOT
  CHECKED for that move (``move.allowance``, exit code 3), never "clean".
"""

from __future__ import annotations

import argparse
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE.parent.parent) not in sys.path:          # run from a checkout without installing
    sys.path.insert(0, str(HERE.parent.parent))

from vmodtool.assemble.builder import build_extension_file, build_module_file  # noqa: E402
from vmodtool.fileio import atomic_write  # noqa: E402
from vmodtool.vassal.extension import open_extended  # noqa: E402
from vmodtool.vassal.gamewriter import GameWriter, Player  # noqa: E402
from vmodtool.vassal.savefile import SavedGame  # noqa: E402

SCENARIO = HERE / "scenario.yaml"
EXTENSION = "AEF"
MAIN = "Marne front"
SALIENT = "Marne salient (strategic)"
GER, ALL = "German Empire", "Allies"
PLAYERS = [Player("marne-ger-not-a-secret", "Fritz", GER), Player("marne-all-not-a-secret", "Tom", ALL)]
KEY = 0x5A
DATE_SAVED = "1767225600000"                          # 2026-01-01 00:00 UTC


def build(out: Path) -> tuple[Path, Path]:
    """The module and the AEF extension, built into ``out``."""
    module, extension = out / "marne.vmod", out / f"{EXTENSION}.vmdx"
    build_module_file(SCENARIO, module, jobs=1)
    build_extension_file(SCENARIO, EXTENSION, extension, jobs=1)
    return module, extension


def _start(w: GameWriter, module: Path, scenario_id: str) -> None:
    """The game begins from the scenario's predefined setup."""
    with zipfile.ZipFile(module) as archive:
        w.restore(SavedGame.from_bytes(archive.read(f"{scenario_id}.vsav"), file=f"{scenario_id}.vsav"))
    w.snapshot()


def _phase(w: GameWriter, turn: int, side: str, phase: str) -> None:
    w.report(f"TT|{turn}|{side}|{phase}")


def chateau_thierry(w: GameWriter) -> None:
    _phase(w, 1, GER, "Movement Phase")
    w.move(w.find(UnitId="ger.inf.2"), "0503", map_name=MAIN, player="Fritz")
    w.move(w.find(UnitId="ger.inf.3"), "0604", map_name=MAIN, player="Fritz")
    _phase(w, 1, GER, "Combat Phase")
    _phase(w, 1, ALL, "Movement Phase")
    _phase(w, 1, ALL, "Combat Phase")
    _phase(w, 2, GER, "Movement Phase")
    _phase(w, 2, GER, "Combat Phase")
    _phase(w, 2, ALL, "Movement Phase")
    w.move(w.find(UnitId="all.us.2"), "0507", map_name=MAIN, player="Tom")          # arrives at the bridge
    w.add(w.palette_slot(UnitId="all.us.26"), "0407", MAIN, player="Tom")            # an AEF division
    _phase(w, 2, ALL, "Combat Phase")
    _phase(w, 3, GER, "Movement Phase")


def belleau_wood(w: GameWriter) -> None:
    _phase(w, 3, GER, "Movement Phase")
    _phase(w, 3, GER, "Combat Phase")
    _phase(w, 3, ALL, "Movement Phase")
    tank = w.add(w.palette_slot(UnitId="all.tk344"), "0104", MAIN, player="Tom")     # the AEF tanks enter
    w.move(tank, "0105", map_name=MAIN, player="Tom")
    w.move(w.find(UnitId="all.fr.2"), "0304", map_name=MAIN, player="Tom")
    _phase(w, 3, ALL, "Combat Phase")
    _phase(w, 4, GER, "Movement Phase")


def second_marne(w: GameWriter) -> None:
    _phase(w, 1, GER, "Movement Phase")
    reserve = w.find(UnitId="ger.inf.1")
    w.move(reserve, "03.02", map_name=SALIENT, player="Fritz")                       # on the strategic map
    w.move(reserve, "03.03", map_name=SALIENT, player="Fritz")
    w.move(w.find(UnitId="ger.inf8.2"), "1004", map_name=MAIN, player="Fritz")
    _phase(w, 1, GER, "Combat Phase")
    _phase(w, 1, ALL, "Movement Phase")
    _phase(w, 1, ALL, "Combat Phase")
    _phase(w, 2, GER, "Movement Phase")
    w.move(reserve, "0504", map_name=MAIN, player="Fritz")          # down to the front: between windows
    _phase(w, 2, GER, "Combat Phase")


GAMES = {"chateau-thierry": chateau_thierry, "belleau-wood": belleau_wood, "second-marne": second_marne}


def write_logs(out: Path) -> dict[str, Path]:
    """Build the module and extension into ``out`` and write one log a
    scenario there; scenario id -> log (``marne.vmod`` and ``AEF.vmdx`` beside)."""
    out.mkdir(parents=True, exist_ok=True)
    module, extension = build(out)
    logs = {}
    for scenario_id, play in GAMES.items():
        with open_extended(str(module), [str(extension)]) as loaded:
            w = GameWriter(loaded, players=PLAYERS)
            _start(w, module, scenario_id)
            play(w)
            logs[scenario_id] = out / f"{scenario_id}.vlog"
            atomic_write(logs[scenario_id], w.to_bytes(key=KEY, date_saved=DATE_SAVED))
    return logs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="folder for marne.vmod, AEF.vmdx and the logs")
    args = parser.parse_args(argv)
    for scenario_id, log in write_logs(args.out).items():
        print(f"wrote {log} ({scenario_id})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

