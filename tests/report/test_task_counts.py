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
