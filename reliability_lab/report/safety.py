"""Safety findings as tables: one row per finding, and counts by constraint and severity.

The runs counted are the ones the safety metrics use (docs/safety.md, "From findings to
S_comp, S_harm and R_saf"): baseline runs that did not end in an ``infrastructure:`` error and,
whose safety is known (:func:`reliability_lab.runs.safety_assessed`: the judge, when one ran,
gave a verdict, and something checked the run — imported logs may say it did not).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reliability_lab.runs import (
    BASELINE,
    KEY_COLUMNS,
    SEVERITY_WEIGHTS,
    is_infrastructure_error,
    safety_assessed,
    validate_run_table,
)

__all__ = ["FINDING_COLUMNS", "safety_findings", "safety_scope", "violation_counts"]

#: Columns of :func:`safety_findings`, after the run key.
FINDING_COLUMNS = ("constraint", "severity", "source")


def safety_scope(runs: pd.DataFrame) -> np.ndarray:
    """Boolean mask of the runs the safety metrics use (see the module docstring).

    >>> import pandas as pd
    >>> runs = pd.DataFrame({"condition": ["baseline", "fault", "baseline"],
    ...                      "error": [None, None, "infrastructure: timeout"]})
    >>> safety_scope(runs).tolist()
    [True, False, False]
    """
    scope = (runs["condition"] == BASELINE).to_numpy() & ~is_infrastructure_error(runs["error"])
    return np.asarray(scope & safety_assessed(runs), dtype=bool)


def safety_findings(runs: pd.DataFrame) -> pd.DataFrame:
    """Every safety finding of the runs in scope, one row each.

    Parameters
    ----------
    runs : DataFrame
        A run table (validated; ``violations`` holds each run's findings).

    Returns
    -------
    DataFrame
        The run key (``agent, task_id, condition, variant, run``), then ``constraint``,
        ``severity`` and ``source`` (``rule``, ``judge`` or ``rule+judge``; ``rule`` when a
        finding does not say), in run-table order.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"agent": "a", "task_id": ["t1", "t2"], "run": 0, "success": 1,
    ...     "violations": [[{"constraint": "pii_exposure", "severity": "high"}], []]})
    >>> safety_findings(runs)[["task_id", "constraint", "severity", "source"]]
      task_id    constraint severity source
    0      t1  pii_exposure     high   rule
    """
    table = validate_run_table(runs, source="runs")
    used = table.loc[safety_scope(table)]
    rows = [
        (*key, str(v["constraint"]), str(v["severity"]), str(v.get("source") or "rule"))
        for key, found in zip(
            used[list(KEY_COLUMNS)].itertuples(index=False), used["violations"], strict=True
        )
        for v in found
    ]
    return pd.DataFrame(rows, columns=[*KEY_COLUMNS, *FINDING_COLUMNS])


def violation_counts(runs: pd.DataFrame) -> pd.DataFrame:
    """Number of findings per constraint (rows) and severity (columns) in the runs in scope.

    Rows are the constraints found, most findings first (ties by name); columns every severity
    of :data:`~reliability_lab.runs.SEVERITY_WEIGHTS`, mildest first, with 0 where none.

    Examples
    --------
    >>> import pandas as pd
    >>> runs = pd.DataFrame({"agent": "a", "task_id": ["t1", "t2"], "run": 0, "success": 1,
    ...     "violations": [[{"constraint": "rate_limit", "severity": "low"},
    ...                     {"constraint": "pii_exposure", "severity": "high"}],
    ...                    [{"constraint": "pii_exposure", "severity": "medium"}]]})
    >>> violation_counts(runs)
    severity      low  medium  high  critical
    constraint
    pii_exposure    0       1     1         0
    rate_limit      1       0     0         0
    """
    found = safety_findings(runs)
    counts = pd.crosstab(found["constraint"], found["severity"])
    counts = counts.reindex(columns=list(SEVERITY_WEIGHTS), fill_value=0)
    counts.columns.name = "severity"
    totals = counts.sum(axis=1)
    order = sorted(counts.index, key=lambda c: (-int(totals[c]), str(c)))
    return counts.loc[order].astype(np.int64)
