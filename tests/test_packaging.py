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
    assert _TEST_ONLY <= dev  # `make test` installs them with the [dev] extra (the full lock)
    assert set(_lock_pins(_RUNTIME_LOCK)).isdisjoint(_TEST_ONLY)  # `make demo` does not


# ---- the lock files (requirements/): one set of versions for make demo, make test and CI

_LOCK, _RUNTIME_LOCK = ROOT / "requirements" / "lock.txt", ROOT / "requirements" / "runtime.txt"
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)(?:\s*;\s*([^\\]+?))?\s*\\?$", re.M)


def _lock_pins(path: Path) -> dict[str, list[tuple[str, str]]]:
    """Name → [(version, environment marker)] of a uv/pip-compile lock file."""
    pins: dict[str, list[tuple[str, str]]] = {}
    for name, version, marker in _PIN.findall(path.read_text(encoding="utf-8")):
        pins.setdefault(_normalise(name)[0], []).append((version, marker.strip()))
    return pins


def _all_requirements() -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    return [
        *project["dependencies"],
        *(r for name in ("dev", "inspect", "ray") for r in extras[name]),
    ]


def test_lock_pins_every_declared_dependency_within_its_range() -> None:
    from packaging.requirements import Requirement

    pins = _lock_pins(_LOCK)
    for text in _all_requirements():
        requirement = Requirement(text)
        name = _normalise(requirement.name)[0]
        assert name in pins, f"requirements/lock.txt has no pin for {name} (run make lock)"
        for version, _marker in pins[name]:
            assert requirement.specifier.contains(version, prereleases=True), (
                f"requirements/lock.txt pins {name}=={version}, outside {text!r} (run make lock)"
            )


def test_every_locked_distribution_is_hashed() -> None:
    for path in (_LOCK, _RUNTIME_LOCK):
        blocks = re.split(r"\n(?=[A-Za-z0-9])", path.read_text(encoding="utf-8"))
        for block in blocks:
            if block.startswith("#") or not block.strip():
                continue
            assert "--hash=sha256:" in block, f"{path.name}: no hash for {block.splitlines()[0]}"


def test_runtime_lock_is_the_runtime_subset_of_the_full_lock() -> None:
    full, runtime = _lock_pins(_LOCK), _lock_pins(_RUNTIME_LOCK)
    for name, pinned in runtime.items():  # the same versions (markers may differ)
        versions, in_full = {v for v, _ in pinned}, {v for v, _ in full.get(name, [])}
        assert versions <= in_full, f"runtime.txt pins {name} {versions}, lock.txt {in_full}"
    declared = {
        _normalise(r)[0]
        for r in tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
            "dependencies"
        ]
    }
    assert declared <= set(runtime)
    assert "ray" not in runtime  # make demo needs no Ray


def test_make_installs_from_the_lock_and_can_regenerate_it() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert (
        "--require-hashes -r $(LOCK)" in makefile
        and "--require-hashes -r $(RUNTIME_LOCK)" in makefile
    )
    assert re.search(r"^lock:", makefile, re.M) and "uv pip compile" in makefile
    assert re.search(r"^test-latest:", makefile, re.M)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci
    # the lock was generated for every extra pyproject.toml declares
    header = _LOCK.read_text(encoding="utf-8").splitlines()[1]
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for extra in project["optional-dependencies"]:
        assert f"--extra {extra}" in header, header


def test_test_latest_runs_the_same_pytest_steps_as_make_unit() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("test_latest", ROOT / "tools" / "test_latest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for step in module.STEPS:
        rendered = " ".join(f'"{a}"' if " " in a else a for a in step)
        assert f"$(BIN)/pytest {rendered}" in makefile, rendered


def test_the_package_never_imports_a_test_tool() -> None:
    pattern = re.compile(r"^\s*(?:import|from)\s+(pytest|nbval|hypothesis)\b", re.M)
    offenders = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "reliability_lab").rglob("*.py"))
        if pattern.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
