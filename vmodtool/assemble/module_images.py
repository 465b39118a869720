"""The images of a module being built (:class:`ModuleImages`): what
:mod:`vmodtool.assemble.images` renders and :mod:`vmodtool.assemble.module`
arranges.  Apart from both, so that rendering them (in worker processes
forked early) does not wait for the buildFile's modules to be imported."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ModuleImages"]


@dataclass
class ModuleImages:
    """The images of a module: ``files`` image name → bytes (stored under
    ``images/``); the other mappings name which file each piece uses."""

    files: dict[str, bytes] = field(default_factory=dict)
    unit: dict[tuple[str, str], str] = field(default_factory=dict)   # (counter id, face)
    marker: dict[str, str] = field(default_factory=dict)             # marker kind
    layer: dict[str, str] = field(default_factory=dict)              # layer marker kind overlay
    chit: dict[str, str] = field(default_factory=dict)               # formation id / "end_turn"
    card: dict[str, str] = field(default_factory=dict)               # card id (copies share it)
    card_back: dict[str, str] = field(default_factory=dict)          # deck id
    hand_board: dict[str, str] = field(default_factory=dict)         # side id of a hand
    board: str = "board.png"
    board_size: tuple[int, int] = (0, 0)
    #: what the board renderer warned of (place names or markers without a free place), one located line each
    board_warnings: list[str] = field(default_factory=list)
    counter_size: tuple[int, int] = (64, 64)
    #: False when only the buildFile is wanted (the audit reads positions
    #: from it): the off-map board is not drawn nor the charts read
    draw: bool = True
