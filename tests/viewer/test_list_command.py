"""``reliability-lab list``: what a config can name, from the registries themselves."""

from __future__ import annotations

import pytest

from reliability_lab.cli import main
from reliability_lab.envs import list_environments
from reliability_lab.perturbations import list_conditions
from reliability_lab.report import METRIC_REGISTRY
from reliability_lab.sim import PERSONAS


def test_list_shows_every_registered_name(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in list_environments():
        assert f"\n  {name}  (" in out
    for name in PERSONAS:
        assert f"  sim/{name}  " in out
    for symbol in METRIC_REGISTRY:
        assert f"\n  {symbol} " in out
    for condition in list_conditions():
        assert f"\n  {condition}  variants: " in out


def test_list_one_section(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list", "conditions"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("conditions:\n") and "metrics:" not in out
