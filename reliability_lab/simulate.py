"""Run tables from simulated agents with known parameters (the evidence behind docs/statistics.md).

Each :class:`SimulatedAgent` is a small generative model of repeated runs:

- **success**: each task has a success probability p_t drawn from Beta(a, b); a share
  ``deterministic_share`` of the tasks is all-or-nothing (p_t rounded to 0 or 1, as for agents
  that always solve or always fail most tasks); a run succeeds with probability p_t
  (p_t · sensitivity under a perturbation condition). Several agents
  simulated together share each task's difficulty: p_t = F⁻¹(u_t) with one uniform u_t per task
  and each agent's own Beta quantile function F⁻¹, so paired comparisons see correlated tasks;
- **trajectory**: a task has a fixed sequence of ``n_actions`` tool names; in a run each action
  is replaced, with probability ``trajectory_noise``, by a tool drawn at random;
- **resources**: ``cost_usd`` = the task's mean cost × a log-normal factor of mean 1 whose
  coefficient of variation cv_t is drawn uniformly from [½, 3⁄2] × ``resource_cv`` per task;
- **confidence**: Beta with mean μ_t = p_t + overconfidence · (1 − p_t) (clipped to
  [0.02, 0.98]) and concentration κ, so its within-task CV is √((1 − μ_t)/(μ_t (κ + 1))).

The K → ∞ per-task values then have closed forms: C_out,t = (2p_t − 1)², C_res,t = exp(−cv_t),
C_conf,t = exp(−CV_t); :meth:`Simulation.true_per_task` returns them for the drawn tasks and
:meth:`SimulatedAgent.population_values` the means over the task distribution. Draws are laid
out on a (tasks × ``max_runs``) grid from one seed, so the k-th run of a task is the same
whichever other runs are requested (uniform K, adaptive allocations, K = 2 vs K = 10).

This module is the one home of simulated run tables. Not to be confused with the simulated
*model* ``sim/<name>`` (:mod:`reliability_lab.sim`), which plays an LLM inside the experiment
runner; this module writes run tables directly.

Examples
--------
>>> from reliability_lab.simulate import SimulatedAgent, Simulation
>>> sim = Simulation(SimulatedAgent(success_a=0.6, success_b=0.6), n_tasks=5, max_runs=3, seed=0)
>>> len(sim.runs(3)), sorted(sim.true_values())
(15, ['C_conf', 'C_out', 'C_res', 'accuracy'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from reliability_lab.runs import BASELINE

__all__ = ["SimulatedAgent", "Simulation", "simulate_runs"]

_MU_CLIP = (0.02, 0.98)


@dataclass(frozen=True)
class SimulatedAgent:
    """An agent with known reliability parameters (see the module docstring).

    Attributes
    ----------
    name : agent label in the run table.
    success_a, success_b : the Beta(a, b) of per-task success probabilities.
    deterministic_share : share of tasks whose p_t is rounded to 0 or 1.
    trajectory_noise : chance that an action deviates from the task's sequence; ``None``
        records no actions (faster; trajectory metrics undefined).
    n_actions, n_tools : length of a task's action sequence and size of the tool vocabulary.
    resource_cv : typical within-task coefficient of variation of ``cost_usd``.
    overconfidence : 0 = calibrated (mean confidence p_t); 1 = always near 0.98.
    confidence_concentration : κ of the within-task Beta of confidences (larger = steadier).
    sensitivity : perturbation condition → factor on p_t (``{"fault": 0.8}``).
    """

    name: str = "agent"
    success_a: float = 0.6
    success_b: float = 0.6
    deterministic_share: float = 0.0
    trajectory_noise: float | None = 0.2
    n_actions: int = 6
    n_tools: int = 8
    resource_cv: float = 0.3
    overconfidence: float = 0.0
    confidence_concentration: float = 20.0
    sensitivity: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("success_a", "success_b", "confidence_concentration"):
            if not getattr(self, name) > 0:
                raise ValueError(f"SimulatedAgent.{name} must be > 0, got {getattr(self, name)!r}")
        noise = self.trajectory_noise
        if noise is not None and not 0 <= noise <= 1:
            raise ValueError(f"SimulatedAgent.trajectory_noise must lie in [0, 1], got {noise!r}")
        if not 0 <= self.deterministic_share <= 1:
            raise ValueError(
                "SimulatedAgent.deterministic_share must lie in [0, 1], "
                f"got {self.deterministic_share!r}"
            )
        if not 0 <= self.overconfidence <= 1:
            raise ValueError(
                f"SimulatedAgent.overconfidence must lie in [0, 1], got {self.overconfidence!r}"
            )
        if self.resource_cv < 0:
            raise ValueError(f"SimulatedAgent.resource_cv must be >= 0, got {self.resource_cv!r}")
        for condition, factor in self.sensitivity.items():
            if condition == BASELINE or not 0 <= factor <= 1:
                raise ValueError(
                    f"SimulatedAgent.sensitivity[{condition!r}] must be a perturbation "
                    f"condition with a factor in [0, 1], got {factor!r}"
                )

    def population_values(self) -> dict[str, float]:
        """Means over the task distribution of the K → ∞ values with closed forms.

        For Beta(a, b): ``accuracy`` = E[p] = a/(a + b); ``C_out`` = E[(2p − 1)²] =
        4E[p²] − 4E[p] + 1 with E[p²] = a(a + 1)/((a + b)(a + b + 1)). Deterministic tasks
        (share d) have C_out = 1 and accuracy P(p > ½) (the Beta's upper tail).
        """
        from scipy.stats import beta  # loaded on first use

        a, b = self.success_a, self.success_b
        mean = a / (a + b)
        second = a * (a + 1) / ((a + b) * (a + b + 1))
        d = self.deterministic_share
        upper = float(beta.sf(0.5, a, b))
        return {
            "accuracy": (1 - d) * mean + d * upper,
            "C_out": (1 - d) * (4 * second - 4 * mean + 1) + d,
        }


def _beta_quantile(u: np.ndarray, a: float, b: float) -> np.ndarray:
    from scipy.stats import beta  # loaded on first use

    return np.asarray(beta.ppf(u, a, b), dtype=float)


@dataclass
class Simulation:
    """One agent's draws on a (tasks × ``max_runs``) grid, and the tasks' true values.

    Parameters
    ----------
    agent : SimulatedAgent
    n_tasks, max_runs : grid size (runs beyond ``max_runs`` cannot be requested).
    seed : int
        Seed of every draw; the task difficulties come from ``task_seed`` (default ``seed``),
        so agents simulated with one ``task_seed`` share their tasks' difficulty.
    conditions : perturbation conditions to draw besides ``baseline``.
    stream : distinguishes the run draws of agents sharing a ``seed``.
    """

    agent: SimulatedAgent
    n_tasks: int
    max_runs: int
    seed: int = 0
    task_seed: int | None = None
    conditions: Sequence[str] = ()
    stream: int = 0

    def __post_init__(self) -> None:
        if self.n_tasks < 1 or self.max_runs < 1:
            raise ValueError(
                f"n_tasks and max_runs must be >= 1, got {self.n_tasks} and {self.max_runs}"
            )
        unknown = sorted(set(self.conditions) - set(self.agent.sensitivity))
        if unknown:
            raise ValueError(
                f"conditions {unknown} have no sensitivity in agent {self.agent.name!r}"
            )
        task_rng = np.random.default_rng([self.seed if self.task_seed is None else self.task_seed])
        u = task_rng.random(self.n_tasks)
        deterministic = task_rng.random(self.n_tasks) < self.agent.deterministic_share
        agent = self.agent
        p = _beta_quantile(u, agent.success_a, agent.success_b)
        self.p = np.where(deterministic, np.round(p), p)
        rng = np.random.default_rng([self.seed, 1, self.stream])
        t, k = self.n_tasks, self.max_runs
        self.cv = agent.resource_cv * rng.uniform(0.5, 1.5, t)
        self.mean_cost = np.exp(rng.uniform(np.log(0.001), np.log(0.1), t))
        self.mu = np.clip(self.p + agent.overconfidence * (1 - self.p), *_MU_CLIP)
        self._uniform = {c: rng.random((t, k)) for c in (BASELINE, *self.conditions)}
        sigma = np.sqrt(np.log1p(self.cv**2))
        self._cost = self.mean_cost[:, None] * np.exp(
            sigma[:, None] * rng.standard_normal((t, k)) - sigma[:, None] ** 2 / 2
        )
        kappa = agent.confidence_concentration
        self._confidence = rng.beta(
            self.mu[:, None] * kappa, (1 - self.mu[:, None]) * kappa, (t, k)
        )
        self._actions = None
        if agent.trajectory_noise is not None:
            tools = agent.n_tools
            base = rng.integers(0, tools, (t, 1, agent.n_actions))
            swap = rng.random((t, k, agent.n_actions)) < agent.trajectory_noise
            self._actions = np.where(swap, rng.integers(0, tools, (t, k, agent.n_actions)), base)

    def true_per_task(self) -> pd.DataFrame:
        """Per task: p_t and the K → ∞ values of C_out, C_res and C_conf (closed forms)."""
        kappa = self.agent.confidence_concentration
        conf_cv = np.sqrt((1 - self.mu) / (self.mu * (kappa + 1)))
        return pd.DataFrame(
            {
                "p": self.p,
                "C_out": (2 * self.p - 1) ** 2,
                "C_res": np.exp(-self.cv),
                "C_conf": np.exp(-conf_cv),
            },
            index=pd.Index(self.task_ids(), name="task_id"),
        )

    def true_values(self) -> dict[str, float]:
        """The K → ∞ values of these tasks: the means of :meth:`true_per_task`."""
        table = self.true_per_task()
        return {"accuracy": float(table["p"].mean())} | {
            m: float(table[m].mean()) for m in ("C_out", "C_res", "C_conf")
        }

    def task_ids(self) -> list[str]:
        width = len(str(self.n_tasks - 1))
        return [f"task-{i:0{width}d}" for i in range(self.n_tasks)]

    def runs(self, runs_per_task: int | np.ndarray) -> pd.DataFrame:
        """The run table of the first ``runs_per_task`` runs of each task (an int, or one count
        per task), for ``baseline`` and every simulated condition (variant ``v1``)."""
        counts = np.broadcast_to(np.asarray(runs_per_task, dtype=np.int64), (self.n_tasks,))
        if counts.min() < 0 or counts.max() > self.max_runs:
            raise ValueError(
                f"runs_per_task must lie in [0, max_runs={self.max_runs}], "
                f"got {int(counts.min())} … {int(counts.max())}"
            )
        task = np.repeat(np.arange(self.n_tasks), counts)
        run = np.arange(len(task)) - np.repeat(np.cumsum(counts) - counts, counts)
        parts = []
        for condition, uniform in self._uniform.items():
            factor = 1.0 if condition == BASELINE else self.agent.sensitivity[condition]
            parts.append(
                self._table(task, run, condition, uniform[task, run] < self.p[task] * factor)
            )
        return pd.concat(parts, ignore_index=True)

    def _table(
        self, task: np.ndarray, run: np.ndarray, condition: str, success: np.ndarray
    ) -> pd.DataFrame:
        ids = np.asarray(self.task_ids(), dtype=object)
        if self._actions is None:
            actions: list[list[str]] = [[] for _ in task]
        else:
            names = np.array([f"tool_{i}" for i in range(self.agent.n_tools)], dtype=object)
            actions = names[self._actions[task, run]].tolist()
        return pd.DataFrame(
            {
                "agent": self.agent.name,
                "task_id": ids[task],
                "condition": condition,
                "variant": "" if condition == BASELINE else "v1",
                "run": run,
                "success": success,
                "confidence": self._confidence[task, run],
                "confidence_source": "elicited",
                "actions": actions,
                "cost_usd": self._cost[task, run],
            }
        )


def simulate_runs(
    agents: SimulatedAgent | Sequence[SimulatedAgent],
    *,
    n_tasks: int,
    runs: int,
    conditions: Sequence[str] = (),
    seed: int = 0,
) -> pd.DataFrame:
    """A run table of ``runs`` repetitions of ``n_tasks`` tasks by each agent.

    The agents share each task's difficulty (one uniform per task, mapped through each
    agent's Beta quantile function), so their per-task success probabilities are
    comonotone: a hard task is hard for every agent.

    Examples
    --------
    >>> table = simulate_runs(SimulatedAgent(name="a"), n_tasks=3, runs=2, seed=1)
    >>> table[["agent", "task_id", "run", "condition"]].head(3).values.tolist()
    [['a', 'task-0', 0, 'baseline'], ['a', 'task-0', 1, 'baseline'], ['a', 'task-1', 0, 'baseline']]
    """
    listed = [agents] if isinstance(agents, SimulatedAgent) else list(agents)
    names = [a.name for a in listed]
    if len(set(names)) != len(names):
        raise ValueError(
            f"agents: duplicate names {sorted({n for n in names if names.count(n) > 1})}"
        )
    tables = [
        Simulation(agent, n_tasks, runs, seed=seed, conditions=conditions, stream=i).runs(runs)
        for i, agent in enumerate(listed)
    ]
    return pd.concat(tables, ignore_index=True)
