"""Credentials inside a URL never reach a results file, the cache, the lock or the console.

In a config file they are refused (the field is named, the value never shown). The provider's
environment variables may still carry them — ``OPENAI_API_BASE`` with ``user:pass@`` or
``?api-key=`` — and litellm then puts that URL into its error messages; the one secret policy
(reliability_lab/_secrets.py) must remove them on the way to every file.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.cli import main
from tests.experiment.helpers import config_writer, result_lines
from tests.fake_openai_server import FakeOpenAIServer

PASSWORD = "pw-S3cr3t-9f8e7d6c"
KEY = "qk-S3cr3t-1a2b3c4d"


def _config(**agent_extra: Any) -> dict[str, Any]:
    return {
        "name": "urls",
        "runs": 1,
        "environment": {"limit": 2},
        "agents": [
            {"label": "ok", "model": "openai/fake-model", **agent_extra},
            {"label": "broken", "model": "openai/always-500", **agent_extra},
            {"label": "denied", "model": "openai/always-401", **agent_extra},
        ],
        "llm": {"max_retries": 1, "backoff_base_s": 0.01},
        "sessions": {"enabled": False},
        "report": {"n_boot": 20},
    }


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue() + err.getvalue()


def _assert_clean(directory: Path, console: str) -> int:
    files = [p for p in directory.rglob("*") if p.is_file()]
    for path in files:
        data = path.read_bytes()
        assert PASSWORD.encode() not in data and KEY.encode() not in data, path
    assert PASSWORD not in console and KEY not in console
    return len(files)


def test_credentials_in_config_urls_are_refused_unseen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-urls-0000000000")
    base = f"http://alice:{PASSWORD}@127.0.0.1:9/v1?api-key={KEY}"
    cfg = config_writer(tmp_path)(_config(params={"api_base": base}))
    for argv in (["validate", str(cfg)], ["run", str(cfg), "--output", str(tmp_path / "out")]):
        status, console = _run(argv)
        assert status == 2
        assert "agents[0].params: 'api_base' holds credentials" in console
        assert PASSWORD not in console and KEY not in console
    assert not (tmp_path / "out" / "header.json").exists()


@pytest.mark.parametrize(
    "template",
    [
        "http://127.0.0.1:{port}/v1?api-key={key}",  # works: the key rides in the query
        "http://alice:{password}@127.0.0.1:{port}/v1?api-key={key}",  # userinfo
    ],
)
def test_credentials_in_the_provider_url_reach_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, template: str
) -> None:
    with FakeOpenAIServer() as server:
        port = server.base_url.split(":")[2].split("/")[0]
        base = template.format(port=port, key=KEY, password=PASSWORD)
        monkeypatch.setenv("OPENAI_API_BASE", base)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-urls-0000000000")
        cfg = config_writer(tmp_path)(_config())
        out = tmp_path / "out"
        status, console = _run(["run", str(cfg), "--output", str(out)])
        reached = list(server.requests)
    assert status == 0, console
    records = result_lines(out)
    assert len(records) == 6
    errors = [r["error"] for r in records if r["error"]]
    assert errors  # failures were recorded, with their (redacted) causes
    if "alice" not in template:  # the request went out; errors echoed its target
        assert reached and any("api-key=<redacted>" in e for e in errors), errors
        assert any(r["error"] is None for r in records)  # the healthy agent really ran
        assert any(p.parent.parent.name == "cache" for p in out.rglob("*.json"))
    assert _assert_clean(out, console) > 5
