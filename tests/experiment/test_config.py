"""Config validation: every problem names the file, the field path and the value."""

from __future__ import annotations

from pathlib import Path

import pytest

from reliability_lab.errors import ConfigError
from reliability_lab.experiment.config import ExperimentConfig, load_config, parse_config

MINIMAL = {"name": "x", "agents": [{"label": "a", "model": "sim/calibrated"}]}


def _error(data: object, source: str = "exp.yaml") -> str:
    with pytest.raises(ConfigError) as info:
        parse_config(data, source=source)
    return str(info.value)


def test_minimal_config_gets_documented_defaults() -> None:
    cfg = parse_config(MINIMAL)
    assert (cfg.runs, cfg.seed, cfg.max_steps, cfg.cache, cfg.profile) == (
        5,
        0,
        15,
        True,
        "default",
    )
    assert [c.name for c in cfg.conditions] == ["baseline"]
    assert cfg.conditions[0].resolved_variants() == ("",)
    assert cfg.environment.name == "customer_service" and cfg.environment.tasks == "all"
    assert cfg.output_dir() == Path("results") / "x"


def test_missing_field_names_file_and_path() -> None:
    msg = _error({"name": "x", "agents": [{"label": "a", "model": "m"}, {"label": "b"}]})
    assert msg == "exp.yaml: agents[1].model: Field required"


def test_bad_value_is_shown() -> None:
    msg = _error({**MINIMAL, "runs": 0})
    assert msg.startswith("exp.yaml: runs: ") and "(got 0)" in msg


def test_unknown_key_is_rejected_not_ignored() -> None:
    msg = _error({**MINIMAL, "agents": [{"label": "a", "model": "m", "temprature": 0.2}]})
    assert "agents[0].temprature: Extra inputs are not permitted" in msg


def test_several_problems_reported_together() -> None:
    msg = _error({**MINIMAL, "runs": -1, "seed": "abc", "environment": {"tasks": 5}})
    lines = msg.splitlines()
    assert len(lines) == 3
    assert {line.split(":")[1].strip() for line in lines} == {"runs", "seed", "environment.tasks"}


def test_duplicate_agent_labels() -> None:
    agents = [{"label": "a", "model": "m"}, {"label": "a", "model": "n"}]
    assert "duplicate labels ['a']" in _error({"name": "x", "agents": agents})


def test_unknown_condition_lists_registered() -> None:
    msg = _error({**MINIMAL, "conditions": ["baseline", "faults"]})
    assert (
        "conditions[1]: unknown condition 'faults'; registered: baseline, fault, prompt, "
        "structural" in msg
    )


def test_unknown_metric_profile() -> None:
    msg = _error({**MINIMAL, "profile": "paper"})
    assert "profile: unknown metric profile 'paper'; valid: default, preprint" in msg


@pytest.mark.parametrize(
    ("gate", "fragment"),
    [
        ("R >= 70", "gates[0].value: gate thresholds are on a 0–1 scale"),
        ("pass_rate >= 0.5", "gates[0].metric: unknown metric 'pass_rate'"),
        ("R => 0.5", "cannot parse gate 'R => 0.5'"),
        ({"metric": "R", "op": "approx", "value": 0.5}, "gates[0].op: unknown comparison"),
        ({"metric": "R", "value": 0.5, "agent": "zz"}, "gates[0].agent: unknown agent 'zz'"),
        ({"metric": "R", "value": 0.5, "min_runs": 0}, "gates[0].min_runs:"),
    ],
)
def test_gate_errors(gate: object, fragment: str) -> None:
    assert fragment in _error({**MINIMAL, "gates": [gate]})


def test_gate_spellings_are_equivalent() -> None:
    cfg = parse_config(
        {
            **MINIMAL,
            "gates": [
                "accuracy >= 0.8",
                {"metric": "accuracy", "op": ">=", "value": 0.8},
                {"metric_key": "accuracy", "op": "gte", "value": 0.8},
            ],
        }
    )
    assert len({(g.metric, g.op, g.value) for g in cfg.gates}) == 1


def test_secrets_in_params_are_refused_without_echoing_them() -> None:
    secret = "sk-live-abcdefghijklmnop"
    for params in (
        {"api_key": secret},
        {"extra_headers": {"Authorization": f"Bearer {secret}"}},
        {"note": secret},
        {"api_base": f"http://me:{secret}@localhost:4000/v1"},
        {"api_base": f"https://example.com/v1?api-key={secret}"},
        {"token": secret},
        {"auth": secret},
    ):
        msg = _error({"name": "x", "agents": [{"label": "a", "model": "m", "params": params}]})
        assert "agents[0].params" in msg
        assert secret not in msg
    # ordinary parameters, and headers that carry no credential, are accepted
    params = {"max_tokens": 5, "top_logprobs": 2, "extra_headers": {"X-Request-Source": "lab"}}
    cfg = parse_config({"name": "x", "agents": [{"label": "a", "model": "m", "params": params}]})
    assert cfg.agents[0].params == params


def test_overrides_replace_top_level_fields() -> None:
    cfg = parse_config(
        MINIMAL, overrides={"runs": 2, "seed": 7, "output": "o", "max_concurrent": None}
    )
    assert (cfg.runs, cfg.seed, cfg.output, cfg.max_concurrent) == (2, 7, "o", 8)


def test_load_config_file_errors(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(ConfigError, match=r"nope\.yaml: file not found"):
        load_config(missing)
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nagents: [\n  - label: a\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.yaml: line \d+, column \d+: invalid YAML"):
        load_config(bad)
    empty = tmp_path / "empty.yaml"
    empty.write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"empty\.yaml: the file is empty"):
        load_config(empty)
    listing = tmp_path / "list.yaml"
    listing.write_text("- a\n- b\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="expected a mapping of settings, got list"):
        load_config(listing)


def test_shipped_configs_are_valid() -> None:
    root = Path(__file__).resolve().parents[2] / "experiments"
    for path in sorted(root.glob("*.yaml")):
        assert isinstance(load_config(path), ExperimentConfig)
