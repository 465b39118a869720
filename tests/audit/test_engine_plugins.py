"""The engine and user plug-ins: a plug-in is user code, so what its check
raises becomes a rule failure that names the plug-in, the rule, the event
and the step (the audit goes on); a plug-in module that fails to load is a
located ``PluginError``; a built-in kind's exception is a bug and is not
swallowed.  The scenario's own plug-ins are made only when it is trusted
(``tests/audit/test_plugin_consent.py`` has the CLI's side)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.helpers import setup_state
from vmodtool.audit.api import BaseRule, Event, Violation
from vmodtool.audit.engine import Engine
from vmodtool.audit.plugins import PluginError
from vmodtool.audit.state import AuditState
from vmodtool.errors import VmodError
from vmodtool.scenario.model import RuleSpec

PLUGIN = '''
class Flaky:
    subscribes = frozenset({"dice", "chat"})

    def __init__(self, ctx):
        self.ctx = ctx

    def check(self, state, event):
        if event.kind == "dice":
            raise ValueError("no table for " + str(sum(event.dice)))
        return [self.ctx.violation(event, "chat seen")]
'''


def _engine(ww1, folder: Path, *specs: RuleSpec) -> Engine:
    return Engine(ww1, rules=list(specs), plugin_folders=[folder])


def test_a_failing_plugin_check_is_reported_and_the_audit_goes_on(ww1, tmp_path):
    (tmp_path / "flaky_rules.py").write_text(PLUGIN, encoding="utf-8")
    spec = RuleSpec("house.flaky", "plugin", {}, ("H1",), plugin="flaky_rules:Flaky")
    engine = _engine(ww1, tmp_path, spec)
    state = setup_state(ww1)
    engine.dispatch(state, Event("dice", 7, dice=(3, 4), text="2d6"))
    engine.dispatch(state, Event("chat", 8, text="hello"))
    assert len(engine.failures) == 1
    failure = engine.failures[0]
    assert (failure.rule_id, failure.step) == ("house.flaky", 7)
    assert failure.error == "plug-in flaky_rules:Flaky raised at a dice event: ValueError: no table for 7"
    # the next event still reaches it
    assert [(v.rule_id, v.step, v.message) for v in engine.violations] == [("house.flaky", 8, "chat seen")]


def test_a_plugin_that_fails_to_load_is_a_located_error(ww1, tmp_path):
    (tmp_path / "broken_rules.py").write_text("raise RuntimeError('half written')\n", encoding="utf-8")
    spec = RuleSpec("house.broken", "plugin", {}, (), plugin="broken_rules:Anything")
    with pytest.raises(PluginError) as caught:
        _engine(ww1, tmp_path, spec)
    assert isinstance(caught.value, VmodError)
    text = str(caught.value)
    assert "broken_rules.py" in text and "RuntimeError: half written" in text
    assert "\n" not in text


class _Buggy(BaseRule):
    subscribes = frozenset({"dice"})

    def check(self, state: AuditState, event: Event) -> list[Violation]:
        raise ZeroDivisionError("a bug of vmodtool")


def test_a_built_in_kinds_exception_is_not_swallowed(ww1, tmp_path, monkeypatch):
    from vmodtool.audit import kinds
    kinds.rule_class("obligation")                      # the catalogue is loaded
    monkeypatch.setitem(kinds.KINDS, "test_buggy", _Buggy)
    engine = _engine(ww1, tmp_path, RuleSpec("test.buggy", "test_buggy", {}))
    with pytest.raises(ZeroDivisionError):
        engine.dispatch(setup_state(ww1), Event("dice", 3, dice=(1,)))
    assert engine.failures == []


FICKLE = '''
class Fickle:
    subscribes = frozenset({"dice"})

    def __init__(self, ctx):
        self.ctx = ctx

    def check(self, state, event):
        self.subscribes = 7          # no longer a set of event kinds
        return []
'''


def test_a_plugin_whose_subscribes_turns_bad_is_a_rule_failure(ww1, tmp_path):
    (tmp_path / "fickle_rules.py").write_text(FICKLE, encoding="utf-8")
    spec = RuleSpec("house.fickle", "plugin", {}, (), plugin="fickle_rules:Fickle")
    engine = _engine(ww1, tmp_path, spec)
    state = setup_state(ww1)
    engine.dispatch(state, Event("dice", 4, dice=(1,)))
    engine.dispatch(state, Event("dice", 5, dice=(2,)))
    assert [(f.rule_id, f.step) for f in engine.failures] == [("house.fickle", 5)]
    assert "its subscribes is of type int" in engine.failures[0].error


def test_without_consent_the_scenarios_plugins_are_not_made(ww1):
    engine = Engine(ww1)
    plugin_ids = {r.id for r in ww1.rules if r.kind == "plugin"}
    assert plugin_ids and set(engine.not_checked) == plugin_ids
    assert not plugin_ids & {spec.id for spec, _ in engine.rules}
    trusted = Engine(ww1, trust_scenario_plugins=True)
    assert trusted.not_checked == {} and plugin_ids <= {spec.id for spec, _ in trusted.rules}
