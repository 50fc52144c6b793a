"""Pre-flight: before any run starts, every model must be routable and its key present."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.cli import main
from reliability_lab.errors import ConfigError
from reliability_lab.experiment.config import parse_config
from reliability_lab.llm import LLMCallError, LLMClient
from reliability_lab.runner import run_experiment
from reliability_lab.runner.preflight import check_preflight
from tests.experiment.helpers import result_lines
from tests.fake_openai_server import FakeOpenAIServer

KEY = "OPENAI_API_KEY"


def _config(*agents: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "name": "pre",
        "runs": 1,
        "environment": {"limit": 2},
        "agents": list(agents),
        "sessions": {"enabled": False},
        "report": {"n_boot": 20},
        "llm": {"max_retries": 2, "backoff_base_s": 0.01},
        **extra,
    }


def _problems(data: dict[str, Any], environ: dict[str, str]) -> str:
    with pytest.raises(ConfigError) as info:
        check_preflight(parse_config(data), source="exp.yaml", environ=environ)
    return str(info.value)


def test_unroutable_model_names_agent_field_and_fix() -> None:
    msg = _problems(
        _config({"label": "a", "model": "sim/calibrated"}, {"label": "b", "model": "opnai/gpt-4o"}),
        {},
    )
    assert msg.startswith(
        "exp.yaml: agents[1].model: litellm cannot route 'opnai/gpt-4o' (agent 'b'): "
        "'opnai' is not a litellm provider (did you mean 'openai'?)"
    )
    assert "Fix: write '<provider>/<model>'" in msg and "sim/<profile>" in msg


def test_bare_unknown_model_is_unroutable() -> None:
    msg = _problems(_config({"label": "a", "model": "my-model"}), {})
    assert "litellm cannot route 'my-model' (agent 'a'): a model name without " in msg


def test_missing_key_names_the_variable_and_every_problem_is_listed() -> None:
    data = _config(
        {"label": "gpt", "model": "openai/gpt-4o-mini"},
        {"label": "claude", "model": "anthropic/claude-3-haiku-20240307"},
        {"label": "local", "model": "hosted_vllm/m", "params": {"api_base": "http://h:8000/v1"}},
        {"label": "llama", "model": "ollama/llama3"},
    )
    lines = _problems(data, {"ANTHROPIC_API_KEY": ""}).splitlines()  # empty counts as unset
    assert lines == [
        "exp.yaml: agents[0].model: 'openai/gpt-4o-mini' (agent 'gpt') needs OPENAI_API_KEY in "
        "the environment, which is not set. Fix: export OPENAI_API_KEY=<your openai key>.",
        "exp.yaml: agents[1].model: 'anthropic/claude-3-haiku-20240307' (agent 'claude') needs "
        "ANTHROPIC_API_KEY in the environment, which is not set. Fix: export "
        "ANTHROPIC_API_KEY=<your anthropic key>.",
    ]
    check_preflight(parse_config(data), source="x", environ={KEY: "k", "ANTHROPIC_API_KEY": "k"})


def test_openai_with_a_local_server_says_any_value_works() -> None:
    agent = {"label": "a", "model": "openai/m", "params": {"api_base": "http://127.0.0.1:1/v1"}}
    msg = _problems(_config(agent), {})
    assert "any non-empty value works for a local OpenAI-compatible server" in msg
    assert "hosted_vllm/m" in msg


def test_judges_and_embedder_are_checked_when_used() -> None:
    data = _config(
        {"label": "a", "model": "sim/calibrated"},
        sessions={"enabled": True, "judge_model": "openai/gpt-4o-mini", "embedder": "foo/bar"},
        safety={"judge": True, "judge_model": "anthropic/claude-3-haiku-20240307"},
    )
    lines = _problems(data, {}).splitlines()
    assert [line.split(": ")[1] for line in lines] == [
        "sessions.judge_model",
        "sessions.embedder",
        "safety.judge_model",
    ]
    data["sessions"]["enabled"] = False
    data["safety"]["judge"] = False
    check_preflight(parse_config(data), source="x", environ={})


def test_validate_exits_2_before_anything_runs(
    tmp_path: Path,
    write_config: Callable,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(KEY, raising=False)
    cfg = write_config(_config({"label": "x", "model": "nosuchprovider/foo"}))
    assert main(["validate", str(cfg)]) == 2  # was "OK", then every run failed
    err = capsys.readouterr().err
    assert f"{cfg}: agents[0].model: litellm cannot route 'nosuchprovider/foo'" in err
    assert "Traceback" not in err


def test_run_without_key_exits_2_and_calls_nothing(
    tmp_path: Path,
    write_config: Callable,
    server: FakeOpenAIServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(KEY, raising=False)
    agent = {"label": "net", "model": "openai/fake-model", "params": {"api_base": server.base_url}}
    cfg = write_config(_config(agent))
    out = tmp_path / "out"
    assert main(["run", str(cfg), "--output", str(out)]) == 2
    err = capsys.readouterr().err
    assert "agents[0].model: 'openai/fake-model' (agent 'net') needs OPENAI_API_KEY" in err
    assert server.requests == []  # no run started, nothing paid for
    assert not (out / "results.jsonl").exists() and not (out / "header.json").exists()
    # with the key the same command runs; a finished rerun needs no key (nothing to run)
    monkeypatch.setenv(KEY, "sk-test-preflight-000000")
    assert main(["run", str(cfg), "--output", str(out), "--quiet"]) == 0
    monkeypatch.delenv(KEY)
    assert main(["run", str(cfg), "--output", str(out), "--quiet"]) == 0
    assert len(result_lines(out)) == 2


def test_skip_preflight(
    tmp_path: Path,
    write_config: Callable,
    server: FakeOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The escape hatch records the consequence instead: an auth error, not retried."""
    monkeypatch.delenv(KEY, raising=False)
    agent = {"label": "net", "model": "openai/fake-model", "params": {"api_base": server.base_url}}
    cfg = write_config(_config(agent))
    outcome = run_experiment(cfg, output=tmp_path / "out", progress=False, preflight=False)
    errors = [r["error"] for r in result_lines(tmp_path / "out")]
    assert outcome.n_executed == 2 and all(e.startswith("infrastructure: auth:") for e in errors)
    assert server.requests == []


def test_missing_key_is_an_auth_error_and_not_retried(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY, raising=False)
    client = LLMClient(max_retries=3, backoff_base_s=0.01)
    with pytest.raises(LLMCallError) as info:  # was: "server", after 4 attempts
        client.completion(
            model="openai/fake-model",
            messages=[{"role": "user", "content": "hi"}],
            api_base=server.base_url,
        )
    assert (info.value.category, info.value.attempts) == ("auth", 1)


def test_rejected_key_is_an_auth_error_and_not_retried(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY, "sk-test-wrong-0000000000")
    client = LLMClient(max_retries=3, backoff_base_s=0.01)
    with pytest.raises(LLMCallError) as info:
        client.completion(
            model="openai/always-401",
            messages=[{"role": "user", "content": "hi"}],
            api_base=server.base_url,
        )
    assert (info.value.category, info.value.attempts) == ("auth", 1)
    assert len(server.requests) == 1
