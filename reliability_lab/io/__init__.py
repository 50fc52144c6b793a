"""Importers: turn other harnesses' result files into the run table (SPEC §1)."""

from __future__ import annotations

from reliability_lab.io.tau_bench import (
    EXAMPLE_AGENT,
    TauBenchFormatError,
    load_tau_bench,
    load_tau_bench_example,
    trim_tau_bench,
)

__all__ = [
    "EXAMPLE_AGENT",
    "TauBenchFormatError",
    "load_tau_bench",
    "load_tau_bench_example",
    "trim_tau_bench",
]
