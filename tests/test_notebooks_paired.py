"""Each notebook is a pair: notebooks/NN_name.py (jupytext percent format, the reviewed and
linted source) and NN_name.ipynb (the same cells with their outputs, checked by nbval).

The pair is in sync when both hold the same cells — same kinds, same sources, same order.
`make notebooks-execute` (after editing a .py) or `make notebooks-sync` (after editing in
Jupyter) brings a pair back in sync.
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
SOURCES = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.py"))


def _cells(path: Path) -> list[tuple[str, str]]:
    notebook = jupytext.read(path)
    return [(cell.cell_type, cell.source.strip()) for cell in notebook.cells]


def out_of_sync(source: Path) -> list[str]:
    """How the .py ``source`` and its .ipynb differ (empty when in sync)."""
    paired = source.with_suffix(".ipynb")
    if not paired.exists():
        return [f"{paired.name} is missing"]
    text, executed = _cells(source), _cells(paired)
    problems = []
    if len(text) != len(executed):
        problems.append(f"{len(text)} cells in {source.name}, {len(executed)} in {paired.name}")
    for i, (a, b) in enumerate(zip(text, executed, strict=False)):
        if a != b:
            first = next((line for line in a[1].splitlines() if line), "")
            problems.append(f"cell {i} differs ({a[0]} cell starting {first[:60]!r})")
    return problems


def test_there_are_paired_notebooks() -> None:
    assert len(SOURCES) >= 7
    unpaired = [p.name for p in NOTEBOOKS.glob("*.ipynb") if not p.with_suffix(".py").exists()]
    assert unpaired == [], f"notebooks without their .py source: {unpaired}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.stem)
def test_each_py_and_ipynb_pair_is_in_sync(source: Path) -> None:
    problems = out_of_sync(source)
    assert problems == [], (
        f"{source.name} and its .ipynb are out of sync: {problems}; run `make notebooks-execute` "
        "(after editing the .py) or `make notebooks-sync` (after editing in Jupyter)"
    )


def test_a_desynced_pair_is_detected(tmp_path: Path) -> None:
    source = SOURCES[0]
    copy = tmp_path / source.name
    copy.write_text(source.read_text(encoding="utf-8") + "\n# %%\nprint('added')\n", "utf-8")
    (tmp_path / source.with_suffix(".ipynb").name).write_bytes(
        source.with_suffix(".ipynb").read_bytes()
    )
    assert any("cells in" in p for p in out_of_sync(copy))
    edited = source.read_text(encoding="utf-8").replace("import ", "import  ", 1)
    copy.write_text(edited, "utf-8")
    assert any(p.startswith("cell ") for p in out_of_sync(copy))
