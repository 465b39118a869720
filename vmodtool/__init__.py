"""vmodtool: build VASSAL modules, render counters and boards, audit played games.

The layers (see ``docs/architecture.md``):

* :mod:`vmodtool.vassal` — VASSAL's file formats and grid geometry, exact.
* :mod:`vmodtool.scenario` — the scenario file: loaded, checked, immutable.
* :mod:`vmodtool.render` — counters, NATO symbols, print sheets, boards.
* :mod:`vmodtool.assemble` — scenario → ``.vmod``; lint for any module.
* :mod:`vmodtool.replay` — logs as steps, events and board states.
* :mod:`vmodtool.audit` — a game checked against the scenario's rules.
* :mod:`vmodtool.errors` — the error types every layer raises.

Each package exports its public names in ``__all__``.  ``import vmodtool``
imports only the error types; the packages are imported when used.
"""

from vmodtool.errors import FormatError, ScenarioError, UnsafeFileError, VmodError

__version__ = "0.1.0"

__all__ = ["FormatError", "ScenarioError", "UnsafeFileError", "VmodError", "__version__"]
