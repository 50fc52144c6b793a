"""Session risk per trace: agent_reliability's step risk of every trace of one session."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from reliability_lab.metrics.session import FLAG_RISK
from reliability_lab.metrics.signals import MetricResult
from reliability_lab.plots.style import metric_label, new_axes
from reliability_lab.sessions.scoring import SessionScores

__all__ = ["plot_session_risk"]

#: Bars in greys (colours mean agents): a flagged trace's bar is the darker.
_RISK, _FLAGGED = "0.86", "0.6"

#: Per-trace risk keys of agent_reliability's metadata, with the marker each is drawn with.
_SIGNAL_MARKERS = {
    "confidence_risk": ("o", "confidence"),
    "tool_risk": ("s", "tool correctness"),
    "coherence_risk": ("^", "coherence"),
    "loop_risk": ("x", "loop detection"),
}


def _risks(session: Any) -> tuple[Mapping[str, Mapping[str, float]], list[str], float]:
    """Per-trace risks, flagged trace ids and the agent_reliability score of ``session``."""
    if isinstance(session, MetricResult):
        if session.name != "agent_reliability":
            raise ValueError(
                f"session: expected the agent_reliability result, got {session.name!r}"
            )
        meta = session.metadata
        return (
            meta.get("per_trace_signals", {}),
            list(meta.get("flagged_traces", [])),
            session.score,
        )
    if isinstance(session, SessionScores):
        return session.trace_risks, list(session.flagged_traces), session.agent_reliability
    raise TypeError(
        "session: expected agent_reliability's MetricResult (evaluate_session(...)"
        f".agent_reliability) or a run's SessionScores, got {type(session).__name__}"
    )


def plot_session_risk(session: Any, *, ax: Axes | None = None, **kwargs: Any) -> Axes:
    """Each trace's step risk as a bar, in session order, with the flag threshold 0.5.

    Parameters
    ----------
    session : MetricResult or SessionScores
        ``evaluate_session(traces).agent_reliability`` (its metadata ``per_trace_signals`` and
        ``flagged_traces``), or the ``SessionScores`` a results directory stores with each run
        (``trace_risks`` and ``flagged_traces``).
    **kwargs
        Passed to ``Axes.bar``.

    Returns
    -------
    Axes
        One bar per trace (height ``step_risk``; flagged traces darker), a marker per
        present signal at its unweighted risk 1 − x, and the dashed threshold. The title gives
        the session's agent_reliability.
    """
    per_trace, flagged, score = _risks(session)
    if not per_trace:
        raise ValueError("session: no per-trace risks (the session was not evaluated or failed)")
    ids = list(per_trace)
    x = np.arange(1, len(ids) + 1, dtype=float)
    risk = np.array([per_trace[t]["step_risk"] for t in ids], dtype=float)
    ax = new_axes(ax, size=(max(3.0, 0.35 * len(ids) + 1.6), 2.6))
    colors = [_FLAGGED if t in flagged else _RISK for t in ids]
    ax.bar(x, risk, width=0.7, color=colors, **kwargs)
    handles: list[Any] = [
        Patch(color=_RISK, label="step risk"),
        Patch(color=_FLAGGED, label=f"flagged (> {FLAG_RISK:g})"),
    ]
    for key, (marker, name) in _SIGNAL_MARKERS.items():
        present = [
            (xi, per_trace[t][key]) for xi, t in zip(x, ids, strict=True) if key in per_trace[t]
        ]
        if present:
            px, py = zip(*present, strict=True)
            ax.plot(px, py, ls="", marker=marker, ms=4, color="0.15", mfc="none", label=name)
            handles.append(
                Line2D([], [], ls="", marker=marker, color="0.15", mfc="none", label=name)
            )
    ax.axhline(FLAG_RISK, ls="--", lw=0.8, color="0.5")
    ax.grid(False, axis="x")
    ax.set_xticks(x, [str(int(i)) for i in x] if len(ids) <= 30 else [])
    ax.set(
        xlim=(0.3, len(ids) + 0.7), ylim=(0, 1.05), xlabel="trace (session order)", ylabel="risk"
    )
    ax.set_title(f"{metric_label('agent_reliability')} {score:.3f}", fontsize="small")
    ax.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(1.0, 1.0),
        frameon=False,
        fontsize="x-small",
    )
    return ax
