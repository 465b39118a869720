"""The scenario model: one data file (YAML or TOML, plus an optional CSV
counter mix) that describes a game — sides, map, units, setup, turns and
rules — loaded, validated with every problem located by file and line, and
turned into immutable objects that the counter, board, module and audit
layers read.

>>> from vmodtool.scenario import load_scenario          # doctest: +SKIP
>>> scenario = load_scenario("examples/modern-tactical/scenario.yaml")

Names are imported on first use (PEP 562): importing ``vmodtool.scenario.model``
(as a build from its cache does) does not import the loader, YAML or the
schema checker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from vmodtool._lazy import lazy_exports

if TYPE_CHECKING:
    from vmodtool.scenario.loader import RULE_KINDS, check_scenario, load_scenario, scenario_schema
    from vmodtool.scenario.model import Scenario
    from vmodtool.scenario.problems import Problem, ScenarioProblems

__all__ = ["load_scenario", "check_scenario", "scenario_schema", "Scenario", "Problem",
           "ScenarioProblems", "RULE_KINDS"]

__getattr__, __dir__ = lazy_exports(globals(), {
    "vmodtool.scenario.loader": ("RULE_KINDS", "check_scenario", "load_scenario", "scenario_schema"),
    "vmodtool.scenario.model": ("Scenario",),
    "vmodtool.scenario.problems": ("Problem", "ScenarioProblems"),
})
