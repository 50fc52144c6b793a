"""The real HTTP path: litellm → a local OpenAI-compatible server that injects failures.

Every planned run must be recorded exactly once; provider failures must be recorded as
``infrastructure: <category>: ...`` and excluded from outcome metrics, never scored.
"""

from __future__ import annotations

import contextlib
import io
import math
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from reliability_lab.cli import main
from reliability_lab.results import ExperimentSummary, summarize_directory
from reliability_lab.runner import run_experiment
from tests.experiment.helpers import result_lines, run_keys
from tests.fake_openai_server import FakeOpenAIServer

SECRET = "sk-test-SECRET-0123456789abcdef"
# agent label -> (fake server model, expected infrastructure category or None)
AGENTS = {
    "healthy": ("fake-model", None),
    "flaky": ("flaky", None),  # every request fails once, the retry succeeds
    "ratelimited": ("always-429", "rate_limit"),
    "broken": ("always-500", "server"),
    "hanging": ("always-hang", "timeout"),  # never answers: its own 1 s timeout always fires
    "garbled": ("always-badjson", "bad_response"),
    "shapeless": ("always-noshape", "bad_response"),
    "mixed": ("mixed-500", "server"),  # some requests fail permanently, others succeed
}
N_TASKS, K = 2, 2


def _config(base_url: str) -> dict:
    return {
        "name": "http",
        "seed": 3,
        "runs": K,
        "max_concurrent": 16,
        "environment": {"name": "customer_service", "limit": N_TASKS},
        "agents": [
            {
                "label": label,
                "model": f"openai/{model}",
                "params": {"api_base": base_url, **({"timeout": 1} if label == "hanging" else {})},
            }
            for label, (model, _) in AGENTS.items()
        ],
        # generous for every answering server: only the one that never answers times out
        "llm": {"max_retries": 2, "backoff_base_s": 0.01, "backoff_max_s": 0.02, "timeout_s": 120},
        "report": {"n_boot": 20},
        "gates": ["accuracy >= 0.0"],
    }


@pytest.fixture(scope="module")
def slow_server() -> Iterator[FakeOpenAIServer]:
    # every answer takes 0.6 s, as on a loaded machine: more than the 0.5 s client timeout this
    # test once used, so a speed-dependent configuration would fail here every time
    with FakeOpenAIServer(latency_s=0.6) as srv:
        yield srv


@pytest.fixture(scope="module")
def http_results(
    tmp_path_factory: pytest.TempPathFactory, slow_server: FakeOpenAIServer
) -> tuple[Path, ExperimentSummary, str]:
    """One experiment through the CLI entry point (in-process), shared by this module."""
    tmp = tmp_path_factory.mktemp("http")
    cfg = tmp / "http.yaml"
    cfg.write_text(yaml.safe_dump(_config(slow_server.base_url)), encoding="utf-8")
    out = tmp / "out"
    stdout, stderr = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("OPENAI_API_KEY", SECRET)
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            status = main(["run", str(cfg), "--output", str(out)])
    # agents whose every run hit an infrastructure error have no accuracy: their gate fails
    assert status == 1, stderr.getvalue()
    assert any(SECRET in auth for auth in slow_server.seen_auth)  # the key really was used
    assert "Infrastructure errors:" in stdout.getvalue()
    return out, summarize_directory(out), stdout.getvalue() + stderr.getvalue()


def test_every_run_accounted_for_and_failures_categorised(http_results: tuple) -> None:
    out, summary, _ = http_results
    records = result_lines(out)
    keys = run_keys(records)
    assert len(keys) == len(set(keys)) == len(AGENTS) * N_TASKS * K
    by_agent: dict[str, list[dict]] = {}
    for rec in records:
        by_agent.setdefault(rec["agent"], []).append(rec)
    for label, (_, category) in AGENTS.items():
        runs = by_agent[label]
        infra = [r for r in runs if (r["error"] or "").startswith("infrastructure:")]
        for r in infra:  # an infrastructure failure is never scored
            assert r["success"] is False and r["score"] is None
        if label == "mixed":
            assert 0 < len(infra) < len(runs)
            assert all(r["error"].startswith(f"infrastructure: {category}:") for r in infra)
        elif category is None:
            assert infra == [], [r["error"] for r in infra]
            assert all(r["api_calls"] >= 2 and r["actions"] for r in runs)
        else:
            assert len(infra) == len(runs)
            for r in infra:
                assert r["error"].startswith(f"infrastructure: {category}:"), r["error"]
    # infrastructure runs are counted separately and excluded from outcome counts
    metrics = {m["agent"]: m for m in summary.metrics["per_model"]}
    report = summary.report
    for label in AGENTS:
        runs = by_agent[label]
        n_infra = sum((r["error"] or "").startswith("infrastructure:") for r in runs)
        attempted = [r for r in runs if not (r["error"] or "").startswith("infrastructure:")]
        assert metrics[label]["n_infra_errors"] == n_infra == report.loc[label, "n_infra_errors"]
        assert metrics[label]["total_attempted"] == len(attempted)
        if attempted:
            expected = sum(r["success"] for r in attempted) / len(attempted)
            assert metrics[label]["accuracy"] == pytest.approx(expected)
            assert report.loc[label, "accuracy"] == pytest.approx(expected)
        else:
            assert math.isnan(metrics[label]["accuracy"])
            assert math.isnan(report.loc[label, "accuracy"])


def test_gates_never_pass_on_infrastructure_failures(http_results: tuple) -> None:
    _, summary, _ = http_results
    verdicts = {g.agent: g for g in summary.gates}
    for label, (_, category) in AGENTS.items():
        assert verdicts[label].passed == (category is None or label == "mixed"), label
    assert verdicts["ratelimited"].reason == "only 0 attempted runs (< min_runs 1)"


def test_every_failure_kind_was_injected(
    http_results: tuple, slow_server: FakeOpenAIServer
) -> None:
    for kind in ("429", "500", "badjson", "forever", "noshape", "ok"):
        assert slow_server.counts[kind] > 0, kind


def test_no_api_key_in_any_output(http_results: tuple) -> None:
    out, _, console = http_results
    assert SECRET not in console
    files = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.parent.parent.name == "cache" for p in files)  # the cache was checked too
    for path in files:
        assert SECRET.encode() not in path.read_bytes(), path


def test_rerun_is_served_from_cache(
    http_results: tuple,
    slow_server: FakeOpenAIServer,
    tmp_path: Path,
    write_config: Callable,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    out, _, _ = http_results
    healthy = [r for r in result_lines(out) if r["agent"] == "healthy"]
    cfg = _config(slow_server.base_url)
    cfg["agents"] = [a for a in cfg["agents"] if a["label"] == "healthy"]
    other = tmp_path / "again"
    # same settings, fresh directory sharing the cache: no request reaches the server
    other.mkdir()
    shutil.copytree(out / "cache", other / "cache")
    before = slow_server.counts["requests"]
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)  # pre-flight: the provider's key is set
    run_experiment(write_config(cfg, name="again.yaml"), output=other, progress=False)
    assert slow_server.counts["requests"] == before
    again = result_lines(other)
    strip = lambda rs: sorted(  # noqa: E731
        ({k: v for k, v in r.items() if k not in ("wall_time_s",)} for r in rs),
        key=lambda r: (r["task_id"], r["run"]),
    )
    assert strip(again) == strip(healthy)
