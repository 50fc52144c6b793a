"""The console summary block printed after a run (and by ``reliability-lab report``)."""

from __future__ import annotations

import math
from typing import Any

from reliability_lab.metrics.profiles import TIME_RESOURCES, resources_used
from reliability_lab.metrics.registry import METRIC_REGISTRY
from reliability_lab.report.text import metric_note, value_with_ci
from reliability_lab.results.adaptive_block import adaptive_lines
from reliability_lab.results.diagnostics import diagnostic_lines
from reliability_lab.results.imported import IMPORT_KEY
from reliability_lab.results.robustness_block import robustness_lines
from reliability_lab.results.summary import (
    HASHING_EMBEDDER_NOTICE,
    SIMULATED_JUDGE_NOTICE,
    SIMULATED_NOTICE,
    ExperimentSummary,
)
from reliability_lab.runs import SEVERITY_WEIGHTS, is_simulated_model

__all__ = ["FAILED", "NO_GATES", "PASSED", "format_summary", "verdict"]

PASSED = "✓ PASSED"
FAILED = "✗ FAILED"
#: The verdict when the config declares no gate: nothing passed, nothing failed (exit 0).
NO_GATES = "no gates"
#: Report columns of the per-agent table: the registry's headline metrics, safety (never part
#: of R) last.
SUMMARY_METRICS: tuple[str, ...] = tuple(
    m.symbol
    for m in sorted(METRIC_REGISTRY.values(), key=lambda m: m.dimension == "safety")
    if m.headline
)


def _with_ci(row: Any, name: str) -> str:
    return value_with_ci(row, name, digits=2)


def _metric_notes(agent: str, row: Any) -> list[str]:
    """A line for ``agent`` naming why table metrics are n/a and the terms aggregates used."""
    if not len(row):
        return []
    notes = []
    for name in SUMMARY_METRICS:
        note = metric_note(row, name)
        if note:
            defined = value_with_ci(row, name) != "n/a"
            notes.append(f"{name} {note}" if defined else f"{name} n/a ({note})")
    return [f"  {agent}: {'; '.join(notes)}"] if notes else []


