"""The package layout keeps its shape: imports point down the layers of docs/architecture.md.

Every module of ``reliability_lab`` is read as source (nothing is imported): each ``import`` and
``from … import`` anywhere in it — top level, inside functions, under ``if TYPE_CHECKING:`` —
and the modules its ``lazy_exports`` tables name, are arrows from its package to another. The
test fails on a cycle between packages, on a cycle between files, on an arrow the layering of
docs/architecture.md does not allow, and on an unlisted package. The deprecated aliases of old
paths (``_moved.MOVED`` and ``deprecated_exports`` tables) are deliberately not arrows: they
are strings, resolved only when old code imports an old name.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "reliability_lab"
ARCHITECTURE = ROOT / "docs" / "architecture.md"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _known(name: str) -> str:
    """The longest prefix of ``name`` that is a module of the package."""
    while name not in modules() and "." in name:
        name = name.rsplit(".", 1)[0]
    return name


def _targets(node: ast.AST) -> Iterable[str]:
    if isinstance(node, ast.Import):
        yield from (_known(a.name) for a in node.names if a.name.startswith("reliability_lab"))
    elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        if node.module.startswith("reliability_lab"):
            base = _known(node.module)
            for alias in node.names:  # ``from pkg import submodule`` is an arrow to it
                sub = f"{base}.{alias.name}"
                yield sub if sub in modules() else base
    elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "lazy_exports":
        for leaf in ast.walk(node):
            if isinstance(leaf, ast.Constant) and isinstance(leaf.value, str):
                if leaf.value.startswith("reliability_lab."):
                    yield _known(leaf.value)


@cache
def file_imports() -> dict[str, frozenset[str]]:
    """Module -> the package modules it imports (every kind of import, see the docstring)."""
    out = {}
    for name, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        out[name] = frozenset(t for node in ast.walk(tree) for t in _targets(node) if t != name)
    return out


def package_of(module: str) -> str:
    """``reliability_lab.results.store`` -> ``results``; the root package is ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def package_imports() -> dict[str, dict[str, list[str]]]:
    """Package -> imported package -> the ``file -> file`` arrows behind it."""
    out: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for source, targets in file_imports().items():
        for target in targets:
            if package_of(source) != package_of(target):
                out[package_of(source)][package_of(target)].append(f"{source} -> {target}")
    return out


def cycles(nodes: Iterable[str], successors: Callable[[str], Iterable[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(successors(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(successors(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _block(kind: str) -> list[str]:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    match = re.search(rf"^```{kind}\n(.*?)^```", text, re.S | re.M)
    assert match, f"{ARCHITECTURE}: no ```{kind} block"
    return [line.split("#")[0].strip() for line in match.group(1).splitlines()]


def layers() -> dict[str, int]:
    """Package -> layer number, 0 the top, from the ```layers block of docs/architecture.md."""
    out = {}
    for number, line in enumerate(n for n in _block("layers") if n):
        for package in line.split():
            assert package not in out, f"{ARCHITECTURE}: {package} is in two layers"
            out[package] = number
    return out


def forbidden() -> set[tuple[str, str]]:
    """Arrows the layering would allow but the design does not, from the ```forbidden block."""
    pairs = (line.split("->") for line in _block("forbidden") if line)
    return {(a.strip(), b.strip()) for a, b in pairs}


def test_every_package_has_a_layer() -> None:
    placed = layers()
    missing = sorted({package_of(m) for m in modules()} - set(placed))
    assert not missing, f"add {missing} to the layers of {ARCHITECTURE}"


def test_no_cycle_between_packages() -> None:
    graph = package_imports()
    assert cycles(sorted({package_of(m) for m in modules()}), lambda p: graph[p]) == []


def test_no_cycle_between_files() -> None:
    imports = file_imports()
    assert cycles(sorted(imports), lambda m: imports[m]) == []


def test_imports_point_down_the_layers() -> None:
    placed, banned = layers(), forbidden()
    wrong = [
        arrow
        for source, targets in package_imports().items()
        for target, arrows in targets.items()
        if placed.get(target, -1) <= placed.get(source, -1) or (source, target) in banned
        for arrow in arrows
    ]
    assert not wrong, "imports that break docs/architecture.md:\n" + "\n".join(sorted(wrong))


def test_reader_catches_every_kind_of_import(tmp_path: Path) -> None:
    source = """
from typing import TYPE_CHECKING
import reliability_lab.runs
if TYPE_CHECKING:
    from reliability_lab.metrics import passk
def f():
    from reliability_lab.report import _report
__getattr__, __dir__ = lazy_exports(__name__, {"x": "reliability_lab.results.store"})
"""
    found = {t for node in ast.walk(ast.parse(source)) for t in _targets(node)}
    assert found == {
        "reliability_lab.runs",
        "reliability_lab.metrics.passk",
        "reliability_lab.report._report",
        "reliability_lab.results.store",
    }


def test_a_cycle_is_found() -> None:
    graph: Mapping[str, list[str]] = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["a"]}
    assert cycles(graph, lambda n: graph[n]) == [["a", "b", "c"]]


@pytest.mark.parametrize(
    "module",
    ["reliability_lab.metrics", "reliability_lab.metrics.registry", "reliability_lab.runs"],
)
def test_metrics_load_neither_matplotlib_nor_litellm(module: str) -> None:
    code = (
        f"import sys, {module}\n"
        "heavy = sorted(m for m in ('matplotlib', 'litellm') if m in sys.modules)\n"
        "print(','.join(heavy))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip() == ""
