"""Adaptive repetitions: after the initial K runs, more runs where outcomes are most uncertain.

With an ``adaptive:`` block in the config, once every planned run is recorded the runner
works in rounds. Each round, for every agent, :class:`~reliability_lab.stats.AdaptiveAllocator`
computes the report interval of the target metric from the agent's runs so far and, while it
is wider than ``halfwidth`` and the ``budget`` allows, picks the ``batch`` tasks whose
outcomes are most uncertain; each gets one more **baseline** run (the next run index, seeded
like every run by :func:`~reliability_lab.experiment.seeds.run_seed`). It stops when every
agent reached its target, spent its budget, or has every task at ``max_runs``.

Record and resume. Every round's decision is appended to ``adaptive.json`` in the results
directory *before* its runs execute: the list of (task, run index) it adds per agent. On
resume, runs of recorded rounds that are not in ``results.jsonl`` are executed first, then
the rounds continue; since each decision is a function of the runs recorded before it, the
result is the same as an uninterrupted experiment. ``adaptive.json`` is therefore the plan of
the adaptive runs: the static plan (agents × tasks × conditions × K) plus the ``runs`` of its
rounds is every run the directory should hold. ``summary.json`` records the allocation
(``adaptive``: runs per task, rounds, half-widths, why each agent stopped).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from reliability_lab.errors import ConfigError
from reliability_lab.experiment.limits import Float, Int
from reliability_lab.runs import BASELINE, RunKey

if TYPE_CHECKING:
    import pandas as pd

    from reliability_lab.agents import RunSpec
    from reliability_lab.experiment.config import ExperimentConfig
    from reliability_lab.stats.adaptive import AdaptiveAllocator

__all__ = [
    "ADAPTIVE_FILE",
    "AdaptiveSettings",
    "adaptive_keys",
    "adaptive_lines",
    "adaptive_summary",
    "decided_keys",
    "run_adaptive",
]

ADAPTIVE_FILE = "adaptive.json"
ADAPTIVE_SCHEMA_VERSION = 1
Failures = list[tuple[RunKey, BaseException]]


class AdaptiveSettings(BaseModel):
    """The ``adaptive:`` block: extra baseline runs until an interval is narrow enough."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    metric: str = "C_out"
    """Target metric: a mean over tasks (C_out, C_traj_d, C_traj_s, C_conf, C_res) or R_Con."""
    halfwidth: Float = Field(gt=0)
    """Target half-width of the metric's report interval (``report`` settings)."""
    max_runs: Int = Field(ge=2)
    """Most baseline runs of any task (the initial K included)."""
    budget: Int | None = Field(default=None, ge=1)
    """Most baseline runs per agent in total, the initial ones included; default
    ``max_runs`` × tasks."""
    batch: Int | None = Field(default=None, ge=1)
    """Runs added per agent and round; default a fifth of the tasks (at least 1)."""

    @field_validator("metric")
    @classmethod
    def _targetable(cls, value: str) -> str:
        from reliability_lab.stats.adaptive import ADAPTIVE_METRICS

        if value not in ADAPTIVE_METRICS:
            raise ValueError(
                f"cannot target {value!r} adaptively; choose one of {', '.join(ADAPTIVE_METRICS)} "
                "(means over tasks: pooled metrics would weight the tasks with extra runs more)"
            )
        return value


def check_adaptive(config: ExperimentConfig) -> None:
    """Cross-checks of the ``adaptive`` block against the rest of the config.

    Raises
    ------
    ValueError
        No ``baseline`` condition, or ``max_runs`` not above ``runs``.
    """
    settings = config.adaptive
    if settings is None:
        return
    if BASELINE not in [c.name for c in config.conditions]:
        raise ValueError("adaptive: adds baseline runs, but 'baseline' is not a condition")
    if settings.max_runs <= config.runs:
        raise ValueError(
            f"adaptive.max_runs ({settings.max_runs}) must exceed runs ({config.runs}): "
            "adaptive runs come after the initial K"
        )


def adaptive_keys(config: ExperimentConfig, tasks: list[str]) -> set[RunKey]:
    """Every run an adaptive block may add: baseline runs K … max_runs − 1 of each task."""
    settings = config.adaptive
    if settings is None:
        return set()
    return {
        (agent.label, task, BASELINE, "", run)
        for agent in config.agents
        for task in tasks
        for run in range(config.runs, settings.max_runs)
    }


