"""inspect_ai logs against their own sample counts (docs/importers.md, "Shared rules").

An inspect log states how many samples it should hold: ``results.total_samples`` (dataset
samples × epochs) of a finished evaluation, else ``eval.dataset.sample_ids`` × epochs.
:func:`inspect_gaps` compares that with the rows imported from each file that
:func:`load_inspect_log` read;
:func:`load_inspect_checked` is :func:`load_inspect_log` followed by the check. Kept apart from
:mod:`.inspect_logs`, which reads the samples themselves.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import pandas as pd

from reliability_lab.io._common import check_complete
from reliability_lab.io.inspect_logs import STATED_TOTALS, load_inspect_log

__all__ = ["inspect_gaps", "load_inspect_checked"]


def inspect_gaps(table: pd.DataFrame) -> list[str]:
    """One line per log file whose imported rows fall short of its stated sample count.

    The logs are those :func:`load_inspect_log` read (``table.attrs[STATED_TOTALS]``): a log a
    retry superseded is not counted, nor a non-log file it skipped.
    """
    stated_totals: dict[str, int | None] = table.attrs.get(STATED_TOTALS, {})
    counts = table["source_file"].value_counts() if len(table) else pd.Series(dtype=int)
    gaps = []
    for file, stated in stated_totals.items():
        held = int(counts.get(file, 0))
        if stated is not None and held < stated:
            gaps.append(f"{file}: {held} of {stated} samples × epochs (results.total_samples)")
    return gaps


def load_inspect_checked(
    path_or_dir: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    allow_partial: bool = False,
    **options: Any,
) -> pd.DataFrame:
    """:func:`load_inspect_log`, then the check of every file against its stated count.

    Raises
    ------
    IncompleteLogError
        A log holds fewer samples than it states and ``allow_partial`` is False.
    """
    table = load_inspect_log(path_or_dir, **options)
    return check_complete(table, inspect_gaps(table), str(path_or_dir), allow_partial=allow_partial)
