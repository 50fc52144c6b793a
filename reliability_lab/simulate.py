"""Simulated agents with known reliability parameters, for checking statistics.

``reliability_lab.simulate`` is the public home of :mod:`reliability_lab.stats.simulate`:
:class:`SimulatedAgent` (per-task success from a Beta, trajectory noise, resource spread,
calibrated or over-confident confidences, perturbation sensitivity), :class:`Simulation`
(one agent's draws on a tasks × runs grid and the tasks' true K → ∞ values) and
:func:`simulate_runs` (a run table of several agents sharing task difficulty). The simulation
study in docs/statistics.md is built on it.

Not to be confused with the simulated *model* ``sim/<profile>`` (:mod:`reliability_lab.sim`),
which plays an LLM inside the experiment runner; this module writes run tables directly.

Examples
--------
>>> from reliability_lab.simulate import SimulatedAgent, Simulation
>>> sim = Simulation(SimulatedAgent(success_a=0.6, success_b=0.6), n_tasks=5, max_runs=3, seed=0)
>>> len(sim.runs(3)), sorted(sim.true_values())
(15, ['C_conf', 'C_out', 'C_res', 'accuracy'])
"""

from __future__ import annotations

from reliability_lab.stats.simulate import SimulatedAgent, Simulation, simulate_runs

__all__ = ["SimulatedAgent", "Simulation", "simulate_runs"]
