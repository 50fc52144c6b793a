"""The ``executor`` block and the rate limit, without starting Ray (issue 13)."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.errors import ConfigError
from reliability_lab.experiment.config import load_config, parse_config
from reliability_lab.llm import CallSpacing, LLMClient
from reliability_lab.results.store import make_header
from tests.experiment.helpers import TINY


def test_default_is_the_builtin_executor() -> None:
    assert parse_config(TINY).executor.kind == "asyncio"


@pytest.mark.parametrize(
    ("executor", "message"),
    [
        ({"kind": "spark"}, "executor.kind: Input should be 'asyncio' or 'ray'"),
        ({"kind": "ray", "address": "localhost"}, "executor.address: expected 'local'"),
        ({"kind": "ray", "address": "http://h:1"}, "executor.address: expected 'local'"),
        ({"num_cpus": 2}, "executor.num_cpus: only used with kind: ray"),
        ({"address": "auto"}, "executor.address: only used with kind: ray"),
        (
            {"kind": "ray", "address": "auto", "num_cpus": 2},
            "executor.num_cpus: only for a local Ray instance",
        ),
        ({"kind": "ray", "max_in_flight": 0}, "executor.max_in_flight: Input should be greater"),
        ({"kind": "ray", "workers": 3}, "executor.workers: Extra inputs are not permitted"),
    ],
)
def test_bad_executor_settings_name_the_field(
    write_config: Callable[..., Path], executor: dict[str, Any], message: str
) -> None:
    path = write_config({**TINY, "executor": executor})
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert str(err.value).startswith(f"{path}: line ")
    assert message in str(err.value)


@pytest.mark.parametrize("address", ["local", "auto", "10.0.0.5:6379", "ray://head:10001"])
def test_ray_addresses(address: str) -> None:
    config = parse_config({**TINY, "executor": {"kind": "ray", "address": address}})
    assert config.executor.ray_address == address


def test_the_executor_is_not_part_of_the_resume_fingerprint() -> None:
    builtin = parse_config(TINY)
    ray = parse_config(
        {**TINY, "executor": {"kind": "ray", "num_cpus": 2, "max_in_flight": 3}},
    )
    tasks = ["cs_01", "cs_02"]
    assert make_header(builtin, tasks).fingerprint == make_header(ray, tasks).fingerprint
    assert make_header(ray, tasks).config["executor"]["kind"] == "ray"  # recorded, not compared


def test_missing_ray_is_a_config_error_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch, write_config: Callable[..., Path], tmp_path: Path
) -> None:
    from reliability_lab.runner import run_experiment

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(ConfigError, match=r"executor.kind: ray .*reliability-lab\[ray\]"):
        run_experiment(write_config(TINY), output=tmp_path / "out", progress=False, executor="ray")


def test_call_spacing_reserves_consecutive_slots() -> None:
    spacing = CallSpacing(120)  # one call every 0.5 s
    # arrivals (s) and the waits a one-call-per-0.5-s schedule gives them, worked by hand:
    # 0 -> starts 0; 0.1 -> 0.5; 0.2 -> 1.0; 5 -> 5 (idle); 5.2 -> 5.5
    arrivals = [0.0, 0.1, 0.2, 5.0, 5.2]
    waits = [spacing.reserve(now) for now in arrivals]
    assert waits == pytest.approx([0.0, 0.4, 0.8, 0.0, 0.3])
    assert spacing.reserved == 5
    with pytest.raises(ValueError, match="calls_per_minute"):
        CallSpacing(0)


def test_the_client_asks_the_limiter_before_each_provider_call(tmp_path: Path) -> None:
    class Counting:
        calls = 0

        async def wait(self) -> None:
            self.calls += 1

    limiter = Counting()
    llm = LLMClient(cache_dir=tmp_path, limiter=limiter)
    messages = [{"role": "user", "content": "hi"}]
    asyncio.run(llm.acompletion(model="sim/calibrated", messages=messages))
    asyncio.run(llm.acompletion(model="sim/calibrated", messages=messages))  # a cache hit
    assert limiter.calls == 1


def test_max_calls_per_minute_is_validated() -> None:
    with pytest.raises(ConfigError, match=r"llm\.max_calls_per_minute"):
        parse_config({**TINY, "llm": {"max_calls_per_minute": 0}})
