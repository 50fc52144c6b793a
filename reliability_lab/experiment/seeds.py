"""Per-run seeds derived from one master seed.

Each run's seed comes from ``numpy.random.SeedSequence(master, spawn_key=key)`` where ``key`` is
a stable hash of the run's agent and task plus the run index. The condition and variant are
*not* part of it: the baseline run and every perturbed run of the same (agent, task, run) share
their seed, so they are paired — a perturbation's own randomness is drawn from the run seed
together with its condition and variant (``reliability_lab.perturbations.substream``). The
mapping does not depend on iteration order, on which other agents or tasks are in the config, or
on Python's per-process string hashing: adding an agent or a task leaves every other run's seed
unchanged, which is what makes resume and partial reruns reproducible.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["SEED_SCHEME", "run_seed"]

#: Version of the seed derivation (recorded in the resume fingerprint; 2 = paired by condition).
SEED_SCHEME = 2


def _stable_int(text: str) -> int:
    """A 32-bit integer from the SHA-256 of ``text`` (identical in every process)."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


def run_seed(master: int, *, agent: str, task_id: str, run: int) -> int:
    """The seed of one run, in ``[0, 2**31)`` (accepted by every provider's ``seed`` field).

    Parameters
    ----------
    master : int
        The experiment's master seed (>= 0).
    agent, task_id : str
        The run's agent and task.
    run : int
        Repetition index (0-based). Runs of every condition and variant with this index share
        the seed.

    Returns
    -------
    int
        Deterministic per-run seed.

    Examples
    --------
    >>> a = run_seed(0, agent="x", task_id="t1", run=0)
    >>> a == run_seed(0, agent="x", task_id="t1", run=0)
    True
    >>> a == run_seed(0, agent="x", task_id="t1", run=1)
    False
    """
    if master < 0 or run < 0:
        raise ValueError(f"master seed and run index must be >= 0, got master={master}, run={run}")
    key = (*(_stable_int(part) for part in (agent, task_id)), run)
    state = np.random.SeedSequence(master, spawn_key=key).generate_state(1, dtype=np.uint32)
    return int(state[0]) >> 1
