"""Citations of the project's documentation cannot rot.

Code and docs cite the project's own pages — ``(docs/methodology.md, "Consistency")`` — never
documents outside the repository. These tests check that every cited page exists, that every
quoted section is a heading of that page, and that every markdown link to a page (and its
``#anchor``) resolves.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Where citations live: Python sources and the project's markdown pages.
_PY_DIRS = ("reliability_lab", "tests", "benchmarks", "tools")
_MD_FILES = ("README.md", "docs/*.md", "experiments/README.md", "benchmarks/README.md")
#: Citations of documents that are not in the repository. Built from pieces so that this file
#: does not itself contain the strings it forbids (a plain grep of the repository stays clean).
_FORBIDDEN = ("S" + "PEC §", "refer" + "ence/")
#: A cited page, optionally followed by a quoted section: docs/x.md, "Section".
_CITATION = re.compile(
    r"(?<![\w/.])((?:docs|experiments|benchmarks)/[\w.-]+\.md)(?:,\s*([\"'])(.+?)\2)?"
)
#: A markdown link to a page of the repository: [text](path.md#anchor).
_LINK = re.compile(r"\]\(([^)\s#:]+\.md)(#[^)\s]*)?\)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def _python_files() -> list[Path]:
    """Python sources that may cite docs (not this file: its examples cite made-up pages)."""
    files = (p for d in _PY_DIRS for p in (ROOT / d).rglob("*.py"))
    return sorted(p for p in files if p != Path(__file__).resolve())


def _markdown_files() -> list[Path]:
    return sorted({p for pattern in _MD_FILES for p in ROOT.glob(pattern)})


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@cache
def _headings(page: Path) -> tuple[str, ...]:
    """The headings of a markdown page (outside code blocks), markup removed."""
    found = []
    in_code = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            in_code = not in_code
        elif not in_code and (m := _HEADING.match(line)):
            found.append(m.group(2).replace("`", "").strip())
    return tuple(found)


def _section_names(heading: str) -> set[str]:
    """The names a heading may be cited by: its text, or its text before " — " or " (".

    ``Fault injection (`fault`)`` is cited as "Fault injection", ``inspect_ai eval logs —
    `load_inspect_log(...)` `` as "inspect_ai eval logs".
    """
    names = {heading}
    for separator in (" — ", " ("):
        names.add(heading.split(separator, 1)[0].strip())
    return names


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces → hyphens."""
    kept = "".join(ch for ch in heading.lower() if ch.isalnum() or ch in " -_")
    return kept.replace(" ", "-")


def _joined(text: str, *, python: bool) -> str:
    """The text with line breaks (and comment markers of continued comments) as spaces, so a
    quoted section wrapped over two lines is read as one."""
    pattern = r"\s*\n\s*(?:#:?\s+)?" if python else r"\s*\n\s*"
    return re.sub(pattern, " ", text)


def _citations() -> list[tuple[str, str, str | None]]:
    """(citing file, cited page, quoted section or None) for every citation."""
    found = []
    for path in _python_files():
        text = _joined(path.read_text(encoding="utf-8"), python=True)
        found += [(_rel(path), m.group(1), m.group(3)) for m in _CITATION.finditer(text)]
    for path in _markdown_files():
        text = _joined(path.read_text(encoding="utf-8"), python=False)
        found += [(_rel(path), m.group(1), m.group(3)) for m in _CITATION.finditer(text)]
    return found


def test_nothing_cites_documents_outside_the_repository() -> None:
    offenders = []
    package = [p for p in (ROOT / "reliability_lab").rglob("*") if p.is_file()]
    others = [p for p in [*_python_files(), *_markdown_files()] if "reliability_lab" not in p.parts]
    for path in sorted({*package, *others}):
        if "__pycache__" in path.parts:
            continue
        text = path.read_bytes().decode("utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), start=1):
            offenders += [f"{_rel(path)}:{number}: {s!r}" for s in _FORBIDDEN if s in line]
    assert not offenders, (
        'cite the project\'s docs (e.g. docs/methodology.md, "Consistency") instead of '
        "documents that are not in the repository:\n" + "\n".join(offenders)
    )


def test_citations_are_found() -> None:
    """The scan sees the citations it is meant to check (a broken pattern would pass silently)."""
    cited = {(page, section) for _, page, section in _citations()}
    assert ("docs/methodology.md", "Consistency") in cited
    assert ("docs/run_table.md", None) in cited
    assert len(cited) > 20


@pytest.mark.parametrize(
    ("source", "page", "section"),
    sorted(set(_citations()), key=lambda c: (c[0], c[1], c[2] or "")),
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_cited_page_and_section_exist(source: str, page: str, section: str | None) -> None:
    path = ROOT / page
    assert path.is_file(), f"{source} cites {page}, which does not exist"
    if section is None:
        return
    names = {name for heading in _headings(path) for name in _section_names(heading)}
    assert section in names, (
        f"{source} cites {page}, {section!r}, but {page} has no such heading; its headings: "
        f"{list(_headings(path))}"
    )


def _links() -> list[tuple[str, str, str | None]]:
    found = []
    for path in _markdown_files():
        text = path.read_text(encoding="utf-8")
        found += [(_rel(path), m.group(1), m.group(2)) for m in _LINK.finditer(text)]
    return found


@pytest.mark.parametrize(("source", "target", "anchor"), sorted(set(_links()), key=str))
def test_markdown_links_resolve(source: str, target: str, anchor: str | None) -> None:
    path = (ROOT / source).parent / target
    assert path.is_file(), f"{source} links to {target}, which does not exist"
    if anchor is None:
        return
    slugs = {_slug(heading) for heading in _headings(path)}
    assert anchor[1:] in slugs, f"{source} links to {target}{anchor}: no heading has that anchor"


def test_section_rules() -> None:
    """The heading rules the checks rely on, on headings of the kinds the docs use."""
    assert "Fault injection" in _section_names("Fault injection (fault)")
    assert "inspect_ai eval logs" in _section_names("inspect_ai eval logs — load_inspect_log(x)")
    assert _slug("Deliberate differences from PandaProbe") == (
        "deliberate-differences-from-pandaprobe"
    )
    assert _slug("pass^k and pass@k") == "passk-and-passk"
    assert _joined('(docs/x.md, "A\n    # B")', python=True) == '(docs/x.md, "A B")'
