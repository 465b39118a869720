"""Lint the real modules of ``../shared/corpus`` and check the real problems
it reports (and that VASSAL's own minimal clean module lints clean).

The corpus buildFiles come without their images, so image checks are
skipped for them (``images-not-checked``); instead the image names lint
collects are compared with the ones VASSAL 3.7.26 itself reported as "Image
not found" when it loaded those modules without images
(``golden/modules/*.load-report.txt``).
"""

from __future__ import annotations

import collections
import re

import pytest

from tests.conftest import SHARED, rel_id, shared_files, shared_path
from vmodtool.lint import image_references, lint_path
from vmodtool.vassal.module import Module

BUILDFILES = shared_files("corpus", "*/buildFile*")
ARCHIVES = [SHARED / "corpus/vassal-tour/tour.mod",
            SHARED / "corpus/vassal-testmods/test-predefined-setups.vmod"]

#: per corpus module: the errors and warnings lint reports, by code (infos are
#: checked where they matter below)
EXPECTED = {
    "almoravid/buildFile.xml": {"unknown-prototype": 2, "no-report-state": 1},
    "flashpoint-scs/buildFile.xml": {"unknown-prototype": 32},
    "hannibal/buildFile": {"no-report-state": 49},
    "imperial-struggle/buildFile.xml": {"no-report-state": 4},
    "kassala/buildFile.xml": {"grid-without-numbering": 1},
    "nevsky/buildFile.xml": {"unknown-prototype": 115, "setup-stack-unknown-board": 2,
                             "no-report-state": 1},
    "pog/buildFile.xml": {"unknown-prototype": 5, "no-report-state": 2},
    "ragnarok/buildFile.xml": {"no-report-state": 3},
    "stalin-tanks/buildFile.xml": {},
    "table-battles-fallujah/buildFile.xml": {"no-report-state": 1},
    "tld/buildFile": {"no-report-state": 1953, "grid-without-numbering": 9, "bad-gpid": 1},
    "vivelemperor/buildFile.xml": {"unknown-prototype": 1, "no-report-state": 1},
    "zxvt/buildFile": {},
    "vassal-tour/tour.mod": {"unused-image": 46, "no-report-state": 10,
                             "grid-without-numbering": 2, "bad-gpid": 1, "no-moduledata": 1},
    "vassal-testmods/test-predefined-setups.vmod": {"missing-file": 1},
}

_CACHE: dict = {}


def lint(rel: str):
    if rel not in _CACHE:
        _CACHE[rel] = lint_path(shared_path("corpus", *rel.split("/")))
    return _CACHE[rel]


def problems(findings):
    return dict(collections.Counter(f.code for f in findings if f.severity != "info"))


def by_code(findings, code):
    return [f for f in findings if f.code == code]


@pytest.mark.parametrize("path", BUILDFILES + ARCHIVES, ids=rel_id)
def test_corpus_module_problems(path):
    rel = rel_id(path)[len("corpus/"):]
    findings = lint(rel)
    assert problems(findings) == EXPECTED[rel]
    if path in BUILDFILES:
        (skipped,) = by_code(findings, "images-not-checked")
        assert skipped.severity == "info"


def test_every_corpus_module_is_expected():
    if not BUILDFILES:
        pytest.skip("shared data not available")
    listed = {rel_id(p)[len("corpus/"):] for p in BUILDFILES + ARCHIVES}
    assert listed == set(EXPECTED)


def test_minimal_hex_lints_clean():
    findings = lint_path(shared_path("golden", "modules", "minimal-hex.vmod"))
    assert findings == []


def test_minimal_hex_unpacked_folder_lints_clean():
    assert lint_path(shared_path("golden", "modules", "minimal-hex")) == []


# -------------------------------------------------------- the real problems
def test_vivelemperor_misspelt_prototype():
    """A palette piece asks for 'French I Cav Unit'; the prototype is called
    'French I Cav Corps Unit': VASSAL builds Soult without its unit traits."""
    (finding,) = by_code(lint("vivelemperor/buildFile.xml"), "unknown-prototype")
    assert finding.detail["prototype"] == "French I Cav Unit"
    assert finding.severity == "error"
    assert finding.component_path.endswith("PieceSlot[Soult / I Corps]")
    assert finding.line == 177


