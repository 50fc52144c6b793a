"""Every string a run writes passes the one redaction policy, file by file (issue 25, item 8).

A provider that echoes the API key in a *successful* reply and a ``token=...`` in the
experiment's ``description`` must reach no results file, trace, cache entry, header, summary
or the console.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reliability_lab.cli import main
from tests.experiment.helpers import config_writer, result_lines
from tests.fake_openai_server import FakeOpenAIServer, scripted_reply

KEY = "sk-proj-" + "Zq9xW" * 8
DESCRIPTION_TOKEN = "desc0secret0value42"


def _echo_key(body: dict[str, Any]) -> dict[str, Any]:
    reply = scripted_reply(body)
    if reply.get("content"):
        reply["content"] += f" (authenticated with {KEY})"
    return reply


def test_a_key_echoed_by_the_provider_and_a_token_in_the_description_reach_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAIServer(responder=_echo_key) as server:
        cfg = config_writer(tmp_path)(
            {
                "name": "secrets",
                "description": f"nightly run; token={DESCRIPTION_TOKEN}",
                "runs": 2,
                "environment": {"name": "customer_service", "limit": 1},
                "agents": [
                    {
                        "label": "real",
                        "model": "openai/test-model",
                        "params": {"api_base": server.base_url},
                    }
                ],
                "report": {"n_boot": 10},
            }
        )
        out = tmp_path / "out"
        capsys.readouterr()
        status = main(["run", str(cfg), "--output", str(out)])
        console = capsys.readouterr()
        assert server.requests  # the provider was really called and echoed the key
    assert status == 0, console.err
    records = result_lines(out)
    assert any("<redacted>" in str(r["trajectory"]) for r in records)  # the echo was recorded
    files = {
        p.relative_to(out).as_posix(): p.read_text("utf-8") for p in out.rglob("*") if p.is_file()
    }
    for name in (
        "header.json",
        "summary.json",
        "results.jsonl",
        "traces.jsonl",
        "run_1/results.jsonl",
    ):
        assert name in files, sorted(files)
    assert any(name.startswith("cache/") for name in files)
    leaks = {name for name, text in files.items() if KEY in text or DESCRIPTION_TOKEN in text}
    assert leaks == set()
    assert KEY not in console.out + console.err
    assert DESCRIPTION_TOKEN not in console.out + console.err
    assert "token=<redacted>" in files["header.json"]
