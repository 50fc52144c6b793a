"""Input checks shared by the plot functions (clear ``ValueError``s naming the argument)."""

from __future__ import annotations

import pandas as pd

__all__ = ["require_columns", "require_single"]


def require_columns(frame: pd.DataFrame, columns: tuple[str, ...], name: str = "runs") -> None:
    """Raise unless ``frame`` is a non-empty DataFrame with every one of ``columns``."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name}: expected a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{name}: missing column(s) {missing}; have {list(frame.columns)}")
    if frame.empty:
        raise ValueError(f"{name}: no rows to plot")


def require_single(runs: pd.DataFrame, column: str) -> None:
    """Raise if ``runs`` mixes several values of ``column`` (e.g. two agents)."""
    if column in runs.columns and runs[column].nunique(dropna=False) > 1:
        values = sorted(map(str, runs[column].unique()))
        raise ValueError(
            f"runs: {len(values)} values of {column!r} {values[:5]}; select one before plotting"
        )
