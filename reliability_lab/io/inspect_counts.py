"""inspect_ai logs against their own sample counts (docs/importers.md, "Shared rules").

An inspect log states how many samples it should hold: ``results.total_samples`` (dataset
samples × epochs) of a finished evaluation, else ``eval.dataset.sample_ids`` × epochs.
:func:`inspect_gaps` compares that with the rows imported from each file;
:func:`load_inspect_checked` is :func:`load_inspect_log` followed by the check. Kept apart from
:mod:`.inspect_logs`, which reads the samples themselves.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from reliability_lab.io._common import check_complete
from reliability_lab.io.inspect_logs import InspectLogError, _log_files, load_inspect_log

__all__ = ["inspect_gaps", "load_inspect_checked"]


def _stated_total(file: Path) -> int | None:
    """The number of sample-epochs the log says it holds, or None when it does not say."""
    from inspect_ai.log import read_eval_log

    try:
        header = read_eval_log(str(file), header_only=True)
    except Exception as exc:  # inspect raises ValueError, ValidationError, zipfile errors ...
        raise InspectLogError(f"{file}: not an inspect_ai eval log ({exc})") from None
    if header.results is not None:
        return int(header.results.total_samples)
    ids = header.eval.dataset.sample_ids
    epochs = header.eval.config.epochs or 1
    return len(ids) * epochs if ids else None


def inspect_gaps(files: Sequence[Path], table: pd.DataFrame) -> list[str]:
    """One line per log file whose imported rows fall short of its stated sample count."""
    counts = table["source_file"].value_counts() if len(table) else pd.Series(dtype=int)
    gaps = []
    for file in files:
        stated = _stated_total(file)
        held = int(counts.get(str(file), 0))
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
    paths = [path_or_dir] if isinstance(path_or_dir, str | os.PathLike) else list(path_or_dir)
    files = list(dict.fromkeys(f.resolve() for p in paths for f in _log_files(Path(p))))
    return check_complete(
        table, inspect_gaps(files, table), str(path_or_dir), allow_partial=allow_partial
    )