def test_nevsky_leftovers_from_almoravid():
    """Nevsky was built from the Almoravid module: two setup stacks still
    name the board 'Almoravid', and prototypes refer to mask/shadow
    prototypes that Nevsky does not define."""
    findings = lint("nevsky/buildFile.xml")
    boards = by_code(findings, "setup-stack-unknown-board")
    assert {f.detail["owningBoard"] for f in boards} == {"Almoravid"}
    assert {f.component_path.rsplit("/", 1)[-1] for f in boards} == \
        {"SetupStack[Bishops]", "SetupStack[Crusaders]"}
    missing = collections.Counter(f.detail["prototype"]
                                  for f in by_code(findings, "unknown-prototype"))
    assert missing.most_common(3) == [("Mask Tile", 50), ("Mask Square", 17),
                                      ("Shadow Square", 16)]


def test_pog_missing_prototypes():
    missing = {f.detail["prototype"] for f in by_code(lint("pog/buildFile.xml"),
                                                      "unknown-prototype")}
    assert missing == {"ArmyRebuild_TU", "ReinfEventCorps", "Reinf"}


def test_kassala_grid_without_numbering():
    """Kassala's hex grid has no numbering (golden hexgrid real_kassala says
    the same): every location is reported as 'offboard'."""
    (finding,) = by_code(lint("kassala/buildFile.xml"), "grid-without-numbering")
    assert "HexGrid" in finding.message


def test_tld_predates_gpids():
    """The 2.9 TLD module: slots have no gpid at all (one aggregated finding)."""
    (finding,) = by_code(lint("tld/buildFile"), "bad-gpid")
    assert finding.detail["count"] > 2000


def test_tour_images():
    """tour.mod holds every image it uses (built-in ones and extensionless
    GIFs resolve as in VASSAL) plus 46 images nothing refers to."""
    findings = lint("vassal-tour/tour.mod")
    assert not by_code(findings, "missing-image")
    unused = {f.detail["image"] for f in by_code(findings, "unused-image")}
    assert len(unused) == 46 and "1FP.gif" in unused


def test_predefined_setup_without_file():
    (finding,) = by_code(lint("vassal-testmods/test-predefined-setups.vmod"), "missing-file")
    assert finding.component_path.endswith("PredefinedSetup[pds1]")


def test_no_false_alarms_on_modules_vassal_loads():
    """Modules VASSAL 3.7.26 loads with zero problems (kassala, ragnarok:
    golden load reports) show no attribute, gpid, piece-decoding or
    setup-stack errors; neither do any of the others."""
    fatal = {"bad-int-attribute", "bad-double-attribute", "bad-piece-definition",
             "state-levels", "bad-trait", "duplicate-gpid", "setup-stack-bad-location",
             "cdata-definition", "buildfile-name-vs-version"}
    for rel in EXPECTED:
        assert not [f for f in lint(rel) if f.code in fatal], rel


# -------------------------------------------------------- images vs VASSAL
GOLDEN_SOURCES = {"zxvt": "zxvt/buildFile", "vivelemperor": "vivelemperor/buildFile.xml",
                  "flashpoint-scs": "flashpoint-scs/buildFile.xml",
                  "stalin-tanks": "stalin-tanks/buildFile.xml", "tld": "tld/buildFile"}


@pytest.mark.parametrize("name", sorted(GOLDEN_SOURCES))
def test_lint_knows_every_image_vassal_missed(name):
    """Every image VASSAL reported as 'Image not found' (the corpus has no
    images) is one lint collects as referenced."""
    report = shared_path("golden", "modules", f"{name}.load-report.txt").read_text("utf-8")
    vassal_missing = set(re.findall(r"Source: (.*?) Error: Image not found", report))
    assert vassal_missing
    with Module.open(shared_path("corpus", *GOLDEN_SOURCES[name].split("/"))) as module:
        refs = image_references(module)
    assert vassal_missing <= set(refs)
