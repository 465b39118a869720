"""A save of an earlier module version whose pieces were renamed since:
the binding finds a piece's palette slot by the images it shows when no
slot has its name (Paths of Glory 10.0's "FR Corps" is 10.8's "FRc"), binds
it only when every slot showing those images binds it alike, and names the
pieces it could not tell apart, their rules NOT CHECKED (exit 3), never a
clean report that counted none of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.audit.test_area_maps import EXAMPLE, _audit
from tests.conftest import shared_path
from vmodtool.audit.binding import SlotIndex
from vmodtool.vassal.buildfile import BuildFile

pytestmark = pytest.mark.corpus


def test_slots_found_by_their_images() -> None:
    index = SlotIndex(BuildFile.read(shared_path("corpus", "pog", "buildFile.xml")))
    # eleven "FRc" slots (own gpids) of one prototype: one slot, no name
    [corps] = index.find_by_images(["fr_corps.png", "fr_corps_back.png", "shadow_blurred.png"])
    assert corps.names == () and corps.palette == "" and "CorpsFR" in corps.prototypes and "Unit" in corps.prototypes
    # one slot: itself, with its names
    [army] = index.find_by_images(["ge_army01.png", "ge_army01_back.png", "shadow_lg_blurred.png"])
    assert "GE1" in army.names
    # full and reduced "GEc" show the same images: two candidates
    candidates = index.find_by_images(["ge_corps.png", "ge_corps_back.png", "shadow_blurred.png"])
    assert len(candidates) > 1 and len({c.prototypes for c in candidates}) == len(candidates)
    # a subset of a slot's images is no slot's
    assert index.find_by_images(["fr_corps.png"]) == [] and index.find_by_images([]) == []


def test_historical_10_0_binds_its_renamed_units_and_says_which_it_cannot(tmp_path: Path) -> None:
    save = shared_path("corpus", "pog", "Historical10-0__12fab9b.vsav")
    module = shared_path("corpus", "pog", "buildFile.xml")
    code, report = _audit(save, EXAMPLE, module)
    # 1 unit bound before: every renamed army and corps was unknown to the 10.8 binding
    assert report["bound"]["units"] == 154
    [why] = report["not_checked"].values()
    assert why.startswith("pieces named (BR Corps), (GE Corps), BR Corps, GE Corps could not be bound")
    assert code == 3
    [warning] = [w for w in report["replay_warnings"] if "cannot be told" in str(w)]
    assert "audit it with that version (-m)" in str(warning)


def test_saves_of_the_binding_s_own_version_are_unchanged(tmp_path: Path) -> None:
    save = shared_path("corpus", "pog", "Historical10-8__63fbf0b.vsav")
    code, report = _audit(save, EXAMPLE, shared_path("corpus", "pog", "buildFile.xml"))
    assert code == 0 and report["bound"]["units"] == 186 and report["not_checked"] == {}
    assert not any("cannot be told" in str(w) for w in report["replay_warnings"])
