"""End-to-end audit of the example game logs (``examples/<system>/logs``).

The logs are real ``.vlog`` files of the bundled example modules, written by
``examples/make_logs.py`` with vmodtool's own encoder (moves between real hex
positions).  Every ``game-*`` log audits with no error and no warning; every
``illegal-*`` copy carries one seeded illegal action and yields exactly the
violations listed here -- rule id, step, units and hexes, no more, no fewer.
Together they give each rule kind and each seed rule a legal case (the clean
game) and an illegal one.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from vmodtool.audit.game import audit_logs
from vmodtool.scenario import load_scenario
from vmodtool.vassal.savefile import SavedGame

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _load_make_logs():
    spec = importlib.util.spec_from_file_location("make_logs", EXAMPLES / "make_logs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_logs = _load_make_logs()
SYSTEMS = list(make_logs.SYSTEMS)

#: (system, log) -> [(rule id, step, units, hexes[, "withdrawn"])]
EXPECTED = {
    # modern-tactical
    ('modern-tactical', 'game-1.vlog'): [
    ],
    ('modern-tactical', 'game-2-withdrawn.vlog'): [
        ('move.ground', 105, ('syr.t72.3',), ('1004', '0302'), 'withdrawn'),
    ],
    ('modern-tactical', 'illegal-overstack.vlog'): [
        ('stack.limit', 49, ('syr.rcl', 'syr.bmp.2', 'syr.inf', 'syr.bmp.1'), ('1106',)),
    ],
    ('modern-tactical', 'illegal-two-hqs.vlog'): [
        ('stack.limit', 209, ('syr.hq_78', 'syr.hq_85'), ('0903',)),
    ],
    ('modern-tactical', 'illegal-hq-moves-alone.vlog'): [
        ('hq.escorted_move', 8, ('syr.hq_78',), ('1103', '0903')),
    ],
    ('modern-tactical', 'illegal-hq-left-alone.vlog'): [
        ('hq.with_own_type', 96, ('idf.hq_a',), ('0402',)),
        ('hq.escorted_move', 97, ('idf.hq_a',), ('0402', '0503')),
    ],
    ('modern-tactical', 'illegal-hq-disrupted.vlog'): [
        ('hq.never_disrupted', 114, ('idf.hq_a',), ('0503',)),
    ],
    ('modern-tactical', 'illegal-move-ops-complete.vlog'): [
        ('status.ops_complete', 62, ('idf.mk.2',), ('0503', '0504')),
    ],
    ('modern-tactical', 'illegal-move-out-of-command.vlog'): [
        ('status.out_of_command', 41, ('syr.cav.2',), ('1110', '1109')),
    ],
    ('modern-tactical', 'illegal-out-of-command-unmarked.vlog'): [
        ('command.range', 38, ('syr.cav.1',), ('1209', '1108', '1003')),
    ],
    ('modern-tactical', 'illegal-failed-check-unmarked.vlog'): [
        ('command.range', 121, (), ('1110',)),
    ],
    ('modern-tactical', 'illegal-over-long-move.vlog'): [
        ('move.ground', 125, ('syr.cav.1',), ('1108', '0905')),
    ],
    ('modern-tactical', 'illegal-enemy-hex.vlog'): [
        ('move.ground', 126, ('syr.brdm',), ('0804', '0604')),
    ],
    ('modern-tactical', 'illegal-extra-activation.vlog'): [
        ('activation.limit', 64, (), ()),
    ],
    ('modern-tactical', 'illegal-ops-complete-left.vlog'): [
        ('sweep.marker_removal', 91, ('syr.gazelle',), ('0805',)),
    ],
    ('modern-tactical', 'illegal-chits-not-returned.vlog'): [
        ('chits.back_to_cup', 91, (), ()),
    ],
    ('modern-tactical', 'illegal-hq-dies-alone.vlog'): [
        ('hq.dies_with_stack', 192, ('syr.hq_78',), ('0803',)),
        ('hq.with_own_type', 192, ('syr.hq_78',), ('0803',)),
    ],
    ('modern-tactical', 'illegal-hq-rebuilt-alone.vlog'): [
        ('hq.rebuild', 176, ('syr.hq_85',), ('1005',)),
        ('hq.with_own_type', 176, ('syr.hq_85',), ('1005',)),
    ],
    ('modern-tactical', 'illegal-helicopter-over-long.vlog'): [
        ('move.helicopter', 27, ('syr.gazelle',), ('0110', '1201')),
    ],
    ('modern-tactical', 'illegal-setup-changed.vlog'): [
        ('setup.match', 0, ('syr.t72.3',), ('1204', '1104')),
    ],
    # ww1-operational
    ('ww1-operational', 'game-1.vlog'): [
    ],
    ('ww1-operational', 'illegal-rp-storm-unit.vlog'): [
        ('rp.replacements', 45, ('ger.storm.2',), ('1101',)),
    ],
    ('ww1-operational', 'illegal-rp-french-regiment.vlog'): [
        ('rp.replacements', 115, ('all.fr_rgt.1',), ('1107',)),
    ],
    ('ww1-operational', 'illegal-two-rps-one-unit.vlog'): [
        ('rp.replacements', 115, ('all.bri.3',), ('0703',)),
    ],
    ('ww1-operational', 'illegal-rp-on-map-while-dead-pile.vlog'): [
        ('rp.replacements', 70, ('all.bri.3',), ('0804',)),
    ],
    ('ww1-operational', 'illegal-rp-returned-full.vlog'): [
        ('rp.replacements', 22, ('all.bri.2',), ('0703',)),
    ],
    ('ww1-operational', 'illegal-rp-away-from-hq.vlog'): [
        ('rp.replacements', 70, ('all.bri.1',), ('0603',)),
    ],
    ('ww1-operational', 'illegal-rp-over-budget.vlog'): [
        ('rp.replacements', 71, ('all.bri.3',), ('0804',)),
    ],
    ('ww1-operational', 'illegal-tank-under-infantry.vlog'): [
        ('tank.top_of_stack', 12, ('ger.a7v', 'ger.inf4.1'), ('1104',)),
    ],
    ('ww1-operational', 'illegal-tank-repaired-in-movement.vlog'): [
        ('tank.repair', 121, ('all.tank',), ('0803',)),
    ],
    ('ww1-operational', 'illegal-broken-tank-exploits.vlog'): [
        ('tank.broken_no_exploit', 126, ('all.tank',), ('0805', '0804')),
    ],
    ('ww1-operational', 'illegal-river-without-bridge.vlog'): [
        ('move.allowance', 102, ('ger.a7v',), ('1004', '1005')),
    ],
    ('ww1-operational', 'illegal-tank-stays-functional.vlog'): [
        ('tank.breakdown_after_attack', 63, ('ger.a7v',), ('1004',)),
    ],
    ('ww1-operational', 'illegal-aircraft-left-on-map.vlog'): [
        ('air.off_map_after_combat', 16, ('ger.schlasta',), ('0902',)),
    ],
    ('ww1-operational', 'illegal-overstack.vlog'): [
        ('stack.limit', 79, ('all.fr_div', 'all.fr_rgt.1', 'all.fr_rgt.2', 'all.ft'), ('1108',)),
    ],
    # combat-commander
    ('combat-commander', 'game-1.vlog'): [
    ],
    ('combat-commander', 'illegal-smoke-in-water.vlog'): [
        ('smoke.not_water_or_blaze', 29, (), ('0606',)),
    ],
    ('combat-commander', 'illegal-smoke-with-blaze.vlog'): [
        ('smoke.not_water_or_blaze', 149, (), ('0503',)),
    ],
    ('combat-commander', 'illegal-foxholes-in-water.vlog'): [
        ('foxholes.entrench', 54, (), ('0607',)),
        ('foxholes.entrench', 54, (), ('0607',)),
    ],
    ('combat-commander', 'illegal-foxholes-on-fortification.vlog'): [
        ('foxholes.entrench', 168, (), ('0404',)),
    ],
    ('combat-commander', 'illegal-private-without-broken.vlog'): [
        ('private.field_promotion', 83, ('it.private',), ('0704',)),
    ],
    ('combat-commander', 'illegal-hero-alone.vlog'): [
        ('hero.placement', 94, ('it.hero',), ('0604',)),
    ],
    ('combat-commander', 'illegal-hero-on-casualty-track.vlog'): [
        ('hero.back_to_counter_mix', 131, ('it.hero',), ()),
    ],
    ('combat-commander', 'illegal-deploy-wrong-quality.vlog'): [
        ('event.deploy', 126, ('fr.tm_line.1',), ('0202',)),
        ('event.deploy', 126, ('fr.tm_line.2',), ('0202',)),
    ],
    ('combat-commander', 'illegal-over-long-move.vlog'): [
        ('move.allowance', 143, ('it.sq_line.3',), ('0703', '0302')),
    ],
    ('combat-commander', 'illegal-enemy-hex.vlog'): [
        ('move.allowance', 166, ('fr.ldr.1',), ('0403', '0603')),
    ],
    ('combat-commander', 'illegal-elan-two-spaces.vlog'): [
        ('event.elan', 174, (), ()),
    ],
    ('combat-commander', 'illegal-hand-over-limit.vlog'): [
        ('cards.hand-size', 44, (), ()),
    ],
    ('combat-commander', 'illegal-card-out-of-window.vlog'): [
        ('cards.event-window', 152, (), ()),
    ],
    ('combat-commander', 'illegal-card-wrong-deck.vlog'): [
        ('cards.own-deck', 112, (), ()),
    ],
}


@cache
def scenario(system: str):
    return load_scenario(EXAMPLES / system / "scenario.yaml")


#: the example scenarios whose plug-ins (in their own rules/ folders) the tests trust
TRUSTED = {"ww1-operational", "combat-commander"}


@cache
def report(system: str, name: str):
    return audit_logs([EXAMPLES / system / "logs" / name], scenario(system),
                      trust_scenario_plugins=system in TRUSTED)


def found(rep):
    return [(v.rule_id, v.step, tuple(v.units), tuple(v.hexes))
            + (("withdrawn",) if v.withdrawn_by_undo else ()) for v in rep.violations]


ALL_LOGS = [(system, name) for system in SYSTEMS for name in make_logs.logs_of(system)]


def test_every_log_is_listed_and_shipped():
    assert sorted(EXPECTED) == sorted(ALL_LOGS)
    for system in SYSTEMS:
        shipped = sorted(p.name for p in (EXAMPLES / system / "logs").glob("*.vlog"))
        assert shipped == sorted(make_logs.logs_of(system))


@pytest.mark.parametrize("system", SYSTEMS)
def test_clean_game_is_a_whole_game(system):
    rep = report(system, "game-1.vlog")
    assert rep.steps >= 100
    turns = {v for v in range(1, 10)
             if f"TT|{v}|" in SavedGame.read(EXAMPLES / system / "logs" / "game-1.vlog").text}
    assert {1, 2, 3} <= turns
    assert rep.violations == [] and rep.errors == []
    assert rep.rule_failures == [] and rep.replay_warnings == [] and rep.chain_differences == []
    assert rep.not_checked == {} and rep.complete
    assert sorted(rep.rules_checked) == sorted(r.id for r in scenario(system).rules)


@pytest.mark.parametrize("system,name", ALL_LOGS)
def test_log_yields_exactly_the_expected_violations(system, name):
    rep = report(system, name)
    assert rep.rule_failures == [] and rep.replay_warnings == []
    assert found(rep) == EXPECTED[(system, name)]
    if name.startswith("game-"):
        assert rep.errors == []
        assert all(v.withdrawn_by_undo or v.severity == "info" for v in rep.violations)
    else:
        assert found(rep), "a seeded illegal action must be caught"
        seed = name[len("illegal-"):-len(".vlog")]
        assert seed in make_logs.SYSTEMS[system][1]


def test_every_rule_is_caught_somewhere():
    """Each rule entry of each example scenario is violated by some illegal
    log, except the ones no log of these modules can show (see README)."""
    cannot = {("modern-tactical", "heli.one_step"),
              ("ww1-operational", "setup.match"),
              ("combat-commander", "setup.match"), ("combat-commander", "stack.limit")}
    for system in SYSTEMS:
        hit = {v[0] for (s, n), vs in EXPECTED.items() if s == system and n.startswith("illegal-")
               for v in vs}
        ids = {r.id for r in scenario(system).rules}
        assert ids - hit == {r for s, r in cannot if s == system}, system


def test_violation_in_an_undone_step_is_withdrawn():
    rep = report("modern-tactical", "game-2-withdrawn.vlog")
    (v,) = rep.violations
    assert v.withdrawn_by_undo and v.rule_id == "move.ground" and v.severity == "error"
    assert rep.errors == []
    assert "WITHDRAWN (undone)" in "\n".join(rep.lines())
    assert rep.summary()["move.ground"]["withdrawn"] == 1


def test_replacement_findings_carry_their_sub_check():
    want = {"illegal-rp-storm-unit.vlog": "eligible", "illegal-rp-french-regiment.vlog": "eligible",
            "illegal-two-rps-one-unit.vlog": "per_unit",
            "illegal-rp-on-map-while-dead-pile.vlog": "priority",
            "illegal-rp-returned-full.vlog": "return", "illegal-rp-away-from-hq.vlog": "return",
            "illegal-rp-over-budget.vlog": "budget"}
    for name, check in want.items():
        (v,) = report("ww1-operational", name).violations
        assert v.evidence["check"] == check, name


def test_committed_logs_equal_what_the_script_writes(tmp_path):
    for system in SYSTEMS:
        for path in make_logs.write_system(system, tmp_path / system):
            committed = EXAMPLES / system / "logs" / path.name
            assert SavedGame.read(path).text == SavedGame.read(committed).text, committed
            assert path.read_bytes() == committed.read_bytes(), committed


@pytest.mark.parametrize("system,name,flags,code", [
    ("modern-tactical", "game-1.vlog", (), 0),
    ("modern-tactical", "game-2-withdrawn.vlog", (), 0),
    ("modern-tactical", "illegal-overstack.vlog", (), 1),
    ("ww1-operational", "illegal-aircraft-left-on-map.vlog", ("--trust-scenario-plugins",), 0),  # a warning
    ("combat-commander", "illegal-smoke-in-water.vlog", ("--trust-scenario-plugins",), 1),
    # without consent the plug-in rules are not checked: no errors is not "clean"
    ("ww1-operational", "game-1.vlog", (), 3),
    ("combat-commander", "illegal-elan-two-spaces.vlog", (), 3),     # only the plug-in sees it
    ("combat-commander", "illegal-smoke-in-water.vlog", (), 1),      # errors come first
    ("combat-commander", "illegal-elan-two-spaces.vlog",
     ("--plugins", str(EXAMPLES / "combat-commander" / "rules")), 1),
])
def test_cli_exit_codes(system, name, flags, code):
    proc = subprocess.run(
        [sys.executable, "-m", "vmodtool", "audit", str(EXAMPLES / system / "logs" / name),
         "--scenario", str(EXAMPLES / system / "scenario.yaml"), *flags],
        capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert "1 log(s)" in proc.stdout
    rules_part = proc.stdout.split("PBEM integrity")[0]        # (the integrity checks say their own)
    assert ("NOT CHECKED" in rules_part) == (not flags and system in TRUSTED)


@pytest.mark.parametrize("system", sorted(TRUSTED))
def test_without_consent_every_plugin_rule_is_not_checked(system):
    rep = audit_logs([EXAMPLES / system / "logs" / "game-1.vlog"], scenario(system))
    plugin_rules = {r.id for r in scenario(system).rules if r.kind == "plugin"}
    assert plugin_rules and set(rep.not_checked) == plugin_rules
    assert not plugin_rules & set(rep.rules_checked)
    assert not rep.complete and rep.as_json()["complete"] is False
    assert all("--trust-scenario-plugins" in why for why in rep.not_checked.values())
