"""``reliability-lab run`` on a config with an ``inspect:`` block, and the notebook call.

inspect's ``eval_set`` executes the task under every condition for every agent's model, K
epochs each, and writes its logs to ``<output>/<inspect.log_dir>``; a rerun of the same config
resumes: ``eval_set`` keeps the finished logs and retries only what failed or did not finish.
The logs are then imported (:func:`~reliability_lab.io.load_inspect_log`) and summarised like
any experiment (header, ``results.jsonl``, ``summary.json``, report, gates) in the output
directory. See docs/inspect.md.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reliability_lab.inspect._build import ConditionSpec, reliability_tasks

if TYPE_CHECKING:
    from reliability_lab.experiment.config import ExperimentConfig
    from reliability_lab.results.outcome import ExperimentOutcome

__all__ = ["run_inspect_experiment"]


def _conditions(config: ExperimentConfig) -> list[ConditionSpec]:
    return [
        ConditionSpec(c.name, tuple(c.variants) if c.variants is not None else None, c.options)
        for c in config.conditions
    ]


def _paraphrase_client(config: ExperimentConfig, out: Path) -> Any:
    llm_paraphraser = any(
        c.name == "prompt" and c.options.get("paraphraser") == "llm" for c in config.conditions
    )
    if not llm_paraphraser:
        return None
    from reliability_lab.experiment.llm_client import make_client

    return make_client(config, out)


def _finished(log_dir: Path, scorer: str | None) -> int:
    """Runs already in the log directory that did not end in an error (a rerun keeps them)."""
    from reliability_lab.io.inspect_logs import InspectLogError, load_inspect_log

    if not log_dir.is_dir():
        return 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the import after the run says what it skips
        try:
            runs = load_inspect_log(log_dir, scorer=scorer)
        except InspectLogError:
            return 0
    return int(runs["error"].isna().sum())


def run_inspect_experiment(
    config: ExperimentConfig | str | os.PathLike[str], *, progress: bool = True
) -> ExperimentOutcome:
    """Run (or resume) an inspect experiment and summarise it; the notebook entry point.

    Parameters
    ----------
    config : ExperimentConfig or path
        A config with an ``inspect`` block (or the path of its YAML file).
    progress : bool
        Show inspect's own progress display (``display="none"`` otherwise).

    Returns
    -------
    ExperimentOutcome
        ``.runs`` is the run table, ``.summary.report`` the reliability report, ``.passed``
        whether every gate holds.

    Raises
    ------
    ConfigError
        The config has no ``inspect`` block, or its task cannot be loaded.
    """
    from inspect_ai import eval_set

    from reliability_lab.errors import ConfigError
    from reliability_lab.experiment.config import load_config
    from reliability_lab.io.inspect_logs import load_inspect_log
    from reliability_lab.results.imported import import_config
    from reliability_lab.results.outcome import ExperimentOutcome
    from reliability_lab.results.summary import summarize_imported

    cfg = config if not isinstance(config, str | os.PathLike) else load_config(config)
    settings = cfg.inspect
    if settings is None:
        raise ConfigError("inspect: the config has no inspect block (docs/inspect.md)")
    out = cfg.output_dir()
    log_dir = out / settings.log_dir
    try:
        tasks = reliability_tasks(
            settings.task,
            _conditions(cfg),
            task_args=settings.task_args,
            seed=cfg.seed,
            confidence=any(a.elicit_confidence for a in cfg.agents),
            directory=out,
            llm=_paraphrase_client(cfg, out),
        )
    except ValueError as exc:
        raise ConfigError(f"inspect.task: {exc}") from None
    before = _finished(log_dir, settings.scorer)
    options = {"retry_attempts": 3, "max_tasks": cfg.max_concurrent, **settings.eval_set}
    eval_set(
        tasks,
        log_dir=str(log_dir),
        model=[a.model for a in cfg.agents],
        epochs=cfg.runs,
        display="full" if progress else "none",
        **options,
    )
    labels = {a.model: a.label for a in cfg.agents}
    runs = load_inspect_log(log_dir, scorer=settings.scorer, agent=labels)
    summary_config = import_config(
        runs,
        format="inspect",
        path=str(log_dir),
        gates=[g.model_dump(mode="json") for g in cfg.gates],  # type: ignore[misc]
        name=cfg.name,
        seed=cfg.seed,
        profile=cfg.profile,
        report=cfg.report.model_dump(mode="json"),
    )
    summary = summarize_imported(runs, summary_config, output=out)
    n_planned = sum(len(t.dataset) for t in tasks) * len(cfg.agents) * cfg.runs
    return ExperimentOutcome(
        output_dir=out,
        n_planned=n_planned,
        n_previous=before,
        n_executed=max(0, len(runs) - before),
        summary=summary,
    )
