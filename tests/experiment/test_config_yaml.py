"""YAML configs: duplicate keys and booleans as numbers are errors naming file, line, field."""

from __future__ import annotations

from pathlib import Path

import pytest

from reliability_lab.errors import ConfigError
from reliability_lab.experiment.config import load_config, parse_config

HEAD = """\
name: x
agents:
  - label: a
    model: sim/calibrated
"""


def _load_error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "exp.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return str(info.value)


def test_duplicate_top_level_key_names_both_lines(tmp_path: Path) -> None:
    msg = _load_error(tmp_path, HEAD + "runs: 2\nseed: 1\nruns: 50\n")
    assert msg == (
        f"{tmp_path / 'exp.yaml'}: line 7: runs: duplicate key 'runs' (first given on line 5)"
    )


def test_duplicate_nested_key_names_its_path(tmp_path: Path) -> None:
    text = HEAD + "    params:\n      temperature: 0.1\n      temperature: 0.9\n"
    msg = _load_error(tmp_path, text)
    assert msg.endswith(
        "line 7: agents[0].params.temperature: duplicate key 'temperature' (first given on line 6)"
    )


def test_yaml_merge_keys_are_not_duplicates(tmp_path: Path) -> None:
    text = (
        "name: x\nbase: &b {model: sim/calibrated}\n"
        "agents:\n  - <<: *b\n    label: a\n  - <<: *b\n    label: b\n"
    )
    path = tmp_path / "exp.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:  # 'base' itself is an unknown field, nothing else
        load_config(path)
    assert str(info.value) == f"{path}: line 2: base: Extra inputs are not permitted"


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("runs: true", "runs"),
        ("seed: true", "seed"),
        ("max_concurrent: false", "max_concurrent"),
        ("max_steps: yes", "max_steps"),
    ],
)
def test_booleans_are_not_integers(tmp_path: Path, line: str, field: str) -> None:
    msg = _load_error(tmp_path, HEAD + line + "\n")
    assert msg.startswith(f"{tmp_path / 'exp.yaml'}: line 5: {field}: ")
    assert "boolean" in msg and "integer" in msg


def test_booleans_are_not_numbers_in_nested_fields(tmp_path: Path) -> None:
    text = HEAD + "    pass_threshold: true\nllm:\n  timeout_s: true\nreport:\n  n_boot: true\n"
    lines = _load_error(tmp_path, text).splitlines()
    assert [line.split(": ")[1:3] for line in lines] == [
        ["line 5", "agents[0].pass_threshold"],
        ["line 7", "llm.timeout_s"],
        ["line 9", "report.n_boot"],
    ]


def test_other_errors_carry_the_line_of_their_field(tmp_path: Path) -> None:
    msg = _load_error(tmp_path, HEAD + "    temprature: 0.2\nruns: 0\n")
    assert msg.splitlines() == [
        f"{tmp_path / 'exp.yaml'}: line 5: agents[0].temprature: Extra inputs are not permitted",
        f"{tmp_path / 'exp.yaml'}: line 6: runs: Input should be greater than or equal to 1 "
        "(got 0)",
    ]


def test_integers_and_python_configs_still_validate() -> None:
    agents = [{"label": "a", "model": "m"}]
    cfg = parse_config({"name": "x", "runs": 3, "seed": 0, "agents": agents})
    assert (cfg.runs, cfg.seed) == (3, 0)
    with pytest.raises(ConfigError, match=r"runs: .*boolean"):
        parse_config({"name": "x", "runs": True, "agents": agents})
