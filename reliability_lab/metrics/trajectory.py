"""Trajectory consistency: do successful runs of a task take the same actions?

Conventions: docs/methodology.md, "Consistency".

Both metrics compare every pair of *successful* runs of a task that have a non-empty
action list. The distribution metric ignores order (Jensen–Shannon over action
frequencies); the sequence metric respects it (normalised Levenshtein distance).
Pairs are generated and scored vectorised across all tasks at once.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from rapidfuzz.distance.Levenshtein import distance as _edit_distance
from rapidfuzz.process import cpdist

from reliability_lab._actions import ActionsArray
from reliability_lab.metrics._arrays import (
    Groups,
    as_actions,
    as_groups,
    as_success,
    check_option,
    check_same_length,
    nanmean_or_warn,
)

if TYPE_CHECKING:
    from scipy import sparse

__all__ = [
    "DISTRIBUTION_VARIANTS",
    "trajectory_distribution_consistency",
    "trajectory_sequence_consistency",
]

#: ``distance_base2`` (default) = √JSD with log base 2, in [0, 1];
#: ``distance_ln`` = √JSD with natural log (preprint code; disjoint supports → 1 − √ln 2);
#: ``divergence_base2`` = JSD with log base 2 (the authors' current code).
DISTRIBUTION_VARIANTS = ("distance_base2", "distance_ln", "divergence_base2")
_CHUNK_CELLS = (
    131_072  # pairs × vocabulary cells at once: 1 MB arrays (as fast as 8 MB, less memory)
)
_DENSE_CELLS = 4_000_000  # runs × vocabulary at most held as a dense matrix (32 MB) to gather from
_TINY = np.finfo(float).tiny
_FIRST_SYMBOL = 0x100  # code point of action code 0 (then 0x101, …)
_SURROGATES, _N_SURROGATES = 0xD800, 0x800  # code points that are not characters
_WHY = "no task has 2 or more successful runs with a non-empty trajectory"


@dataclass(frozen=True)
class _Pairs:
    """Every within-task pair of eligible runs (indices into the eligible subset)."""

    first: np.ndarray
    second: np.ndarray
    group: np.ndarray  # task code of each pair


def _within_group_pairs(codes: np.ndarray) -> _Pairs:
    """All (i, j), i < j, of positions sharing a group code, without a loop per run."""
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    n = len(order)
    ends = np.append(np.flatnonzero(np.diff(sorted_codes)) + 1, n)
    sizes = np.diff(np.concatenate(([0], ends)))
    end_of_pos = np.repeat(ends, sizes)
    counts = end_of_pos - np.arange(n) - 1
    first_sorted = np.repeat(np.arange(n), counts)
    starts = np.cumsum(counts) - counts
    second_sorted = first_sorted + 1 + (np.arange(counts.sum()) - np.repeat(starts, counts))
    first, second = order[first_sorted], order[second_sorted]
    return _Pairs(first=first, second=second, group=codes[first])


@dataclass(frozen=True)
class _Coded:
    """The eligible runs' actions as integer symbols (one code per distinct action name)."""

    codes: np.ndarray  # code of every action, runs concatenated
    lengths: np.ndarray  # actions per run
    n_symbols: int

    @classmethod
    def of(cls, actions: ActionsArray) -> _Coded:
        """Symbols numbered in order of first appearance among these runs (the column order of
        the frequency matrix, so sums run in the same order whatever table the runs came from)."""
        codes, symbols = pd.factorize(actions.codes)
        return cls(np.asarray(codes, dtype=np.int64), actions.lengths, len(symbols))

    def sequences(self) -> np.ndarray:
        """Each run's symbols as a list of ints (edit distance when :meth:`strings` is None)."""
        flat = self.codes.tolist()
        bounds = np.concatenate(([0], np.cumsum(self.lengths))).tolist()
        pieces = map(flat.__getitem__, map(slice, bounds[:-1], bounds[1:]))
        return np.fromiter(pieces, dtype=object, count=len(self.lengths))

    def distributions(self) -> sparse.csr_matrix:
        """Row-normalised action-frequency matrix (runs × action vocabulary)."""
        from scipy import sparse  # loaded on first use: scipy costs ~0.3 s to import

        weights = 1.0 / np.repeat(self.lengths, self.lengths)
        shape = (len(self.lengths), self.n_symbols)
        # a run's actions are consecutive: they are its row as is (a repeated action is a
        # duplicate entry, summed where read; every entry of a row has the same weight, so
        # the order of that sum cannot change a bit)
        indptr = np.concatenate(([0], np.cumsum(self.lengths)))
        return sparse.csr_matrix((weights, self.codes, indptr), shape=shape)

    def strings(self) -> np.ndarray | None:
        """Each run's actions as a str, one character per action (None if they do not fit).

        Edit distance on strings runs in C without hashing Python objects; the characters skip
        the surrogate range so every code is a valid code point.
        """
        points = self.codes + _FIRST_SYMBOL
        points = points + (points >= _SURROGATES) * _N_SURROGATES
        if len(points) and points.max() > sys.maxunicode:
            return None
        text = points.astype("<u4").tobytes().decode("utf-32-le")
        ends = np.cumsum(self.lengths)
        starts = ends - self.lengths
        pieces = map(text.__getitem__, map(slice, starts.tolist(), ends.tolist()))
        return np.fromiter(pieces, dtype=object, count=len(self.lengths))


