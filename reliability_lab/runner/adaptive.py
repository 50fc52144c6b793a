"""Adaptive repetitions: after the initial K runs, more runs where outcomes are most uncertain.

With an ``adaptive:`` block in the config, once every planned run is recorded the runner
works in rounds. Each round, for every agent, :class:`~reliability_lab.report.AdaptiveAllocator`
computes the report interval of the target metric from the agent's runs so far and, while it
is wider than ``halfwidth`` and the ``budget`` allows, picks ``batch`` tasks by the block's
``allocation`` rule (``uniform``: fewest runs first, the default, unbiased; ``uncertainty``:
most uncertain first, biased); each gets one more **baseline** run (the next run index, seeded
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

from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reliability_lab.results.adaptive_block import (
    ADAPTIVE_FILE,
    ADAPTIVE_SCHEMA_VERSION,
    read_adaptive,
)
from reliability_lab.runs import BASELINE, RunKey, table_run_keys

if TYPE_CHECKING:
    import pandas as pd

    from reliability_lab.agents import RunSpec
    from reliability_lab.experiment.config import AdaptiveSettings, ExperimentConfig
    from reliability_lab.report.allocation import AdaptiveAllocator

__all__ = ["adaptive_keys", "run_adaptive"]

Failures = list[tuple[RunKey, BaseException]]


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


def _allocator(
    config: ExperimentConfig, settings: AdaptiveSettings, n_tasks: int
) -> AdaptiveAllocator:
    from reliability_lab.report.allocation import AdaptiveAllocator

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
        rule=settings.allocation,
    )


def _recorded_runs(directory: Path) -> pd.DataFrame:
    from reliability_lab.results.read import records_to_run_table
    from reliability_lab.results.store import RESULTS_FILE, read_result_lines

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
    from reliability_lab.results._jsonio import write_json_atomic

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
    return set(table_run_keys(runs))


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
