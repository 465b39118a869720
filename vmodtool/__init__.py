"""vmodtool: build VASSAL modules, render counters and boards, audit played games.

The layers (see ``docs/architecture.md``):

* :mod:`vmodtool.vassal` — VASSAL's file formats and grid geometry, exact.
* :mod:`vmodtool.errors` — the error types every layer raises.
"""

from vmodtool.errors import FormatError, ScenarioError, UnsafeFileError, VmodError

__version__ = "0.1.0"

__all__ = ["FormatError", "ScenarioError", "UnsafeFileError", "VmodError", "__version__"]
