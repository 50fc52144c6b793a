"""A label column of the run table factorized once: every run's code and the distinct labels.

Validation factorizes the four label columns (``agent``, ``task_id``, ``condition``,
``variant``) to check each distinct value once and to compare run keys as integers
(:func:`~reliability_lab.runs.validate_run_table`). The report reads the same codes instead of
hashing 400k strings again: the runs of each agent, each run's task, which runs are baseline
(:meth:`LabelCodes.equals`, an integer comparison) and the tasks numbered in sorted label order
(:meth:`LabelCodes.sorted_codes`, what ``pd.factorize(..., sort=True)`` gives).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["LabelCodes"]


@dataclass(frozen=True)
class LabelCodes:
    """Codes of a label column (``0 … len(values) − 1``, in order of first appearance).

    Examples
    --------
    >>> labels = LabelCodes.of(pd.Series(["t2", "t1", "t2", "t3"]))
    >>> labels.codes.tolist(), labels.values.tolist()
    ([0, 1, 0, 2], ['t2', 't1', 't3'])
    >>> labels.equals("t2").tolist()
    [True, False, True, False]
    >>> codes, sorted_labels = labels.sorted_codes(np.array([0, 1, 2]))
    >>> codes.tolist(), sorted_labels.tolist()  # t3 has no run among the rows: left out
    ([1, 0, 1], ['t1', 't2'])
    """

    codes: np.ndarray
    """Per run: the index of its label in :attr:`values`."""
    values: np.ndarray
    """The distinct labels (object array)."""

    @classmethod
    def of(cls, column: pd.Series | np.ndarray) -> LabelCodes:
        """Factorize a column of labels (hashable values; missing values get code −1).

        Codes are 32-bit while the labels are fewer than 2³¹ (4 bytes a run: the report keeps
        them while it works)."""
        values = column.to_numpy(dtype=object) if isinstance(column, pd.Series) else column
        codes, uniques = pd.factorize(values)
        narrow = np.int32 if len(uniques) < 2**31 - 1 else np.intp
        return cls(codes.astype(narrow), np.asarray(uniques, dtype=object))

    def take(self, rows: np.ndarray | None) -> LabelCodes:
        """The codes of the runs ``rows`` (positions; all if None), the same values."""
        return self if rows is None else LabelCodes(self.codes[rows], self.values)

    def equals(self, value: Any) -> np.ndarray:
        """Mask of the runs whose label is ``value``."""
        where = np.flatnonzero(self.values == value)
        if not len(where):
            return np.zeros(len(self.codes), dtype=bool)
        return self.codes == where[0]

    def sorted_codes(self, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(codes, labels) of the runs ``rows`` (all if None) with the labels those runs have,
        numbered in sorted order: ``pd.factorize(labels_of_rows, sort=True)``."""
        order = np.argsort(self.values, kind="stable")
        rank = np.empty(len(order), dtype=np.intp)
        rank[order] = np.arange(len(order))
        codes = rank[self.codes if rows is None else self.codes[rows]]
        present = np.bincount(codes, minlength=len(order)) > 0
        if present.all():
            return codes, self.values[order]
        renumber = np.cumsum(present) - 1
        return renumber[codes], self.values[order][present]
