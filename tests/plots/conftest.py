"""Fixtures of the plot tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from matplotlib import pyplot as plt


@pytest.fixture(autouse=True)
def _close_figures() -> Iterator[None]:
    """Close every figure a test opened."""
    yield
    plt.close("all")