def _kl_nats(p: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Row-wise Σ p·ln(p/m); a cell where p = 0 adds nothing (m > 0 wherever p > 0).

    The ratio is raised to the smallest normal float where p = 0 (0/m, or 0/0 where both rows
    are 0): its logarithm stays finite, so ``log`` never meets 0 or NaN — several times slower
    on those than on ordinary values — and p·ln(tiny) is a zero. Cells where p > 0 keep their
    ratio, which is at least p, so every term and every row sum is what p·ln(p/m) gives.
    """
    ratio = p / m
    np.fmax(ratio, _TINY, out=ratio)
    np.log(ratio, out=ratio)
    ratio *= p
    return ratio.sum(axis=1)


def _pair_js(dist: sparse.csr_matrix, pairs: _Pairs, variant: str) -> np.ndarray:
    """The variant's Jensen–Shannon measure of every pair, from rows of ``dist`` gathered in
    chunks of cache size (from a dense copy when it is small, else from the sparse rows)."""
    out = np.empty(len(pairs.first))
    n_runs, n_symbols = dist.shape
    rows: Any = dist.toarray() if n_runs * n_symbols <= _DENSE_CELLS else dist
    chunk = max(1, _CHUNK_CELLS // max(n_symbols, 1))
    with np.errstate(invalid="ignore", divide="ignore"):
        for start in range(0, len(out), chunk):
            sl = slice(start, start + chunk)
            p, q = rows[pairs.first[sl]], rows[pairs.second[sl]]
            if not isinstance(p, np.ndarray):
                p, q = p.toarray(), q.toarray()
            m = 0.5 * (p + q)
            out[sl] = np.maximum(0.5 * (_kl_nats(p, m) + _kl_nats(q, m)), 0.0)
    if variant == "distance_ln":
        return np.sqrt(out)
    bits = out / np.log(2.0)
    return np.sqrt(np.minimum(bits, 1.0)) if variant == "distance_base2" else np.minimum(bits, 1.0)


def _pair_edit_similarity(sequences: np.ndarray, lengths: np.ndarray, pairs: _Pairs) -> np.ndarray:
    """1 − Levenshtein/longer length of every pair: the distances in one call of rapidfuzz's
    ``cpdist`` (element-wise pairs, computed in C without a Python call per pair)."""
    distance = cpdist(
        sequences[pairs.first], sequences[pairs.second], scorer=_edit_distance, dtype=np.int64
    )
    longest = np.maximum(lengths[pairs.first], lengths[pairs.second]).astype(float)
    return 1.0 - distance / longest


@dataclass(frozen=True)
class TrajectoryPairs:
    """Every within-task pair of eligible runs and its two similarities.

    Eligible = successful with a non-empty action list. ``first``/``second`` index the runs
    given to :func:`trajectory_pairs` (pairs grouped by ascending task code); ``distribution``
    is 1 − the Jensen–Shannon measure and ``sequence`` the edit similarity of each pair (NaN
    when not computed).
    """

    first: np.ndarray
    second: np.ndarray
    group: np.ndarray
    distribution: np.ndarray
    sequence: np.ndarray
    n_groups: int

    def per_task(self, weight: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(C_traj_d,t, C_traj_s,t) per group; ``weight`` = each run's multiplicity."""
        pair_weight = None if weight is None else weight[self.first] * weight[self.second]
        return (
            pair_means(self.distribution, self.group, pair_weight, self.n_groups),
            pair_means(self.sequence, self.group, pair_weight, self.n_groups),
        )


def pair_means(
    similarity: np.ndarray, group: np.ndarray, pair_weight: np.ndarray | None, n_groups: int
) -> np.ndarray:
    """Mean similarity over the pairs of each group, a pair of runs drawn w and w' times
    counting w·w' times; NaN for a group without a pair.

    A run drawn twice is not paired with its own copy: a copy is not another run, and
    comparing it with itself would manufacture perfect agreement.
    """
    total = np.bincount(
        group,
        weights=similarity if pair_weight is None else pair_weight * similarity,
        minlength=n_groups,
    )
    count = np.bincount(group, weights=pair_weight, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / count, np.nan)


def trajectory_pairs(
    actions: ActionsArray | Any,
    success: np.ndarray,
    groups: Groups,
    *,
    distribution_variant: str = "distance_base2",
    sequence: bool = True,
    distribution: bool = True,
) -> TrajectoryPairs:
    """Every within-task pair of eligible runs with its similarities (computed once).

    ``actions`` is the run table's encoded column (read as is) or per-run lists (encoded)."""
    acts = actions if isinstance(actions, ActionsArray) else as_actions(actions)
    idx = np.flatnonzero(success & (acts.lengths > 0))
    pairs = _within_group_pairs(groups.codes[idx])
    first, second = idx[pairs.first], idx[pairs.second]
    d = np.full(len(first), np.nan)
    s = d.copy()
    if len(first):
        coded = _Coded.of(acts.take(idx))
        if distribution:
            d = 1.0 - _pair_js(coded.distributions(), pairs, distribution_variant)
        if sequence:
            strings = coded.strings()
            sequences = coded.sequences() if strings is None else strings
            s = _pair_edit_similarity(sequences, coded.lengths, pairs)
    return TrajectoryPairs(first, second, pairs.group, d, s, groups.n)


def _prepare(actions: Any, task_id: Any, success: Any) -> tuple[ActionsArray, np.ndarray, Groups]:
    acts = as_actions(actions)
    y = as_success(success)
    groups = as_groups(task_id)
    check_same_length(actions=acts, task_id=groups.codes, success=y)
    return acts, y, groups


def trajectory_distribution_consistency(
    actions: Any, task_id: Any, success: Any, *, variant: str = "distance_base2"
) -> float:
    """Trajectory distribution consistency C_traj_d: same *mix* of actions across runs?

    For each task, every pair of successful runs with non-empty action lists is compared
    by the Jensen–Shannon measure between their action-frequency distributions (over the
    union of action names): C_traj_d,t = 1 − mean over pairs. Tasks with fewer than two
    such runs are skipped; C_traj_d is the unweighted mean over the remaining tasks.

    Variants: ``"distance_base2"`` (default; √JSD with log₂, in [0, 1], disjoint → 0),
    ``"distance_ln"`` (√JSD in nats as in the preprint code; disjoint → 1 − √ln 2 ≈ 0.1674),
    ``"divergence_base2"`` (JSD with log₂, the authors' current code; disjoint → 0).

    Examples
    --------
    >>> trajectory_distribution_consistency([["a", "b"], ["b", "a"]], ["t", "t"], [1, 1])
    1.0
    >>> trajectory_distribution_consistency([["a"], ["b"]], ["t", "t"], [1, 1])
    0.0
    >>> round(trajectory_distribution_consistency(
    ...     [["a"], ["b"]], ["t", "t"], [1, 1], variant="distance_ln"), 4)
    0.1674
    """
    check_option(variant, "variant", DISTRIBUTION_VARIANTS)
    acts, y, groups = _prepare(actions, task_id, success)
    pairs = trajectory_pairs(acts, y, groups, distribution_variant=variant, sequence=False)
    d, _ = pairs.per_task()
    return nanmean_or_warn(d, "C_traj_d", _WHY)


def trajectory_sequence_consistency(actions: Any, task_id: Any, success: Any) -> float:
    """Trajectory sequence consistency C_traj_s: same *order* of actions across runs?

    For each task, every pair of successful runs with non-empty action lists scores
    1 − Levenshtein(a, b)/max(|a|, |b|), each action name one symbol (edit distance from
    rapidfuzz, the library python-Levenshtein calls). C_traj_s,t is the mean over pairs;
    C_traj_s the unweighted mean over tasks with at least two such runs. Range [0, 1].

    Examples
    --------
    >>> round(trajectory_sequence_consistency(
    ...     [["a", "b", "c"], ["a", "b", "d"]], ["t", "t"], [True, True]), 4)
    0.6667
    >>> trajectory_sequence_consistency([["a", "b"], ["b", "a"], []], ["t"] * 3, [1, 1, 1])
    0.0
    """
    acts, y, groups = _prepare(actions, task_id, success)
    _, s = trajectory_pairs(acts, y, groups, distribution=False).per_task()
    return nanmean_or_warn(s, "C_traj_s", _WHY)
