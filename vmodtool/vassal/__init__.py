"""VASSAL's file formats and grid geometry — no game knowledge, no CLI.

Everything here agrees with VASSAL 3.7.26 byte for byte on real files.  The
sections (§) the modules cite are those of ``docs/vassal-format.md``, which
describes each format, the module that implements it and the VASSAL quirks
copied on purpose.
"""

# The entry points are re-exported here; each module holds the rest (the typed
# command classes in vassal.commands, trait views and builders in vassal.traits,
# key strokes in vassal.keys …):
#
#     from vmodtool.vassal import SavedGame, Module, HexGrid
#     game = SavedGame.read("game.vlog")        # any .vsav/.vlog/.sav/.log
#     module = Module.open("game.vmod")         # .vmod/.vext/folder/buildFile
#
# Names are imported on first use (PEP 562), so importing one module of the
# package (the CLI imports vassal.grid at start-up) does not import the others.

from __future__ import annotations

from typing import TYPE_CHECKING

from vmodtool._lazy import lazy_exports

if TYPE_CHECKING:
    from vmodtool.vassal.archive import Archive, ArchiveLimits, build_zip
    from vmodtool.vassal.buildfile import BuildFile
    from vmodtool.vassal.commands import Command, CommandGroup, Redactor, leaves, parse_commands, walk
    from vmodtool.vassal.gamewriter import GameWriter
    from vmodtool.vassal.grid import (
        Board,
        BoardPlacement,
        HexGrid,
        LocationError,
        MapGeometry,
        MapGrid,
        RegionGrid,
        SquareGrid,
        ZonedGrid,
        board_from_element,
    )
    from vmodtool.vassal.keys import NamedKeyStroke
    from vmodtool.vassal.metadata import ExtensionMetadata, ModuleMetadata, SaveMetadata
    from vmodtool.vassal.module import Module
    from vmodtool.vassal.obfuscation import Encoding, decode_saved_game, encode_saved_game
    from vmodtool.vassal.pieces import PieceDef, Trait
    from vmodtool.vassal.safexml import parse_xml
    from vmodtool.vassal.savefile import SavedGame
    from vmodtool.vassal.sequence import SequenceDecoder, SequenceEncoder, decode_sequence, encode_sequence
    from vmodtool.vassal.turntracker import TurnTrackerDef, turn_trackers

__all__ = [
    "SavedGame",
    "Module",
    "BuildFile",
    "ModuleMetadata", "SaveMetadata", "ExtensionMetadata",
    "Command", "CommandGroup", "parse_commands", "walk", "leaves", "Redactor",
    "PieceDef", "Trait",
    "HexGrid", "SquareGrid", "RegionGrid", "ZonedGrid", "MapGrid", "MapGeometry", "Board", "BoardPlacement",
    "board_from_element", "LocationError",
    "GameWriter",
    "TurnTrackerDef", "turn_trackers",
    "Archive", "ArchiveLimits", "build_zip",
    "Encoding", "decode_saved_game", "encode_saved_game",
    "SequenceEncoder", "SequenceDecoder", "encode_sequence", "decode_sequence",
    "parse_xml",
    "NamedKeyStroke",
]

__getattr__, __dir__ = lazy_exports(globals(), {
    "vmodtool.vassal.savefile": ("SavedGame",),
    "vmodtool.vassal.module": ("Module",),
    "vmodtool.vassal.buildfile": ("BuildFile",),
    "vmodtool.vassal.metadata": ("ModuleMetadata", "SaveMetadata", "ExtensionMetadata"),
    "vmodtool.vassal.commands": ("Command", "CommandGroup", "parse_commands", "walk", "leaves", "Redactor"),
    "vmodtool.vassal.pieces": ("PieceDef", "Trait"),
    "vmodtool.vassal.grid": (
        "HexGrid", "SquareGrid", "RegionGrid", "ZonedGrid", "MapGrid", "MapGeometry", "Board", "BoardPlacement",
        "board_from_element", "LocationError",
    ),
    "vmodtool.vassal.gamewriter": ("GameWriter",),
    "vmodtool.vassal.turntracker": ("TurnTrackerDef", "turn_trackers"),
    "vmodtool.vassal.archive": ("Archive", "ArchiveLimits", "build_zip"),
    "vmodtool.vassal.obfuscation": ("Encoding", "decode_saved_game", "encode_saved_game"),
    "vmodtool.vassal.sequence": ("SequenceEncoder", "SequenceDecoder", "encode_sequence", "decode_sequence"),
    "vmodtool.vassal.safexml": ("parse_xml",),
    "vmodtool.vassal.keys": ("NamedKeyStroke",),
})
