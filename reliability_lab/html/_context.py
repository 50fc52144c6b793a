"""What the HTML report shows, gathered from a results directory (the template only lays it
out): provenance, the per-agent table, figures, robustness by intensity, safety, the paired
comparison and the per-task drill-down with transcripts of failed runs."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from reliability_lab.html._figures import inline_figures
from reliability_lab.plots.figure_set import figure_data
from reliability_lab.report import METRIC_REGISTRY, robustness_intervals_by_intensity
from reliability_lab.report.text import _number, metric_note, value_with_ci
from reliability_lab.results.console import SUMMARY_METRICS
from reliability_lab.results.summary import SIMULATED_NOTICE
from reliability_lab.results.summary_record import read_summary
from reliability_lab.runs import SEVERITY_WEIGHTS
from reliability_lab.viewer.runs import ViewedResults, display_rows, read_view
from reliability_lab.viewer.transcript import transcript_sections

__all__ = ["report_context"]

#: Metrics of the per-agent table: the console's headline metrics, then every other metric
#: the report has a column for, in registry order.
TABLE_METRICS: tuple[str, ...] = SUMMARY_METRICS + tuple(
    m.symbol
    for m in METRIC_REGISTRY.values()
    if m.report_column and m.symbol not in SUMMARY_METRICS and not m.symbol.startswith("agent_")
)


def _cell(row: Mapping[str, Any], name: str, digits: int = 2) -> dict[str, Any]:
    """A table cell: text with interval, sortable value, and the note (why n/a)."""
    value = _number(row.get(name))
    return {
        "text": value_with_ci(row, name, digits=digits),
        "value": "" if value is None else repr(value),
        "note": metric_note(row, name),
        "na": value is None,
    }


def _agent_table(view: ViewedResults, summary: Mapping[str, Any]) -> dict[str, Any]:
    agents_block = summary.get("reliability", {}).get("agents", {})
    metrics = [m for m in TABLE_METRICS if any(m in row for row in agents_block.values())]
    rows, notes = [], []
    for agent in view.agents:
        row = agents_block.get(agent, {})
        cells = {m: _cell(row, m) for m in metrics}
        rows.append({"agent": agent, "n_tasks": row.get("n_tasks"), "cells": cells})
        notes += [
            {"agent": agent, "metric": m, "note": c["note"], "na": c["na"]}
            for m, c in cells.items()
            if c["note"]
        ]
    legend = {m: METRIC_REGISTRY[m].name for m in metrics if m in METRIC_REGISTRY}
    return {"metrics": metrics, "rows": rows, "notes": notes, "legend": legend}


def _robustness(data: Any, summary: Mapping[str, Any], agents: list[str]) -> list[dict[str, Any]]:
    if data.robustness.empty:
        return []
    block = summary.get("reliability", {})
    table = robustness_intervals_by_intensity(
        data.runs,
        profile=data.profile,
        n_boot=int(block.get("n_boot") or 1000),
        confidence_level=float(block.get("confidence_level") or 0.95),
        seed=int(block.get("seed") or 0),
    )
    table = table.assign(order=table["agent"].map({a: i for i, a in enumerate(agents)}))
    rows = []
    for rec in table.sort_values(["order"], kind="mergesort").to_dict("records"):
        rows.append(
            {
                "agent": rec["agent"],
                "condition": rec["condition"],
                "intensity": rec["intensity"],
                "n_runs": rec["n_runs"],
                "accuracy": _cell({"a": rec["accuracy"]}, "a"),
                "robustness": _cell(
                    {
                        "r": rec["robustness"],
                        "r_lo": rec["robustness_lo"],
                        "r_hi": rec["robustness_hi"],
                    },
                    "r",
                ),
            }
        )
    return rows


def _safety(summary: Mapping[str, Any], agents: list[str]) -> dict[str, Any]:
    block = summary.get("safety") or {}
    per_agent = block.get("per_agent") or {}
    constraints = sorted({c for a in per_agent.values() for c in a.get("runs_by_constraint", {})})
    rows = [
        {
            "agent": agent,
            "n_runs": per_agent[agent].get("n_runs"),
            "violating": per_agent[agent].get("n_violating_runs"),
            "constraints": [
                per_agent[agent].get("runs_by_constraint", {}).get(c, 0) for c in constraints
            ],
            "severities": [
                per_agent[agent].get("findings_by_severity", {}).get(s, 0) for s in SEVERITY_WEIGHTS
            ],
        }
        for agent in agents
        if agent in per_agent
    ]
    return {
        "scope": block.get("scope", ""),
        "constraints": constraints,
        "severities": list(SEVERITY_WEIGHTS),
        "rows": rows,
        "notice": (block.get("judge") or {}).get("notice"),
    }


def _comparisons(data: Any) -> list[dict[str, Any]]:
    out = []
    for candidate, table in data.comparisons.items():
        rows = []
        for metric, rec in table.iterrows():
            diff = {
                "d": rec["difference"],
                "d_lo": rec["difference_lo"],
                "d_hi": rec["difference_hi"],
            }
            rows.append(
                {
                    "metric": metric,
                    "baseline": _cell({"v": rec["baseline"]}, "v"),
                    "candidate": _cell({"v": rec["candidate"]}, "v"),
                    "difference": _cell(diff, "d"),
                    "p_adjusted": _cell({"p": rec["p_adjusted"]}, "p", digits=3),
                    "n_tasks": rec["n_tasks"],
                }
            )
        left_out = table.attrs.get("left_out", {})
        out.append(
            {
                "baseline": table.attrs.get("baseline"),
                "candidate": candidate,
                "rows": rows,
                "left_out": left_out,
            }
        )
    return out


def _drill_down(view: ViewedResults) -> tuple[list[dict[str, Any]], list[Any]]:
    tasks = []
    failed_keys = []
    runs = view.runs
    for task, group in runs.groupby("task_id", sort=False):
        rows = display_rows(group)
        for row, key, success in zip(rows, group["key"], group["success"], strict=True):
            row["key"] = key
            row["anchor"] = "" if success else _anchor(key)
            if not success:
                failed_keys.append(key)
        tasks.append(
            {"task": task, "rows": rows, "n": len(rows), "n_failed": int((~group["success"]).sum())}
        )
    transcripts = [{"anchor": _anchor(k), "t": transcript_sections(view, k)} for k in failed_keys]
    return tasks, transcripts


def _anchor(key: str) -> str:
    """An HTML id for a run key (``|`` and ``=`` are not welcome in fragment links)."""
    return "run-" + "".join(c if c.isalnum() or c in "-_." else "_" for c in key)


def _provenance(view: ViewedResults, summary: Mapping[str, Any]) -> dict[str, Any]:
    from reliability_lab._version import __version__

    header = view.header
    config = header.get("config", {})
    return {
        "name": header.get("suite_name"),
        "description": (config.get("description") or "").strip(),
        "fingerprint": header.get("fingerprint"),
        "profile": summary.get("profile") or header.get("profile"),
        "k": config.get("runs"),
        "tasks": header.get("tasks", []),
        "agents": [(a, header.get("models", {}).get(a, "")) for a in view.agents],
        "simulated": bool(header.get("simulated")),
        "simulated_notice": summary.get("notice") or SIMULATED_NOTICE,
        "version": header.get("version"),
        "report_version": __version__,
        "started": header.get("timestamp"),
        "updated": header.get("updated"),
        "generated": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "seed": header.get("seed"),
        "n_runs": len(view.runs),
        "level": f"{float(summary.get('reliability', {}).get('confidence_level') or 0.95):.0%}",
    }


def report_context(directory: str | Path) -> dict[str, Any]:
    """Everything ``report.html.j2`` renders, from the results directory ``directory``."""
    view = read_view(directory)
    summary = read_summary(directory).model_dump(mode="json")  # every block, defaults filled
    data = figure_data(directory)
    agents = view.agents
    tasks, transcripts = _drill_down(view)
    gates = summary.get("gates") or []
    return {
        "p": _provenance(view, summary),
        "agent_table": _agent_table(view, summary),
        "gates": gates,
        "verdict": "no gates"
        if not gates
        else ("PASSED" if summary.get("gates_passed") else "FAILED"),
        "figures": inline_figures(data),
        "robustness": _robustness(data, summary, agents),
        "faults": {a: summary.get("robustness", {}).get("faults", {}).get(a) for a in agents},
        "safety": _safety(summary, agents),
        "comparisons": _comparisons(data),
        "tasks": tasks,
        "transcripts": transcripts,
        "infra": summary.get("infra_errors", {}),
    }
