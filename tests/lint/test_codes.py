"""The lint code registry: each check family registers the codes it emits
beside its checks, into one registry whose public view is ``CODES``."""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

from vmodtool.lint import CODES
from vmodtool.lint.codes import FAMILIES, CodeInfo, family, registrar

#: the codes in the order lint listed them before it was split by family
#: (the order findings of one buildFile line are sorted in)
LISTED = (
    "buildfile-name-vs-version both-buildfiles no-moduledata bad-moduledata moduledata-name-mismatch "
    "vassal-version-mismatch vassal-version-too-new vassal-version-newer missing-vassal-version legacy-root "
    "bad-int-attribute bad-double-attribute ignored-number-attribute bad-boolean bad-colour bad-keystroke "
    "named-key-comma named-key-hides-keystroke cdata-definition custom-class missing-class "
    "missing-standard-component duplicate-map-name duplicate-board-name map-missing-component "
    "multi-board-without-setup board-without-grid grid-without-numbering grid-unusable "
    "setup-stack-unknown-board setup-stack-bad-location setup-stack-no-grid setup-stack-not-checked "
    "bad-piece-definition state-levels bad-trait unknown-trait trailing-backslash legacy-layer "
    "unknown-prototype prototype-cycle duplicate-prototype unused-prototype no-report-state duplicate-gpid "
    "bad-gpid gpid-above-next-id gpid-state-mismatch images-not-checked missing-image unused-image "
    "missing-file setup-module-name-mismatch setup-unexpanded-prototype unreadable-setup setup-unknown-map "
    "unknown-reshuffle-target unknown-return-deck unknown-owner-side duplicate-global-property "
    "duplicate-dice-button "
    # codes added after the split, family by family
    "empty-extension empty-extension-element missing-target wrong-base-module extension-not-checked").split()


def test_codes_are_listed_as_before_the_split() -> None:
    assert list(CODES) == LISTED
    assert len(CODES) == len(LISTED)
    assert all(isinstance(info, CodeInfo) and info.code == code for code, info in CODES.items())


def test_codes_is_a_read_only_view() -> None:
    with pytest.raises(TypeError):
        CODES["new-code"] = CodeInfo("error", "x")  # type: ignore[index]


@pytest.mark.parametrize("name", FAMILIES)
def test_each_family_emits_the_codes_it_registers(name: str) -> None:
    """A code is registered in the module that emits it (its name appears
    there again beside the ``register`` call)."""
    module = importlib.import_module(f"vmodtool.lint.{name}")
    source = inspect.getsource(module)
    own = [code for code in CODES if family(code) == name]
    assert own, f"vmodtool.lint.{name} registers no code"
    for code in own:
        assert len(re.findall(f'"{re.escape(code)}"', source)) >= 2, f"{code} is registered but not emitted in {name}"


def test_a_code_registered_twice_or_badly_is_refused() -> None:
    register = registrar("vmodtool.lint.uniqueness")
    with pytest.raises(ValueError, match="twice"):
        register("duplicate-dice-button", "warning", "again")
    with pytest.raises(ValueError, match="severity"):
        register("a-new-code", "fatal", "no such severity")
    with pytest.raises(ValueError, match="not a lint check family"):
        registrar("somewhere.else")
    assert "a-new-code" not in CODES
    with pytest.raises(KeyError):
        family("a-new-code")
