"""Traces and sessions: the data PandaProbe's metrics read.

A :class:`Trace` is one agent request/response (here: one agent step or user turn) with its
:class:`Span` s; traces sharing a ``session_id`` form a session (here: one run). Traces come from
PandaProbe-style JSON (:func:`load_traces`) or from a run's OpenAI-format trajectory
(:func:`traces_from_trajectory`).
"""

from reliability_lab.sessions.tracing._import import (
    TraceImportError,
    group_sessions,
    load_traces,
    traces_from_json,
)
from reliability_lab.sessions.tracing._model import Span, SpanKind, TokenUsage, Trace
from reliability_lab.sessions.tracing._trajectory import traces_from_trajectory

__all__ = [
    "Span",
    "SpanKind",
    "TokenUsage",
    "Trace",
    "TraceImportError",
    "group_sessions",
    "load_traces",
    "traces_from_json",
    "traces_from_trajectory",
]
