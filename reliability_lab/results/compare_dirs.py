"""``reliability-lab compare OLD NEW``: what changed between two results directories, with gates.

Both directories are read as run tables (``results.jsonl``; no model is called, litellm is not
loaded). Agents are matched by label: every label present in both is compared (``--agent``
restricts to some, ``--agent OLD=NEW`` pairs differently named ones); when each directory
holds exactly one agent, the two are paired whatever their labels. Each pair is compared with
:func:`reliability_lab.report.compare_agents` on the tasks both ran: the difference NEW − OLD
per metric, its paired bootstrap interval, a p-value and its Holm adjustment.

Gates are written like ordinary gates but apply to the **difference** (so thresholds may be
negative): ``R >= -0.02`` passes when R dropped by at most 0.02; ``C_out_lo >= 0`` when the
lower end of the difference's interval is at least 0 (a significant improvement). A gate on a
difference that is undefined fails and says why. Exit status: 0 when every gate passes, 1 when
one fails, 2 on an input error.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from reliability_lab.errors import ConfigError
from reliability_lab.experiment.gates import compare, normalise_op, parse_gate_text
from reliability_lab.metrics.registry import REPORT_METRICS

__all__ = [
    "Comparison",
    "DifferenceGate",
    "DifferenceGateResult",
    "compare_results",
    "format_comparison",
]

_SIDES = ("lo", "hi")
_COLUMN = {"": "difference", "lo": "difference_lo", "hi": "difference_hi"}


@dataclass(frozen=True)
class DifferenceGate:
    """``METRIC OP VALUE`` on NEW − OLD (``METRIC_lo``/``_hi``: an end of its interval)."""

    metric: str
    op: str
    value: float

    @classmethod
    def parse(cls, text: str) -> DifferenceGate:
        """Parse ``"R >= -0.02"``; ConfigError naming the gate and the problem."""
        try:
            metric, op, raw = parse_gate_text(text)
            op = normalise_op(op)
        except ValueError as exc:
            raise ConfigError(f"--gate {text!r}: {exc}") from None
        try:
            value = float(raw)
        except ValueError:
            raise ConfigError(f"--gate {text!r}: threshold {raw!r} is not a number") from None
        if not math.isfinite(value):
            raise ConfigError(f"--gate {text!r}: threshold must be finite")
        base, _, side = metric.rpartition("_")
        if metric not in REPORT_METRICS and not (side in _SIDES and base in REPORT_METRICS):
            raise ConfigError(
                f"--gate {text!r}: unknown metric {metric!r}; use a report metric "
                f"({', '.join(REPORT_METRICS)}) or <metric>_lo/<metric>_hi"
            )
        return cls(metric, op, value)

    @property
    def base(self) -> str:
        """The report metric the gate reads."""
        base, _, side = self.metric.rpartition("_")
        return base if side in _SIDES and base in REPORT_METRICS else self.metric

    @property
    def column(self) -> str:
        """The column of the comparison table it reads."""
        side = self.metric.rpartition("_")[2] if self.base != self.metric else ""
        return _COLUMN[side]

    def describe(self) -> str:
        return f"Δ{self.metric} {self.op} {self.value:g}"


@dataclass(frozen=True)
class DifferenceGateResult:
    """One gate on one agent pair."""

    gate: str
    agent: str
    value: float
    passed: bool
    reason: str


@dataclass(frozen=True)
class Comparison:
    """Everything ``reliability-lab compare`` computed."""

    old: Path
    new: Path
    tables: dict[str, pd.DataFrame]
    """Agent pair (``OLD`` or ``OLD→NEW``) → the :func:`compare_agents` table."""
    gates: list[DifferenceGateResult]

    @property
    def passed(self) -> bool:
        return all(g.passed for g in self.gates)


def _profile(directory: Path) -> str:
    from reliability_lab.results.store import read_header

    return read_header(directory).profile


def _pairs(old: pd.DataFrame, new: pd.DataFrame, agents: list[str] | None) -> list[tuple[str, str]]:
    old_labels, new_labels = sorted(old["agent"].unique()), sorted(new["agent"].unique())
    if agents:
        pairs = [tuple(a.split("=", 1)) if "=" in a else (a, a) for a in agents]
    else:
        pairs = [(a, a) for a in old_labels if a in new_labels]
        if not pairs and len(old_labels) == len(new_labels) == 1:
            pairs = [(old_labels[0], new_labels[0])]
    if not pairs:
        raise ConfigError(
            f"no agent label is in both directories (old: {old_labels}, new: {new_labels}); "
            "pair them with --agent OLD=NEW"
        )
    for o, n in pairs:
        if o not in old_labels:
            raise ConfigError(f"--agent: {o!r} is not an agent of the old results: {old_labels}")
        if n not in new_labels:
            raise ConfigError(f"--agent: {n!r} is not an agent of the new results: {new_labels}")
    return [(str(o), str(n)) for o, n in pairs]


def _check_gate(gate: DifferenceGate, pair: str, table: pd.DataFrame) -> DifferenceGateResult:
    if gate.base not in table.index:
        why = table.attrs.get("left_out", {}).get(gate.base, "not compared")
        reason = f"Δ{gate.base} is undefined: {gate.base} is {why}"
        return DifferenceGateResult(gate.describe(), pair, math.nan, False, reason)
    value = float(table[gate.column].to_numpy(dtype=float)[table.index.get_loc(gate.base)])
    if math.isnan(value):
        reason = f"Δ{gate.metric} is undefined (no defined bootstrap replicate or value)"
        return DifferenceGateResult(gate.describe(), pair, value, False, reason)
    passed = compare(value, gate.op, gate.value)
    verb = "satisfies" if passed else "violates"
    reason = f"Δ{gate.metric} = {value:+.4f} {verb} {gate.describe()}"
    return DifferenceGateResult(gate.describe(), pair, value, passed, reason)


def compare_results(
    old: str | os.PathLike[str],
    new: str | os.PathLike[str],
    *,
    gates: list[str] | None = None,
    agents: list[str] | None = None,
    profile: str | None = None,
    n_boot: int = 2000,
    seed: int = 0,
) -> Comparison:
    """Compare two results directories agent by agent and check difference gates.

    Parameters
    ----------
    old, new : path-like
        Results directories (``reliability-lab run`` output or ``report --output``).
    gates : list of str
        Difference gates, e.g. ``["R >= -0.02", "C_out_lo >= 0"]``.
    agents : list of str, optional
        Labels (``LABEL`` or ``OLD=NEW``) to compare; default every label both hold.
    profile : str, optional
        Metric profile; default the directories' own (they must agree).
    n_boot, seed : int
        Paired bootstrap replicates and seed.

    Raises
    ------
    ConfigError
        Bad gates or agents, or directories with different profiles and no ``profile``.
    RunTableError
        A directory that is not readable results.
    """
    from reliability_lab.metrics.profiles import get_profile
    from reliability_lab.report.compare import compare_agents
    from reliability_lab.results.read import load_results

    parsed = [DifferenceGate.parse(g) for g in gates or []]
    old_dir, new_dir = Path(old), Path(new)
    if profile is not None:
        try:
            get_profile(profile)
        except ValueError as exc:
            raise ConfigError(f"--profile: {exc}") from None
    if profile is None:
        profiles = {_profile(old_dir), _profile(new_dir)}
        if len(profiles) > 1:
            raise ConfigError(
                f"the directories use different metric profiles {sorted(profiles)}; "
                "choose one with --profile"
            )
        profile = profiles.pop()
    old_runs, new_runs = load_results(old_dir), load_results(new_dir)
    tables: dict[str, pd.DataFrame] = {}
    results: list[DifferenceGateResult] = []
    for o, n in _pairs(old_runs, new_runs, agents):
        name = o if o == n else f"{o}→{n}"
        both = pd.concat(
            [old_runs[old_runs["agent"] == o].assign(agent="old"),
             new_runs[new_runs["agent"] == n].assign(agent="new")],
            ignore_index=True,
        )  # fmt: skip
        table = compare_agents(both, "old", "new", profile=profile, n_boot=n_boot, seed=seed)
        tables[name] = table
        results += [_check_gate(g, name, table) for g in parsed]
    return Comparison(old_dir, new_dir, tables, results)


def _change(row: Any, alpha: float = 0.05) -> str:
    if math.isnan(row["p_adjusted"]) or row["p_adjusted"] >= alpha:
        return ""
    return "better" if row["difference"] > 0 else "worse"


def _fmt(value: float, signed: bool = False) -> str:
    if value is None or math.isnan(value):
        return "n/a"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


def format_comparison(comparison: Comparison) -> str:
    """The comparison as text: per agent pair a table of what changed, then the gates."""
    from reliability_lab.results.console import FAILED, PASSED, _table

    lines = [f"Comparing {comparison.old} (old) → {comparison.new} (new)"]
    for pair, table in comparison.tables.items():
        attrs = table.attrs
        level = attrs["confidence_level"]
        dropped = attrs["n_tasks_only_baseline"] + attrs["n_tasks_only_candidate"]
        lines += [
            "",
            f"  {pair}: {attrs['n_common_tasks']} common tasks"
            + (f" ({dropped} in only one directory, left out)" if dropped else "")
            + f"; profile {attrs['profile']['name']}; {attrs['n_boot']} paired replicates",
        ]
        head = ["metric", "old", "new", "Δ new−old", f"{level:.0%} CI of Δ", "p", "p (Holm)"]
        cells = [[*head, "test", "change"]]
        for metric, row in table.iterrows():
            cells.append(
                [
                    str(metric),
                    _fmt(row["baseline"]),
                    _fmt(row["candidate"]),
                    _fmt(row["difference"], signed=True),
                    f"[{_fmt(row['difference_lo'], True)}, {_fmt(row['difference_hi'], True)}]",
                    _fmt(row["p_value"]),
                    _fmt(row["p_adjusted"]),
                    str(row["test"]),
                    _change(row),
                ]
            )
        lines += _table(cells)
        family = attrs.get("family") or list(table.index)
        lines.append(f"  Holm family ({len(family)} metrics): {', '.join(family)}")
        if attrs.get("warning"):
            lines.append(f"  warning: {attrs['warning']}")
        left_out = attrs.get("left_out") or {}
        if left_out:
            listed = "; ".join(f"{m} ({why})" for m, why in left_out.items())
            lines.append(f"  not compared: {listed}")
    lines.append(
        "  [test: exact task-level sign-flip; change: Holm-adjusted p < 0.05 within the family;"
        " every metric is higher-is-better]"
    )
    if comparison.gates:
        lines.append("")
        for g in comparison.gates:
            state = "PASSED" if g.passed else "FAILED"
            lines.append(f"Gate ({g.gate}) [{g.agent}]: {state} — {g.reason}")
    lines += ["", PASSED if comparison.passed else FAILED]
    return "\n".join(lines)
