"""Recorded runs against the plan in ``header.json``: missing runs counted, unplanned refused.

``reliability-lab report`` (and every summary of an experiment's directory) checks the records
against the runs the header's configuration plans: a record of a run the plan does not list is
an input error, a planned run without a record is counted as missing ("12 of 24 planned runs")
and a gate of an agent without any record fails. Imported logs come without a plan and are not
checked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from reliability_lab.errors import RunTableError
from reliability_lab.experiment.config import ExperimentConfig
from reliability_lab.experiment.gates import GateConfig
from reliability_lab.experiment.plan import planned_keys
from reliability_lab.results.adaptive_block import decided_keys
from reliability_lab.results.imported import IMPORT_KEY
from reliability_lab.results.store import HeaderRecord
from reliability_lab.runs import RunKey

__all__ = ["gates_per_agent", "header_plan", "plan_coverage"]

_SHOWN = 5


def _describe_plan(header: HeaderRecord, plan: Sequence[RunKey]) -> str:
    conditions = sorted({(k[2], k[3]) for k in plan})
    shown = ", ".join(f"{c}/{v}" if v else c for c, v in conditions)
    runs = max((k[4] for k in plan), default=-1) + 1
    return (
        f"agents {list(header.models)}, {len(header.tasks)} tasks, conditions [{shown}], K={runs}"
    )


def plan_coverage(
    keys: Sequence[RunKey], plan: Sequence[RunKey], header: HeaderRecord, path: Path
) -> dict[str, Any]:
    """The ``plan`` block of ``summary.json``: planned, recorded and missing runs.

    Parameters
    ----------
    keys : sequence of RunKey
        The run key of each line of ``path`` (line *i* holds ``keys[i - 1]``).
    plan : sequence of RunKey
        The planned runs, in plan order.
    header : HeaderRecord
        The directory's header (named in messages).
    path : Path
        The ``results.jsonl`` file.

    Returns
    -------
    dict
        ``planned``, ``recorded``, ``missing``, ``missing_by_agent`` (agent → missing runs, only
        agents with some missing) and ``first_missing`` (up to five session ids,
        ``agent|task_id|condition|variant|run``, in plan order).

    Raises
    ------
    RunTableError
        A record of a run the plan does not list (file, line, run and the plan named).
    """
    planned = set(plan)
    for number, key in enumerate(keys, start=1):
        if key not in planned:
            raise RunTableError(
                f"{path}: line {number}: run {key} is not in the plan in header.json "
                f"({_describe_plan(header, plan)}); `reliability-lab repair {path.parent}` "
                "moves such records to results.audit.jsonl"
            )
    recorded = set(keys)
    missing = [k for k in plan if k not in recorded]
    return {
        "planned": len(plan),
        "recorded": len(recorded),
        "missing": len(missing),
        "missing_by_agent": dict(Counter(k[0] for k in missing)),
        "first_missing": ["|".join(map(str, k)) for k in missing[:_SHOWN]],
    }


def gates_per_agent(gates: Sequence[GateConfig], agents: Sequence[str]) -> list[GateConfig]:
    """Every gate without an ``agent`` once for each of ``agents`` (in the same order as
    :func:`~reliability_lab.experiment.gates.evaluate_gates` checks them), so that a planned
    agent without any record fails it ("no results for agent") instead of being skipped."""
    out: list[GateConfig] = []
    for gate in gates:
        if gate.agent is not None:
            out.append(gate)
        else:
            out += [gate.model_copy(update={"agent": agent}) for agent in agents]
    return out


def header_plan(header: HeaderRecord, directory: Path | None = None) -> list[RunKey] | None:
    """The run keys planned by a results directory's ``header.json``, in plan order.

    With ``directory``, the runs its ``adaptive.json`` rounds added follow, in round order
    (an adaptive block decides them as the experiment goes). None for a directory of imported
    logs (``reliability-lab report LOGS --output DIR``): they come without a plan.

    Raises
    ------
    RunTableError
        The header's configuration is not a valid experiment configuration.
    ConfigError
        ``adaptive.json`` is unreadable.
    """
    if IMPORT_KEY in header.config:
        return None
    from reliability_lab.results.header_config import config_from_header

    source = directory / "header.json" if directory is not None else "header.json"
    config, _ = config_from_header(header.config, source=source)
    if not isinstance(config, ExperimentConfig):  # pragma: no cover - IMPORT_KEY handled above
        return None
    plan = planned_keys(config, header.tasks)
    return plan + decided_keys(directory) if directory is not None else plan
