"""The task resamples of the bootstrap: n_tasks draws with replacement, counted per task."""

from __future__ import annotations

import numpy as np
import pytest

from reliability_lab.report import _bootstrap
from reliability_lab.report._bootstrap import task_counts


def test_every_resample_draws_n_tasks_tasks() -> None:
    rows = np.concatenate(list(task_counts(7, 50, np.random.default_rng(3))))
    assert rows.shape == (50, 7)
    assert (rows >= 0).all()
    assert (rows.sum(axis=1) == 7).all()


def test_same_stream_whatever_the_chunk_size(monkeypatch: pytest.MonkeyPatch) -> None:
    whole = np.concatenate(list(task_counts(9, 40, np.random.default_rng(5))))
    monkeypatch.setattr(_bootstrap, "_CHUNK_CELLS", 20)  # two replicates per chunk
    chunked = list(task_counts(9, 40, np.random.default_rng(5)))
    assert len(chunked) == 20
    np.testing.assert_array_equal(np.concatenate(chunked), whole)


def test_counts_have_the_multinomial_moments() -> None:
    # Multinomial(n, 1/n each): mean 1, variance (n-1)/n, covariance -1/n between tasks.
    n, b = 5, 200_000
    rows = np.concatenate(list(task_counts(n, b, np.random.default_rng(11)))).astype(float)
    assert rows.mean(axis=0) == pytest.approx(np.ones(n), abs=0.01)
    cov = np.cov(rows, rowvar=False)
    expected = np.full((n, n), -1 / n) + np.eye(n)
    np.testing.assert_allclose(cov, expected, atol=0.01)
    # P(a task is never drawn) = (1 - 1/n)^n
    assert (rows[:, 0] == 0).mean() == pytest.approx((1 - 1 / n) ** n, abs=0.005)


@pytest.mark.parametrize("dense_cells", [10**9, 0], ids=["dense-product", "running-sums"])
@pytest.mark.parametrize("grid", [True, False], ids=["grid", "continuous"])
def test_products_made_first_give_each_chunk_its_own_metrics(
    grid: bool, dense_cells: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # paired_replicates makes the matrix products of every chunk first, then the rest; each
    # chunk's metrics must be those TaskStats.evaluate gives the chunk's counts on their own.
    import pandas as pd

    from reliability_lab.metrics.profiles import get_profile
    from reliability_lab.report import _levels
    from reliability_lab.report._taskstats import TaskStats
    from reliability_lab.runs import validate_run_table

    rng = np.random.default_rng(8)
    n = 9 * 6
    confidence = rng.choice([0.2, 0.6, 0.9], n) if grid else rng.random(n)
    runs = validate_run_table(
        pd.DataFrame(
            {
                "agent": "a",
                "task_id": np.repeat([f"t{i}" for i in range(9)], 6),
                "condition": np.tile(
                    ["baseline", "baseline", "baseline", "fault", "prompt", "prompt"], 9
                ),
                "variant": np.tile(["", "", "", "f", "p", "p"], 9),
                "run": np.tile([0, 1, 2, 0, 0, 1], 9),
                "success": rng.random(n) < 0.6,
                "confidence": confidence,
                "cost_usd": rng.gamma(2.0, 0.01, n),
                "actions": [
                    list(rng.choice(["a", "b", "c"], rng.integers(1, 4))) for _ in range(n)
                ],
            }
        )
    )
    monkeypatch.setattr(_levels, "_DENSE_CELLS", dense_cells)
    stats = TaskStats.build(runs, get_profile("default"))
    assert (stats.pooled.levels.tables() != {}) == (dense_cells > 0)
    monkeypatch.setattr(_bootstrap, "_CHUNK_CELLS", 27)  # three replicates per chunk
    (got,) = _bootstrap.paired_replicates([stats], 12, np.random.default_rng(4))
    chunks = list(task_counts(9, 12, np.random.default_rng(4)))
    assert len(chunks) == 4
    each = [stats.evaluate(counts) for counts in chunks]
    for name, values in got.items():
        expected = np.concatenate([e[name] for e in each])
        np.testing.assert_array_equal(values, expected, err_msg=name)