def _table(cells: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    return [
        "  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in cells
    ]


def _session_lines(summary: ExperimentSummary) -> list[str]:
    """Per-agent PandaProbe session metrics with CIs, and what judged them (if evaluated)."""
    info = summary.content.get("sessions") or {}
    if not info.get("enabled"):
        return []
    errors = info.get("per_agent_session_errors", {})
    cells = [["agent", "agent_reliability", "agent_consistency", "session errors"]]
    for agent in summary.header.models:
        if agent not in errors:
            continue
        row: Any = summary.report.loc[agent] if agent in summary.report.index else {}
        cells.append(
            [
                agent,
                _with_ci(row, "agent_reliability"),
                _with_ci(row, "agent_consistency"),
                str(errors[agent]),
            ]
        )
    lines = [
        "",
        "  Session metrics (PandaProbe; one session per run, one trace per agent step; runs with "
        "a session error are left out; PandaProbe's own risk-based 0–1 scale, not comparable "
        "with R or its dimensions):",
        *_table(cells),
    ]
    judge = (
        SIMULATED_JUDGE_NOTICE.format(judge=info["judge_model"])
        if info.get("simulated_judge")
        else f"judge {info['judge_model']}"
    )
    embedder = (
        HASHING_EMBEDDER_NOTICE if info.get("offline_embedder") else f"embedder {info['embedder']}"
    )
    lines.append(f"  Session scoring: {judge}; {embedder}.")
    return lines


def _pass_k_lines(content: dict[str, Any]) -> list[str]:
    """pass^k per agent (baseline runs; k up to the fewest runs of a task)."""
    curves = content.get("pass_k") or {}
    if not curves:
        return []
    lines = ["", "pass^k (baseline; all of k runs succeed, docs/methodology.md):"]
    width = max(len(agent) for agent in curves)
    for agent, curve in curves.items():
        values = "  ".join(
            f"{k}: n/a" if math.isnan(v) else f"{k}: {v:.3f}"
            for k, v in zip(curve["k"], curve["pass_hat_k"], strict=True)
        )
        lines.append(f"  {agent.ljust(width)}  {values}  ({curve['n_tasks']} tasks)")
    return lines


def _safety_lines(summary: ExperimentSummary) -> list[str]:
    """Per-agent safety: S_comp, S_harm, findings by severity and source, and by constraint."""
    info = summary.content.get("safety") or {}
    per_agent = info.get("per_agent") or {}
    if not per_agent:
        return []
    if all(e["n_runs"] == 0 and e.get("not_checked") for e in per_agent.values()):
        return [
            "",
            "  Safety: not checked — these runs carry no safety findings, so S_comp, S_harm "
            "and R_saf are n/a (not 1.0).",
        ]
    judge = info.get("judge") or {}
    sources = ["rule", "judge", "rule+judge"] if judge.get("enabled") else ["rule"]
    head = ["agent", "runs", "violating", "S_comp", "S_harm", *SEVERITY_WEIGHTS, *sources]
    if judge.get("enabled"):
        head.append("judge failed")
    cells = [head]
    by_constraint = []
    for agent in summary.header.models:
        entry = per_agent.get(agent)
        if entry is None:
            continue
        row: Any = summary.report.loc[agent] if agent in summary.report.index else {}
        severity, source = entry["findings_by_severity"], entry["findings_by_source"]
        cells.append(
            [agent, str(entry["n_runs"]), str(entry["n_violating_runs"])]
            + [_with_ci(row, "S_comp"), _with_ci(row, "S_harm")]
            + [str(severity.get(s, 0)) for s in SEVERITY_WEIGHTS]
            + [str(source.get(s, 0)) for s in sources]
            + ([str(entry["judge_failures"])] if judge.get("enabled") else [])
        )
        counts = ", ".join(f"{c} {n}" for c, n in entry["runs_by_constraint"].items())
        by_constraint.append(f"    {agent}: {counts or 'none'}")
    how = f"rule detectors + LLM judge {judge['judge_model']}" if judge.get("enabled") else ""
    lines = [
        "",
        f"  Safety (baseline runs; {how or 'rule detectors'}); severity and source columns "
        "count findings:",
        *_table(cells),
        "  Runs with a violation, by constraint:",
        *by_constraint,
    ]
    if judge.get("enabled"):
        cost = judge.get("cost_usd_per_judged_run")
        shown = f"${cost:.6f}" if cost is not None else "unknown"
        lines.append(
            f"  Safety judge: {judge['n_judged']} runs judged, {judge['n_judge_failures']} failed "
            f"(left out of S_comp/S_harm); cost per judged run {shown}."
        )
        if judge.get("notice"):
            lines.append(f"  Note: {judge['notice']}.")
    return lines


def _planned_text(summary: ExperimentSummary, total: int) -> str:
    """``12 of 24 planned (12 missing: b 12)`` — or just the count for imported logs."""
    plan = summary.content.get("plan")
    if not plan:
        return str(total)
    text = f"{total} of {plan['planned']} planned"
    if plan["missing"]:
        by_agent = ", ".join(f"{a} {n}" for a, n in plan["missing_by_agent"].items())
        text += f" ({plan['missing']} missing: {by_agent})"
    return text


def verdict(summary: ExperimentSummary) -> str:
    """``✓ PASSED`` when every gate passed, ``✗ FAILED`` when one failed, ``no gates`` when
    the config declares none."""
    if not summary.gates:
        return NO_GATES
    return PASSED if summary.passed else FAILED


def _time_resource_lines(summary: ExperimentSummary) -> list[str]:
    """A note when C_res averages time-based resources of simulated or cached runs."""
    used = summary.content["reliability"].get("resources") or resources_used(None)
    runs = summary.runs
    timed = [r for r in TIME_RESOURCES if r in used and r in runs.columns and runs[r].notna().any()]
    config = summary.header.config
    # imported logs were timed where they ran; only our own runs can come from our cache
    cached = IMPORT_KEY not in config and bool(config.get("cache", True))
    if not timed or not (summary.simulated or cached):
        return []
    source = "simulated" if summary.simulated else "cached (cache: true)"
    return [
        f"  note: C_res includes {', '.join(timed)} of {source} runs: these measure this "
        "machine's load, so identical reruns can differ; report.resources can leave them out"
    ]


def format_summary(summary: ExperimentSummary) -> str:
    """The multi-line summary block: notice, counts, per-agent table with CIs, gates, verdict."""
    header, metrics = summary.header, summary.metrics
    lines = [f"Results: {header.suite_name}  ({summary.directory})"]
    if summary.simulated:
        sim = [a for a, m in header.models.items() if is_simulated_model(m)]
        lines += ["", f"*** {SIMULATED_NOTICE} Simulated agents: {', '.join(sim)}. ***"]
    n_tasks = summary.runs["task_id"].nunique() if len(summary.runs) else 0
    lines += [
        "",
        f"  Total runs: {_planned_text(summary, metrics['total'])}  "
        f"Attempted: {metrics['total_attempted']}  "
        f"Infrastructure errors: {metrics['n_infra_errors']}  "
        f"(agents: {len(header.models)}, tasks: {n_tasks}, "
        f"K: {header.config.get('runs')}, profile: {header.profile})",
        "",
    ]
    level = summary.content["reliability"]["confidence_level"]
    cells = [["agent", "model", "runs", "infra", *SUMMARY_METRICS]]
    per_model = {entry["agent"]: entry for entry in metrics["per_model"]}
    notes: list[str] = []
    for agent in header.models:
        entry = per_model.get(agent)
        if entry is None:
            continue
        row: Any = summary.report.loc[agent] if agent in summary.report.index else {}
        cells.append(
            [agent, header.models[agent], str(entry["total"]), str(entry["n_infra_errors"])]
            + [_with_ci(row, name) for name in SUMMARY_METRICS]
        )
        notes += _metric_notes(agent, row)
    lines += _table(cells)
    over = (
        "tasks, then runs"
        if summary.content["reliability"].get("bootstrap") == "two-level"
        else "tasks"
    )
    lines.append(f"  [brackets: {level:.0%} bootstrap CI over {over}; R_saf is not part of R]")
    lines += _time_resource_lines(summary)
    lines.append(
        "  [runs: recorded runs; infra: runs with an infrastructure error, left out of every "
        "metric; n/a: undefined, the reason follows; all metrics on a 0–1 scale, higher is better]"
    )
    lines += notes
    lines += diagnostic_lines(summary.content)
    lines += robustness_lines(summary.content, summary.report, list(header.models), _table)
    lines += adaptive_lines(summary.content)
    lines += _pass_k_lines(summary.content)
    lines += _session_lines(summary)
    lines += _safety_lines(summary)
    if summary.gates:
        lines.append("")
        for g in summary.gates:
            state = "PASSED" if g.passed else "FAILED"
            lines.append(f"Gate ({g.gate}) [{g.agent}]: {state} — {g.reason}")
    lines += ["", verdict(summary)]
    return "\n".join(lines)
