"""``validate`` without API keys (``--preflight`` checks them) and ``report DIR`` re-analysis
that never overwrites the run's summary.json."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import yaml

from reliability_lab.cli import main

KEY = "OPENAI_API_KEY"


def _config(tmp_path: Path) -> Path:
    data = {
        "name": "keys",
        "environment": {"name": "customer_service", "limit": 1},
        "agents": [{"label": "gpt", "model": "openai/gpt-4o-mini"}],
    }
    path = tmp_path / "exp.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_validate_needs_no_key_and_preflight_checks_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY, raising=False)
    cfg = _config(tmp_path)
    assert main(["validate", str(cfg)]) == 0
    assert "API keys not checked" in capsys.readouterr().out
    assert main(["validate", str(cfg), "--preflight"]) == 2
    assert f"needs {KEY} in the environment" in capsys.readouterr().err


def test_report_reanalysis_leaves_summary_json_alone(
    results_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (results_dir / "summary.json").read_bytes()
    agents = json.loads(before)["reliability"]["agents"]
    threshold = math.ceil(max(a["R"] for a in agents.values()) * 100 + 1) / 100  # none reaches it
    status = main(["report", str(results_dir), "--n-boot", "20", "--gate", f"R >= {threshold}"])
    out = capsys.readouterr().out
    assert status == 1
    assert out.startswith("Re-analysis (gates, report changed;")
    assert out.count(f"Gate (R >= {threshold}") == len(agents)
    assert (results_dir / "summary.json").read_bytes() == before


def test_report_reanalysis_rejects_an_unknown_profile(
    results_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(results_dir), "--profile", "nope"]) == 2
    assert "unknown metric profile 'nope'" in capsys.readouterr().err
