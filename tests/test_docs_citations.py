"""Every section citation (a section sign followed by a number, as in
``docs/vassal-format.md`` 5.6) in the package, the tests, the examples, the
benchmarks and the docs names a section that exists in a document of this
repository, and nothing refers to the reference notes outside it.

Which document a citation refers to, in this order:

1. the document named right after it: "... of ``docs/X.md``";
2. the last ``docs/X.md`` named before it on the same line;
3. in ``docs/X.md`` itself: that document;
4. the last ``docs/X.md`` named before it in the same file (so a module
   docstring that names the document once covers the whole file).

A citation with none of these is an error, as is one whose section (or the
numbered item, lettered example or quoted paragraph title after it: "quirk 7",
"items 1–2", "(c)", "\\"Turn tracker\\"") is not in the document.  Sections are
the numbered headings (``### 5.6 Quirks…``); an item N of section S is a
numbered list line ``N.`` in S's text or a sub-heading S.N.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("vmodtool", "tests", "examples", "benchmarks", "docs", "README.md")
SUFFIXES = {".py", ".md", ".yaml", ".yml", ".toml", ".json", ".txt", ".cfg", ".ini"}
THIS_FILE = Path(__file__).resolve()
#: documents that exist only in the project's private notes, never in the repository
FOREIGN = ("shared" + "/docs", "scenario-and-rules", "users-and-peers")

SIGN = "\u00a7"
NUMBER = r"\d+(?:\.\d+)*"
DOC_NAME = re.compile(r"\bdocs/([A-Za-z0-9_-]+)\.md\b")
CITATION = re.compile(SIGN + r"\s?(" + NUMBER + r")(?:\s?[-–]\s?" + SIGN + r"?\s?(" + NUMBER + r"))?")
ITEMS = re.compile(r"\s+(?:quirks?|items?|rules?)\s+(\d+)(?:\s*[-–]\s*(\d+))?")
LETTER = re.compile(r"\s+\(([a-z])\)")
QUOTED = re.compile(r"\s+[\"“]([^\"”\n]{2,60})[\"”]")
OF_DOC = re.compile(r"(?:\s+(?:quirks?|items?|rules?|fields?|rows?)\s+\d+(?:\s*(?:[-–,]|and)\s*\d+)*)?"
                    r"\s+of\s+[`*]*docs/([A-Za-z0-9_-]+)\.md")
HEADING = re.compile(r"^(#{1,6})\s+(" + NUMBER + r")\.?\s+(.*)$", re.M)


@dataclass(frozen=True)
class Section:
    number: str
    title: str
    body: str           # the text up to the next heading of any level


def parse_sections(text: str) -> dict[str, Section]:
    """The numbered headings of a markdown document and the text under each."""
    heads = list(HEADING.finditer(text))
    any_heading = [m.start() for m in re.finditer(r"^#{1,6}\s", text, re.M)] + [len(text)]
    sections: dict[str, Section] = {}
    for m in heads:
        end = min(p for p in any_heading if p > m.start())
        sections[m.group(2)] = Section(m.group(2), m.group(3), text[m.end():end])
    return sections


def has_item(sections: dict[str, Section], number: str, item: int) -> bool:
    """Item ``item`` of section ``number``: a sub-heading or a numbered line."""
    if f"{number}.{item}" in sections:
        return True
    return re.search(rf"^\s*{item}\.\s", sections[number].body, re.M) is not None


def scanned_files() -> list[Path]:
    files: list[Path] = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            files.append(path)
            continue
        for p in sorted(path.rglob("*")):
            if p.is_file() and p.suffix in SUFFIXES and "__pycache__" not in p.parts:
                files.append(p)
    return [p for p in files if p.resolve() != THIS_FILE]


@dataclass(frozen=True)
class Citation:
    file: str
    line: int
    text: str           # the citation as written, with its qualifier
    doc: str | None     # docs/<doc>.md it refers to
    sections: tuple[str, ...]
    items: tuple[int, ...] = ()
    letter: str | None = None
    quoted: str | None = None


def citations_in(path: Path, root: Path = ROOT) -> list[Citation]:
    """Every citation of ``path`` with the document it refers to (rules in
    the module docstring)."""
    text = path.read_text(encoding="utf-8")
    rel = path.relative_to(root).as_posix()
    own = path.stem if rel.startswith("docs/") and rel.count("/") == 1 and path.suffix == ".md" else None
    names = [(m.start(), m.group(1)) for m in DOC_NAME.finditer(text)]
    out = []
    for m in CITATION.finditer(text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_no = text.count("\n", 0, m.start()) + 1
        rest = text[m.end():text.find("\n", m.end()) if "\n" in text[m.end():] else len(text)]
        after = OF_DOC.match(rest)
        before_line = [n for p, n in names if line_start <= p < m.start()]
        before_file = [n for p, n in names if p < m.start()]
        if after:
            doc: str | None = after.group(1)
        elif before_line:
            doc = before_line[-1]
        elif own:
            doc = own
        elif before_file:
            doc = before_file[-1]
        else:
            doc = None
        sections = tuple(s for s in m.groups() if s)
        items: tuple[int, ...] = ()
        letter = quoted = None
        if (q := ITEMS.match(rest)) is not None:
            items = tuple(int(g) for g in q.groups() if g)
        elif (q := LETTER.match(rest)) is not None:
            letter = q.group(1)
        elif (q := QUOTED.match(rest)) is not None:
            quoted = q.group(1)
        out.append(Citation(rel, line_no, (m.group(0) + rest)[:60], doc, sections, items, letter,
                            quoted))
    return out


def problems_of(c: Citation, docs: dict[str, dict[str, Section]]) -> list[str]:
    where = f"{c.file}:{c.line}: {c.text!r}"
    if c.doc is None:
        return [f"{where}: names no document (write 'docs/X.md {SIGN}N' or name it in the "
                "module docstring)"]
    if c.doc not in docs:
        return [f"{where}: docs/{c.doc}.md is not in the repository"]
    sections = docs[c.doc]
    found = []
    for number in c.sections:
        if number not in sections:
            found.append(f"{where}: docs/{c.doc}.md has no section {number}")
    if found:
        return found
    head = sections[c.sections[0]]
    for item in c.items:
        if not has_item(sections, head.number, item):
            found.append(f"{where}: section {head.number} of docs/{c.doc}.md has no item {item}")
    if c.letter and f"({c.letter})" not in head.body:
        found.append(f"{where}: section {head.number} of docs/{c.doc}.md has no example ({c.letter})")
    if c.quoted and c.quoted.casefold() not in (head.title + head.body).casefold():
        found.append(f"{where}: section {head.number} of docs/{c.doc}.md does not mention "
                     f"{c.quoted!r}")
    return found


@pytest.fixture(scope="module")
def docs() -> dict[str, dict[str, Section]]:
    return {p.stem: parse_sections(p.read_text(encoding="utf-8"))
            for p in sorted((ROOT / "docs").glob("*.md"))}


@pytest.fixture(scope="module")
def all_citations() -> list[Citation]:
    return [c for path in scanned_files() for c in citations_in(path)]


def test_the_code_cites_sections(all_citations):
    # the scan finds the citations it is meant to check
    assert len(all_citations) > 150
    assert {c.doc for c in all_citations} >= {"vassal-format", "seed-rules"}


def test_every_citation_names_an_existing_section(all_citations, docs):
    problems = [p for c in all_citations for p in problems_of(c, docs)]
    assert problems == [], "\n".join(problems)


def test_no_reference_to_documents_outside_the_repository():
    found = []
    for path in scanned_files():
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for name in FOREIGN:
                if name in line:
                    found.append(f"{path.relative_to(ROOT).as_posix()}:{no}: names {name!r}")
            for m in DOC_NAME.finditer(line):
                if not (ROOT / "docs" / f"{m.group(1)}.md").is_file():
                    found.append(f"{path.relative_to(ROOT).as_posix()}:{no}: "
                                 f"docs/{m.group(1)}.md does not exist")
    assert found == [], "\n".join(found)


# -- the checker itself -------------------------------------------------------------------


DOC = """# Title
## 5. Grids
### 5.6 Quirks
1. first
2. second
### 5.5 Examples
**(a)** flat. **(c)** sideways; the "Turn tracker" paragraph.
## 6. Checklist
### 6.4 Maps
"""


def _check(tmp_path: Path, source: str, name: str = "mod.py") -> list[str]:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    docs = {"fmt": parse_sections(DOC)}
    return [p for c in citations_in(path, tmp_path) for p in problems_of(c, docs)]


@pytest.mark.parametrize("source", [
    f'"""Sections refer to docs/fmt.md.\n\n{SIGN}5.6 quirk 2, {SIGN}5.5 (c), {SIGN}6 item 4."""',
    f"# docs/fmt.md {SIGN}5.5 \"Turn tracker\" and {SIGN}5.5-{SIGN}5.6 of docs/fmt.md",
    f"x = 1  # docs/fmt.md {SIGN}5.6 items 1–2",
])
def test_checker_accepts_existing_sections(tmp_path, source):
    assert _check(tmp_path, source) == []


@pytest.mark.parametrize("source, expected", [
    (f"# docs/fmt.md {SIGN}5.7", "has no section 5.7"),
    (f"# docs/fmt.md {SIGN}5.6 quirk 3", "has no item 3"),
    (f"# docs/fmt.md {SIGN}5.5 (b)", "has no example (b)"),
    (f"# docs/fmt.md {SIGN}5.5 \"Movement\"", "does not mention 'Movement'"),
    (f"# docs/fmt.md {SIGN}5.5-{SIGN}5.9", "has no section 5.9"),
    (f"# {SIGN}5.6 of the format doc", "names no document"),
    (f"# docs/other.md {SIGN}5.6", "docs/other.md is not in the repository"),
])
def test_checker_rejects_missing_sections(tmp_path, source, expected):
    problems = _check(tmp_path, source)
    assert len(problems) == 1 and expected in problems[0], problems


def test_nearest_document_wins(tmp_path):
    # the second citation refers to docs/fmt.md, named after docs/other.md
    source = f"# docs/other.md {SIGN}1; docs/fmt.md {SIGN}5.6\n# later {SIGN}6.4\n"
    problems = _check(tmp_path, source)
    assert len(problems) == 1, problems
    assert problems[0].startswith("mod.py:1: ") and "docs/other.md is not in the repository" in problems[0]
