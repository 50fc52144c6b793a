"""Packaging: one dependency set in two files, and a light-weight metrics import."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
# Conda-only entries in environment.yml that are not Python package dependencies.
_CONDA_ONLY = {"python", "pip"}
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(.*)$")


def _normalise(requirement: str) -> tuple[str, str]:
    """``"Python_Levenshtein >= 0.25"`` → ``("python-levenshtein", ">=0.25")``.

    Names are lower-cased with ``_``/``.`` → ``-``; specifiers lose spaces and are sorted so
    ``<1.1,>=1.0`` equals ``>=1.0,<1.1``. Conda's single ``=`` pin is written ``==``.
    """
    match = _NAME.match(requirement.split(";")[0].split("#")[0])
    if match is None:
        raise ValueError(f"cannot parse requirement {requirement!r}")
    name = re.sub(r"[-_.]+", "-", match.group(1)).lower()
    spec = match.group(3).replace(" ", "")
    parts = sorted("==" + p[1:] if re.match(r"^=[^=]", p) else p for p in spec.split(",") if p)
    return name, ",".join(parts)


def _pyproject_deps() -> dict[str, str]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    deps = dict(_normalise(r) for r in data["project"]["dependencies"])
    assert len(deps) == len(data["project"]["dependencies"]), "duplicate names in pyproject"
    return deps


def _environment_deps() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    entries: list[str] = []
    for item in env["dependencies"]:
        if isinstance(item, dict):
            entries.extend(str(p) for p in item.get("pip", []))
        else:
            entries.append(str(item))
    deps: dict[str, str] = {}
    for entry in entries:
        if entry.startswith("-e") or entry.startswith("."):
            continue  # the project itself
        name, spec = _normalise(entry)
        if name in _CONDA_ONLY:
            continue
        assert name not in deps, f"environment.yml lists {name} twice"
        deps[name] = spec
    return deps


def test_normalise() -> None:
    assert _normalise("Python_Levenshtein >= 0.25") == ("python-levenshtein", ">=0.25")
    assert _normalise("litellm>=1.80,<1.110,!=1.82.7") == ("litellm", "!=1.82.7,<1.110,>=1.80")
    assert _normalise("numpy=1.26") == ("numpy", "==1.26")
    assert _normalise("pyyaml") == ("pyyaml", "")


def test_environment_yml_matches_pyproject() -> None:
    pyproject, environment = _pyproject_deps(), _environment_deps()
    only_pyproject = sorted(set(pyproject) - set(environment))
    only_environment = sorted(set(environment) - set(pyproject))
    assert not only_pyproject, f"in pyproject.toml but not environment.yml: {only_pyproject}"
    assert not only_environment, f"in environment.yml but not pyproject.toml: {only_environment}"
    different = {
        name: (pyproject[name], environment[name])
        for name in pyproject
        if pyproject[name] != environment[name]
    }
    assert not different, f"version specifiers differ (pyproject, environment.yml): {different}"


def test_environment_yml_python_matches_requires_python() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    pythons = [str(d) for d in env["dependencies"] if isinstance(d, str) and d.startswith("python")]
    pythons = [p for p in pythons if _normalise(p)[0] == "python"]
    assert [_normalise(p)[1] for p in pythons] == [data["project"]["requires-python"]]


@pytest.mark.parametrize(
    "module",
    ["reliability_lab", "reliability_lab.metrics", "reliability_lab.report", "reliability_lab.io"],
)
def test_import_loads_neither_litellm_nor_matplotlib(module: str) -> None:
    # A fresh interpreter, so modules imported by other tests cannot mask a heavy import.
    probe = (
        f"import json, sys\nimport {module}\n"
        "print(json.dumps(sorted(m for m in sys.modules "
        "if m.split('.')[0] in ('litellm', 'matplotlib'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


#: Packages only the tests need; a plain `pip install` must not pull them.
_TEST_ONLY = {"pytest", "pytest-xdist", "hypothesis", "nbval", "ruff", "mypy"}


def test_test_tools_are_an_extra_not_a_runtime_dependency() -> None:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    runtime = set(_pyproject_deps())
    assert not runtime & _TEST_ONLY, sorted(runtime & _TEST_ONLY)
    dev = {_normalise(r)[0] for r in data["project"]["optional-dependencies"]["dev"]}
    assert _TEST_ONLY <= dev  # `make test` installs them with the [dev] extra
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r'pip install .*-e "\.\[dev[,\]]', makefile)  # both README commands


def test_the_package_never_imports_a_test_tool() -> None:
    pattern = re.compile(r"^\s*(?:import|from)\s+(pytest|nbval|hypothesis)\b", re.M)
    offenders = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "reliability_lab").rglob("*.py"))
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
