"""Imports stay light: litellm loads only for an actual model call (or the sim registration).

Each check runs in a fresh interpreter, so modules imported by other tests cannot mask an
import, and without ``LITELLM_LOCAL_MODEL_COST_MAP`` in its environment, so the library's own
handling of that variable is what is tested.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from reliability_lab.llm._litellm import COST_MAP_ENV, REMOTE_COST_MAP_ENV
from tests.experiment.helpers import sim_config

ROOT = Path(__file__).resolve().parents[1]

# Printed by every probe: whether litellm was loaded and the cost-map variable afterwards.
_REPORT = f"""
import json as _json, os as _os, sys as _sys
_out = {{"litellm": "litellm" in _sys.modules, "env": _os.environ.get({COST_MAP_ENV!r}), **RESULT}}
print("PROBE " + _json.dumps(_out))
"""


def _probe(code: str, **env: str) -> dict[str, Any]:
    """Run ``code`` (which sets the dict ``RESULT``) in a fresh interpreter; its report."""
    environ = {k: v for k, v in os.environ.items() if k not in (COST_MAP_ENV, REMOTE_COST_MAP_ENV)}
    environ.update(env)
    script = "RESULT = {}\n" + textwrap.dedent(code) + _REPORT
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=environ,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [x for x in done.stdout.splitlines() if x.startswith("PROBE ")]
    report: dict[str, Any] = json.loads(lines[-1].removeprefix("PROBE "))
    return report


@pytest.mark.parametrize(
    "module",
    [
        "reliability_lab",
        "reliability_lab.agents",
        "reliability_lab.cli",
        "reliability_lab.experiment",
        "reliability_lab.experiment.plan",
        "reliability_lab.runner.runner",
        "reliability_lab.experiment.seeds",
        "reliability_lab.llm",
        "reliability_lab.sessions",
        "reliability_lab.sessions.judges",
        "reliability_lab.sessions.embeddings",
        "reliability_lab.sim",
    ],
)
def test_import_does_not_load_litellm_or_touch_the_environment(module: str) -> None:
    report = _probe(f"import {module}")
    assert report == {"litellm": False, "env": None}


def test_client_construction_does_not_load_litellm(tmp_path: Path) -> None:
    report = _probe(
        f"""
        from reliability_lab.llm import LLMCallError, LLMClient
        LLMClient(cache_dir={str(tmp_path)!r}, max_retries=1)
        RESULT["category"] = LLMCallError("timeout", "x").category
        """
    )
    assert report == {"litellm": False, "env": None, "category": "timeout"}


def test_first_call_loads_litellm_with_the_bundled_price_map_and_leaves_env_alone() -> None:
    report = _probe(
        """
        from reliability_lab.llm import LLMClient
        llm = LLMClient()
        sim = llm.completion(model="sim/calibrated", messages=[{"role": "user", "content": "hi"}])
        mock = llm.completion(
            model="openai/gpt-4o-mini",
            messages=[{"role": "user", "content": "hi"}],
            mock_response="ok",
        )
        from litellm.litellm_core_utils.get_model_cost_map import _cost_map_source_info as info
        RESULT["sim_role"] = sim.message["role"]
        RESULT["mock"] = [mock.message["content"], mock.cost_usd > 0]
        RESULT["local_map"] = [info.source, info.is_env_forced]
        """
    )
    assert report == {
        "litellm": True,
        "env": None,  # set only while litellm was being imported
        "sim_role": "assistant",
        "mock": ["ok", True],  # priced from the bundled map
        "local_map": ["local", True],
    }


@pytest.fixture(scope="module")
def tiny_results(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """(config, results directory, probe report of the first run) of an offline experiment."""
    tmp = tmp_path_factory.mktemp("tiny")
    config = tmp / "tiny.yaml"
    out = tmp / "results"
    settings = sim_config("tiny", ("cal",), sessions=True, seed=0, output=str(out))
    config.write_text(yaml.safe_dump(settings), encoding="utf-8")
    first = _cli("run", str(config), "--quiet")
    return config, out, first


def _cli(*argv: str) -> dict[str, Any]:
    return _probe(
        f"""
        from reliability_lab.cli import main
        RESULT["rc"] = main({list(argv)!r})
        """
    )


def test_a_run_with_model_calls_loads_litellm(tiny_results: tuple) -> None:
    _, out, first = tiny_results
    assert first == {"litellm": True, "env": None, "rc": 0}
    assert len((out / "results.jsonl").read_text(encoding="utf-8").splitlines()) == 4


@pytest.mark.parametrize("command", ["validate", "report", "noop-run"])
def test_commands_without_model_calls_do_not_load_litellm(
    tiny_results: tuple, command: str
) -> None:
    config, out, _ = tiny_results
    argv = {
        "validate": ["validate", str(config)],
        "report": ["report", str(out), "--quiet"],
        "noop-run": ["run", str(config), "--quiet"],  # every run already recorded
    }[command]
    before = (out / "results.jsonl").read_bytes()
    assert _cli(*argv) == {"litellm": False, "env": None, "rc": 0}
    assert (out / "results.jsonl").read_bytes() == before


def test_ray_is_imported_only_by_an_experiment_that_runs_on_it(tmp_path: Path) -> None:
    config = tmp_path / "ray.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "name": "on-ray",
                "environment": {"limit": 1},
                "agents": [{"label": "cal", "model": "sim/calibrated"}],
                "executor": {"kind": "ray", "address": "auto"},
            }
        ),
        encoding="utf-8",
    )
    report = _probe(
        f"""
        import reliability_lab, reliability_lab.runner.runner
        import reliability_lab.runner.ray_executor
        from reliability_lab.cli import main
        RESULT["rc"] = main(["validate", {str(config)!r}])
        RESULT["ray"] = "ray" in _sys.modules
        """.replace("_sys", "__import__('sys')")
    )
    assert report == {"litellm": False, "env": None, "rc": 0, "ray": False}


def test_no_library_module_writes_the_environment() -> None:
    """The one exception is the cost-map variable around litellm's import (llm/_litellm.py)."""
    write = re.compile(r"os\.environ\s*(\[|\.(setdefault|pop|update|clear|__setitem__))|putenv")
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sorted((ROOT / "reliability_lab").rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if write.search(line) and path.name != "_litellm.py"
    ]
    assert offenders == []
