"""Opening and saving a notebook in JupyterLab with no edits produces no git diff (issue 22).

On connecting, JupyterLab writes the kernel's spec (``kernelspec``) and its kernel-info reply
(``language_info``) into the notebook's metadata, and jupytext's contents manager then saves
both files of the pair. So the committed metadata — in the .ipynb and in the .py header — must
be what the installed kernel reports. The expected values are computed from the installed
jupyter_client and ipykernel, never pasted; the last test saves each pair through jupytext's
contents manager as JupyterLab does and compares the bytes.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _kernelspec(name: str) -> dict[str, str]:
    """What JupyterLab writes as ``kernelspec`` for the kernel ``name``: its spec's display
    name and language (jupyter_client's KernelSpecManager, which also finds ipykernel's own
    ``python3``)."""
    from jupyter_client.kernelspec import KernelSpecManager

    spec = KernelSpecManager().get_kernel_spec(name)
    return {"display_name": spec.display_name, "language": spec.language, "name": name}


def _language_info() -> dict[str, Any]:
    """What the installed ipykernel reports as ``language_info`` (its kernel-info reply)."""
    from ipykernel.ipkernel import IPythonKernel

    return json.loads(json.dumps(IPythonKernel.language_info))


def _metadata(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))["metadata"]


def test_there_are_notebooks() -> None:
    assert len(NOTEBOOKS) >= 7


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_kernelspec_is_what_the_installed_kernel_writes(notebook: Path) -> None:
    committed = _metadata(notebook)["kernelspec"]
    expected = _kernelspec(committed["name"])
    assert committed == expected
    header = jupytext.read(notebook.with_suffix(".py")).metadata["kernelspec"]
    assert header == expected  # the .py header of the pair says the same


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_language_info_is_what_the_installed_ipykernel_reports(notebook: Path) -> None:
    committed = dict(_metadata(notebook)["language_info"])
    expected = _language_info()
    # The interpreter's patch release is the one field that follows the machine: the
    # notebooks are executed with the project's Python (environment.yml), whose major.minor
    # must match.
    version, reported = committed.pop("version"), expected.pop("version")
    assert committed == expected
    assert (
        version.split(".")[:2] == reported.split(".")[:2] == [str(v) for v in sys.version_info[:2]]
    )


def _save_as_jupyterlab(directory: Path, name: str) -> None:
    """Open ``name`` and save it unchanged through jupytext's contents manager (what
    JupyterLab uses with jupytext installed), with the metadata JupyterLab sets on connecting
    to the kernel."""
    manager_module = pytest.importorskip("jupytext.async_contentsmanager")

    async def save() -> None:
        manager = manager_module.AsyncTextFileContentsManager(root_dir=str(directory))
        model = await manager.get(name, content=True)
        metadata = model["content"].metadata
        metadata["kernelspec"] = _kernelspec(metadata["kernelspec"]["name"])
        info = _language_info()
        info["version"] = metadata["language_info"]["version"]  # the executing Python's
        metadata["language_info"] = info
        await manager.save(model, name)

    asyncio.run(save())


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_opening_and_saving_in_jupyterlab_changes_no_byte(notebook: Path, tmp_path: Path) -> None:
    pytest.importorskip("jupyter_server")
    shutil.copy(ROOT / "pyproject.toml", tmp_path)  # the [tool.jupytext] pairing settings
    pair = [notebook, notebook.with_suffix(".py")]
    for path in pair:
        shutil.copy(path, tmp_path)
    _save_as_jupyterlab(tmp_path, notebook.name)
    for path in pair:
        saved = (tmp_path / path.name).read_text(encoding="utf-8")
        assert saved == path.read_text(encoding="utf-8"), f"saving changed {path.name}"


def test_a_stale_kernelspec_is_detected(tmp_path: Path) -> None:
    """The check above is not vacuous: the display name notebooks carried before this test
    existed is rewritten on save."""
    notebook = NOTEBOOKS[0]
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    stale = notebook.read_text(encoding="utf-8").replace(
        f'"display_name": "{_kernelspec("python3")["display_name"]}"', '"display_name": "Python 3"'
    )
    (tmp_path / notebook.name).write_text(stale, encoding="utf-8")
    shutil.copy(notebook.with_suffix(".py"), tmp_path)
    _save_as_jupyterlab(tmp_path, notebook.name)
    assert (tmp_path / notebook.name).read_text(encoding="utf-8") != stale
