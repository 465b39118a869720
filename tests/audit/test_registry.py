"""The one registry: every built-in kind found without a list, a user's
rule run as a built-in kind is (its own subscribes, snapshots and subject),
the consent decided in one place."""

from __future__ import annotations

import re
from pathlib import Path

from vmodtool.audit.api import SNAPSHOT_POINTS, Rule
from vmodtool.audit.engine import Engine
from vmodtool.audit.registry import BUILT_IN, GuardedPlugin, builtin_kinds, kind_class
from vmodtool.audit.state import AuditState
from vmodtool.scenario.loader import RULE_KINDS
from vmodtool.scenario.model import RuleSpec

KINDS_DIR = Path(__file__).resolve().parents[2] / "vmodtool" / "audit" / "kinds"


def test_every_kind_module_is_registered_without_a_list():
    declared = {name for path in KINDS_DIR.glob("*.py")
                for name in re.findall(r'@register\("(\w+)"\)', path.read_text(encoding="utf-8"))}
    assert declared == set(builtin_kinds()) == set(RULE_KINDS) - {"plugin"}
    for name in declared:
        found = kind_class(name)
        assert found is not None and found[1] is BUILT_IN and issubclass(found[0], Rule)


TYPED = '''
from vmodtool.audit.api import Rule


class Typed(Rule):
    subscribes = frozenset({"turn_start"})
    snapshots = frozenset({"turn_start"})

    def check(self, state, event):
        return ()


class Duck:
    subscribes = frozenset({"turn_start"})

    def __init__(self, ctx):
        self.ctx = ctx

    def check(self, state, event):
        return None
'''


def test_a_user_rule_subclassing_rule_is_run_as_a_built_in_kind(tmp_path, modern):
    (tmp_path / "typed_rules.py").write_text(TYPED, encoding="utf-8")
    typed = RuleSpec("user.typed", "plugin", {"subject": {"tags": ["no_such_tag"]}}, plugin="typed_rules:Typed")
    duck = RuleSpec("user.duck", "plugin", {"subject": {"tags": ["no_such_tag"]}}, plugin="typed_rules:Duck")
    engine = Engine(modern, rules=[typed], plugin_folders=[tmp_path])
    (spec, rule), = engine.rules
    assert isinstance(rule, GuardedPlugin)
    assert rule.subscribes == {"turn_start"} and engine._snapshot_points == {"turn_start"}
    assert engine.wants("turn_start") and not engine.wants("move")
    # its subject selector is read as a built-in kind's: it matched no unit, so it is not checked
    engine.note_units(AuditState(modern), [])
    engine.mark_unseen()
    assert "user.typed" in engine.not_checked
    # a duck-typed plug-in is asked for its subscribes at every event, may read every snapshot and
    # judges what it likes (never "saw no unit")
    engine = Engine(modern, rules=[duck], plugin_folders=[tmp_path])
    assert engine._snapshot_points == SNAPSHOT_POINTS and engine.wants("move")
    engine.note_units(AuditState(modern), [])
    engine.mark_unseen()
    assert engine.not_checked == {}
    assert engine.rule_sources == {"user.duck": f"plugin folder {tmp_path}"}


def test_no_kind_reads_the_audit_state_itself():
    """The kinds are written against the public GameView, as a user's rule
    is: none imports AuditState or reads its fields (mypy holds them to the
    protocol; this says so where a reader looks)."""
    private = re.compile(r"\bAuditState\b|\.(units_state|markers_state|stacks|changed|_log_base|_side_moves|"
                         r"_counters)\b")
    offenders = [f"{path.name}:{n}" for path in [*KINDS_DIR.glob("*.py"), KINDS_DIR.parent / "rulekit.py"]
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if private.search(line.split("#")[0])]
    assert offenders == []


def test_the_registry_reads_entry_points_only_when_asked():
    """importlib.metadata (and the email package it pulls in) is imported only
    where installed rule packages are looked up, not by every audit."""
    import subprocess
    import sys
    code = ("import sys, vmodtool.audit.registry as r; r.builtin_kinds(); "
            "print('importlib.metadata' in sys.modules); r.installed_kinds(); "
            "print('importlib.metadata' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True"]