def read_adaptive(directory: Path) -> dict[str, Any] | None:
    """``adaptive.json`` of a results directory, or None when it has none.

    Raises
    ------
    ConfigError
        The file is unreadable or not an adaptive record.
    """
    path = Path(directory) / ADAPTIVE_FILE
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the adaptive record: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("rounds"), list):
        raise ConfigError(f"{path}: not an adaptive record (expected an object with 'rounds')")
    return data


def decided_keys(directory: Path) -> list[RunKey]:
    """The runs the rounds of ``directory``'s ``adaptive.json`` added, in round order (none
    without the file): with the static plan, every run the directory may hold.

    Raises
    ------
    ConfigError
        The file is unreadable or not an adaptive record.
    """
    record = read_adaptive(directory)
    if record is None:
        return []
    return [
        (str(agent), str(task), BASELINE, "", int(run))
        for entry in record["rounds"]
        for agent, decision in entry["agents"].items()
        for task, run in decision["runs"]
    ]


def _allocator(
    config: ExperimentConfig, settings: AdaptiveSettings, n_tasks: int
) -> AdaptiveAllocator:
    from reliability_lab.stats.adaptive import AdaptiveAllocator

    return AdaptiveAllocator(
        metric=settings.metric,
        halfwidth=settings.halfwidth,
        max_runs=settings.max_runs,
        budget=settings.budget or settings.max_runs * n_tasks,
        batch=settings.batch or max(1, n_tasks // 5),
        profile=config.profile,
        n_boot=config.report.n_boot,
        confidence_level=config.report.confidence_level,
        seed=config.seed,
        bootstrap=config.report.bootstrap,
    )


def _recorded_runs(directory: Path) -> pd.DataFrame:
    from reliability_lab.experiment.results import records_to_run_table
    from reliability_lab.experiment.store import RESULTS_FILE, read_result_lines

    path = directory / RESULTS_FILE
    return records_to_run_table(read_result_lines(path), source=str(path))


def _decide(
    config: ExperimentConfig,
    runs: pd.DataFrame,
    allocator: AdaptiveAllocator,
    last: Mapping[str, Any] | None,
) -> dict[str, dict[str, Any]]:
    """One round: per agent, the half-width, why it stops or continues, the runs it adds.

    An agent whose previous decision added nothing keeps it: its runs have not changed.
    """
    decisions = {}
    for agent in config.agents:
        if last is not None and agent.label in last and not last[agent.label]["runs"]:
            decisions[agent.label] = dict(last[agent.label])
            continue
        own = runs[runs["agent"] == agent.label]
        step = allocator.step(own)
        base = own[own["condition"] == BASELINE]
        latest = base.groupby("task_id")["run"].max()
        added = [[task, int(latest.get(task, -1)) + 1] for task in step.tasks]
        decisions[agent.label] = {"halfwidth": step.halfwidth, "reason": step.reason, "runs": added}
    return decisions


def _specs(config: ExperimentConfig, decisions: Mapping[str, Any]) -> list[RunSpec]:
    from reliability_lab.experiment.plan import make_spec

    baseline = next(c for c in config.conditions if c.name == BASELINE)
    index = {a.label: i for i, a in enumerate(config.agents)}
    return [
        make_spec(config, index[agent], baseline, "", str(task), int(run))
        for agent, decision in decisions.items()
        for task, run in decision["runs"]
    ]


def _write(directory: Path, config: ExperimentConfig, rounds: list[dict[str, Any]]) -> None:
    from reliability_lab.experiment._jsonio import write_json_atomic

    write_json_atomic(
        directory / ADAPTIVE_FILE,
        {
            "schema_version": ADAPTIVE_SCHEMA_VERSION,
            "settings": config.adaptive.model_dump(mode="json") if config.adaptive else None,
            "initial_runs": config.runs,
            "rounds": rounds,
        },
    )


def _recorded_keys(runs: pd.DataFrame) -> set[RunKey]:
    columns = (runs[c].astype(str) for c in ("agent", "task_id", "condition", "variant"))
    return {(*key[:4], int(key[4])) for key in zip(*columns, runs["run"], strict=True)}


async def run_adaptive(
    config: ExperimentConfig,
    tasks: list[str],
    directory: Path,
    execute: Callable[[list[RunSpec]], Awaitable[Failures]],
    on_planned: Callable[[int], None] = lambda n: None,
) -> tuple[Failures, int]:
    """Run the adaptive rounds (see the module docstring).

    ``execute`` runs specs and records them (the runner's executor); ``on_planned`` hears how
    many runs each round adds (the progress bar). Returns the runs that failed unexpectedly
    (the rounds stop there) and the number of runs executed.
    """
    settings = config.adaptive
    executed = 0
    if settings is None:
        return [], executed
    allocator = _allocator(config, settings, len(tasks))
    previous = read_adaptive(directory)
    rounds: list[dict[str, Any]] = list(previous["rounds"]) if previous else []
    while True:
        runs = _recorded_runs(directory)
        done = _recorded_keys(runs)
        pending = [s for r in rounds for s in _specs(config, r["agents"]) if s.key not in done]
        if not pending:
            last = rounds[-1]["agents"] if rounds else None
            decisions = _decide(config, runs, allocator, last)
            pending = _specs(config, decisions)
            if pending or not rounds or any(a["runs"] for a in rounds[-1]["agents"].values()):
                rounds.append({"round": len(rounds) + 1, "agents": decisions})
            else:  # a resumed, finished experiment: refresh the last (stopping) round
                rounds[-1] = {"round": len(rounds), "agents": decisions}
            _write(directory, config, rounds)
            if not pending:
                return [], executed
        on_planned(len(pending))
        failures = await execute(pending)
        executed += len(pending) - len(failures)
        if failures:
            return failures, executed


def adaptive_summary(directory: Path, runs: pd.DataFrame) -> dict[str, Any] | None:
    """The allocation for ``summary.json``: per agent, runs per task, rounds, half-widths."""
    record = read_adaptive(directory)
    if record is None:
        return None
    settings = record.get("settings", {})
    rounds = record["rounds"]
    base = runs[runs["condition"] == BASELINE]
    agents: dict[str, Any] = {}
    for agent, own in base.groupby("agent", sort=False):
        per_task = own.groupby("task_id")["run"].count()
        steps = [r["agents"][agent] for r in rounds if agent in r["agents"]]
        agents[str(agent)] = {
            "extra_runs": sum(len(s["runs"]) for s in steps),
            "rounds": sum(1 for s in steps if s["runs"]),
            "halfwidth_initial": steps[0]["halfwidth"] if steps else None,
            "halfwidth_final": steps[-1]["halfwidth"] if steps else None,
            "stopped": steps[-1]["reason"] if steps and not steps[-1]["runs"] else "running",
            "runs_per_task": {str(t): int(n) for t, n in per_task.items()},
            "runs_per_task_min": int(per_task.min()),
            "runs_per_task_max": int(per_task.max()),
        }
    return {
        "file": ADAPTIVE_FILE,
        "metric": settings.get("metric"),
        "halfwidth": settings.get("halfwidth"),
        "max_runs": settings.get("max_runs"),
        "initial_runs": record.get("initial_runs"),
        "agents": agents,
        "note": (
            "tasks have different numbers of runs: per-task metrics still weight every task "
            "equally; pooled metrics (accuracy, predictability, robustness) weight tasks by "
            "their runs"
        ),
    }


def adaptive_lines(content: Mapping[str, Any]) -> list[str]:
    """Console lines describing the adaptive allocation of a summary (none without one)."""
    info = content.get("adaptive")
    if not info:
        return []
    lines = [
        "",
        f"  Adaptive runs (target: {info['metric']} half-width ≤ {info['halfwidth']:g}, "
        f"at most {info['max_runs']} runs per task, initial K {info['initial_runs']}):",
    ]
    for agent, entry in info["agents"].items():
        start, end = entry["halfwidth_initial"], entry["halfwidth_final"]
        widths = "n/a" if start is None or end is None else f"±{start:.3f} → ±{end:.3f}"
        lines.append(
            f"    {agent}: {entry['extra_runs']} extra runs in {entry['rounds']} rounds, "
            f"runs per task {entry['runs_per_task_min']}–{entry['runs_per_task_max']}, "
            f"half-width {widths} ({entry['stopped']})"
        )
    lines.append(f"    note: {info['note']}")
    return lines
