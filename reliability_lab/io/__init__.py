"""Importers: other harnesses' logs → the run table (docs/importers.md).

Each importer produces the run table and nothing else; a malformed input raises a
:class:`LogFormatError` naming the file, the record and the field.

- :func:`load_inspect_log` — inspect_ai eval logs (``.eval``/``.json``; extra ``[inspect]``);
- :func:`load_tau2_bench` — τ²-bench ``Results`` files;
- :func:`load_tau_bench` — τ-bench results files (and the bundled example);
- :func:`load_hal_results` — HAL reliability uploads; :func:`load_hal_metrics` and
  :func:`compare_with_hal` for HAL's published per-agent numbers;
- :func:`load_letta_evals` — letta-evals results directories;
- :func:`from_records` — any table, by a column mapping;
- :func:`detect_format` / :func:`load_runs` — recognise a path's format and import it.

Where a log states its own totals (samples, tasks, trials, runs), an import that finds fewer
raises :class:`IncompleteLogError` listing the gaps, unless ``allow_partial=True``, which
keeps them in ``table.attrs`` (:func:`import_gaps`).
"""

from __future__ import annotations

from reliability_lab.io._common import (
    IncompleteLogError,
    LogFormatError,
    MissingExtraError,
    import_gaps,
)
from reliability_lab.io.formats import FORMATS, detect_format, load_runs
from reliability_lab.io.hal import HalFormatError, load_hal_results
from reliability_lab.io.hal_metrics import compare_with_hal, load_hal_metrics
from reliability_lab.io.inspect_logs import InspectLogError, load_inspect_log
from reliability_lab.io.letta_evals import LettaEvalsFormatError, load_letta_evals
from reliability_lab.io.table import from_records
from reliability_lab.io.tau2_bench import Tau2FormatError, load_tau2_bench
from reliability_lab.io.tau_bench import (
    EXAMPLE_AGENT,
    TauBenchFormatError,
    load_tau_bench,
    load_tau_bench_example,
    trim_tau_bench,
)

__all__ = [
    "EXAMPLE_AGENT",
    "FORMATS",
    "HalFormatError",
    "IncompleteLogError",
    "InspectLogError",
    "LettaEvalsFormatError",
    "LogFormatError",
    "MissingExtraError",
    "Tau2FormatError",
    "TauBenchFormatError",
    "compare_with_hal",
    "detect_format",
    "from_records",
    "import_gaps",
    "load_hal_metrics",
    "load_hal_results",
    "load_inspect_log",
    "load_letta_evals",
    "load_runs",
    "load_tau2_bench",
    "load_tau_bench",
    "load_tau_bench_example",
    "trim_tau_bench",
]
