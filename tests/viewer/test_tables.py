"""``reliability-lab table DIR --latex / --markdown``: the per-agent table as a paper prints it."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from reliability_lab.cli import main
from reliability_lab.viewer.tables import latex_table, markdown_table


def _table(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["table", *args]) == 0
    return capsys.readouterr().out


def _summary(results_dir: Path) -> dict:
    return json.loads((results_dir / "summary.json").read_text(encoding="utf-8"))


def test_latex_is_booktabs_with_intervals_and_na_notes(results_dir: Path, capsys) -> None:
    out = _table(capsys, str(results_dir), "--latex", "--metric", "R", "--metric", "R_prompt")
    for rule in (r"\toprule", r"\midrule", r"\bottomrule", r"\begin{tabular}{lcc}"):
        assert rule in out
    agents = _summary(results_dir)["reliability"]["agents"]
    rows = [line for line in out.splitlines() if line.startswith(("zeta &", "alpha &"))]
    assert [r.split(" & ")[0] for r in rows] == ["zeta", "alpha"]  # the config's order
    for line in rows:
        values = agents[line.split(" & ")[0]]
        expected = (
            f"{values['R']:.2f} {{\\scriptsize [{values['R_lo']:.2f}, {values['R_hi']:.2f}]}}"
        )
        assert expected in line
        assert values["R_prompt"] is None and "n/a$^{a}$" in line
    assert "$^{a}$ no 'prompt' runs" in out


def test_markdown_has_one_row_per_agent(results_dir: Path, capsys) -> None:
    out = _table(capsys, str(results_dir), "--markdown")
    lines = out.splitlines()
    assert lines[0] == "| agent | accuracy | R_Con | R_Pred | R_Rob | R | R_saf |"
    agents = _summary(results_dir)["reliability"]["agents"]
    acc = agents["alpha"]["accuracy"]
    assert any(line.startswith(f"| alpha | {acc:.2f} [") for line in lines)


def test_unknown_metric_lists_the_known_ones(results_dir: Path, capsys) -> None:
    assert main(["table", str(results_dir), "--latex", "--metric", "bogus"]) == 2
    err = capsys.readouterr().err
    assert "bogus" in err and "R_Con" in err


def test_special_characters_are_escaped_and_na_reasons_deduplicated() -> None:
    report = pd.DataFrame(
        {"R": [0.5, math.nan], "R_lo": [0.4, math.nan], "R_hi": [0.6, math.nan]},
        index=pd.Index(["gpt_4o & co", "b|c"], name="agent"),
    )
    latex = latex_table(report, metrics=["R"])
    assert r"gpt\_4o \& co & 0.50 {\scriptsize [0.40, 0.60]} \\" in latex
    assert latex.count("$^{a}$") == 2  # the mark in the cell and in the note
    markdown = markdown_table(report, metrics=["R"])
    assert r"| b\|c | n/a<sup>a</sup> |" in markdown
