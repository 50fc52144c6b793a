"""Numbers in a config: finite, in documented ranges, and ceilings that protect the machine.

Every number a config holds is finite (``.inf`` and ``.nan`` are refused wherever they are
written, free-form ``params`` and condition ``options`` included), an integer is at most
:data:`MAX_INT`, and ``true``/``false`` are never read as 1/0. Two ceilings keep a typo
(``runs: 1000000000``) from exhausting the machine before anything useful happens: the
planned runs of an experiment (:data:`MAX_PLANNED_RUNS`) and the bootstrap resamples
(:data:`MAX_N_BOOT`). They are computed without building the plan, documented in
``experiments/README.md`` (under "Numbers and limits") and raised with a ``limits:`` block
when a larger experiment is meant.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AllowInfNan, BaseModel, BeforeValidator, ConfigDict, Field

__all__ = [
    "MAX_INT",
    "MAX_N_BOOT",
    "MAX_PLANNED_RUNS",
    "Float",
    "Int",
    "LimitsSettings",
    "find_non_finite",
]

#: Largest integer a config may hold (a signed 64-bit integer, what numpy seeds accept).
MAX_INT = 2**63 - 1
#: Default ceiling on the runs an experiment plans (adaptive runs included).
MAX_PLANNED_RUNS = 100_000
#: Default ceiling on bootstrap resamples (``report.n_boot``, ``--n-boot``).
MAX_N_BOOT = 100_000


def _refuse_bool(kind: str) -> Any:
    """A before-validator: ``true``/``false`` are not numbers (pydantic would read 1/0)."""

    def check(value: Any) -> Any:
        if isinstance(value, bool):
            raise ValueError(f"expected {kind}, not a boolean")
        return value

    return BeforeValidator(check)


#: An integer setting in [-MAX_INT, MAX_INT]; a YAML boolean is an error, not 1 or 0.
Int = Annotated[int, _refuse_bool("an integer"), Field(ge=-MAX_INT, le=MAX_INT)]
#: A finite real-number setting; a YAML boolean is an error, not 1.0 or 0.0.
Float = Annotated[float, _refuse_bool("a number"), AllowInfNan(False)]


class LimitsSettings(BaseModel):
    """The ``limits:`` block: ceilings that protect the machine (raise them on purpose)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_runs: Int = Field(default=MAX_PLANNED_RUNS, ge=1)
    """Most runs the experiment may plan: agents × tasks × condition variants × K, plus the
    baseline runs an ``adaptive`` block may add (agents × tasks × its ``max_runs``)."""
    max_n_boot: Int = Field(default=MAX_N_BOOT, ge=1)
    """Most bootstrap resamples ``report.n_boot`` may ask for."""


Loc = tuple[int | str, ...]


def find_non_finite(data: Any, path: Loc = ()) -> tuple[Loc, float] | None:
    """The field path and value of the first NaN or infinite number in ``data``, else None.

    >>> find_non_finite({"llm": {"timeout_s": float("inf")}}), find_non_finite([1, 2.5])
    ((('llm', 'timeout_s'), inf), None)
    """
    if isinstance(data, float):
        return None if math.isfinite(data) else (path, data)
    if isinstance(data, Mapping):
        items: Any = ((str(k), v) for k, v in data.items())
    elif isinstance(data, list | tuple):
        items = enumerate(data)
    else:
        return None
    for key, value in items:
        found = find_non_finite(value, (*path, key))
        if found is not None:
            return found
    return None
