"""Extra run-table columns from a run's ``perturbation`` record.

See docs/run_table.md, "Extra columns", and docs/perturbations.md, "Where the results go".

======================= ============================================================================
column                  meaning
======================= ============================================================================
``intensity``           the variant's intensity (``p=0.2``, ``medium``, ``strong``; ``""`` baseline)
``n_faults``            faults injected into the run (0 for runs of other conditions; NaN when
                        the record has no ``perturbation`` field, e.g. written by an older version)
``n_faults_recovered``  of those, faults after which the same tool later succeeded
``faults``              the fault events: ``{type, tool, step, call, attempt, executed, masked,
                        recovered, recovered_by}``
``paraphrase_id``       the paraphrase a ``prompt`` run received (``medium/3``), else None
======================= ============================================================================
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from reliability_lab.perturbations._base import variant_intensity
from reliability_lab.perturbations.fault import FAULT_TYPES

__all__ = ["RUN_COLUMNS", "run_columns"]

RUN_COLUMNS = ("intensity", "n_faults", "n_faults_recovered", "faults", "paraphrase_id")


def run_columns(record: Mapping[str, Any] | None, variant: str) -> dict[str, Any]:
    """The :data:`RUN_COLUMNS` of one run from its ``perturbation`` record (or None).

    >>> run_columns(None, "medium/2")["intensity"]
    'medium'
    """
    if record is None:
        return {
            "intensity": variant_intensity(variant),
            "n_faults": math.nan,
            "n_faults_recovered": math.nan,
            "faults": [],
            "paraphrase_id": None,
        }
    faults = [dict(e) for e in record.get("events", []) if e.get("type") in FAULT_TYPES]
    return {
        "intensity": str(record.get("intensity", variant_intensity(variant))),
        "n_faults": len(faults),
        "n_faults_recovered": sum(bool(e.get("recovered")) for e in faults),
        "faults": faults,
        "paraphrase_id": record.get("parameters", {}).get("paraphrase_id"),
    }
