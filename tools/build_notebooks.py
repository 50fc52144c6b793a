"""Write the notebooks' sources from the cell lists below, then execute them in place.

    .venv/bin/python tools/build_notebooks.py [NAME ...]

Keeping the sources here makes notebook diffs reviewable; the committed .ipynb files carry
the executed outputs that ``make test`` re-checks with nbval.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


def build(name: str, cells: list[tuple[str, str]]) -> Path:
    nb = nbformat.v4.new_notebook()
    kernelspec = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["kernelspec"] = kernelspec
    for kind, source in cells:
        make = nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell
        nb.cells.append(make(source.strip("\n")))
    resources = {"metadata": {"path": str(NOTEBOOKS)}}
    NotebookClient(nb, timeout=600, kernel_name="python3", resources=resources).execute()
    path = NOTEBOOKS / f"{name}.ipynb"
    nbformat.write(nb, path)
    ruff = Path(sys.executable).with_name("ruff")
    subprocess.run([str(ruff), "format", "--quiet", str(path)], check=True)  # keeps outputs
    return path


def main(names: list[str]) -> int:
    sys.path.insert(0, str(ROOT / "tools"))
    from notebook_sources import SOURCES

    for name in names or list(SOURCES):
        print("built", build(name, SOURCES[name]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
