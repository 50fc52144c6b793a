"""Shared pieces of the importers: the error type, message format, JSON reading, checks.

Every importer reports a bad input the same way — ``<file>: <record>: field '<name>':
<problem>`` — through :class:`LogFormatError`, so the command line can print it and exit with
status 2, and a user can find the offending value without a traceback.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from reliability_lab.errors import RunTableError
from reliability_lab.runs import INFRASTRUCTURE_PREFIX, validate_run_table

__all__ = [
    "GAPS_ATTR",
    "SUCCESS_TOLERANCE",
    "IncompleteLogError",
    "LogFormatError",
    "MissingExtraError",
    "agent_label",
    "check_complete",
    "count_gap",
    "fail",
    "finish_table",
    "import_extra",
    "import_gaps",
    "infrastructure",
    "is_int",
    "is_provider_error",
    "mapping",
    "missing",
    "optional_number",
    "read_json",
    "token_count",
    "unit_number",
]

#: A reward counts as success when it is within this distance of 1 (τ-bench and τ²-bench's
#: ``is_successful``: ``1 - 1e-6 <= reward <= 1 + 1e-6``).
SUCCESS_TOLERANCE = 1e-6

# Exception names and message fragments of provider-side failures (rate limits, outages,
# connection problems, quota). A run that ended in one of these says nothing about the agent.
_PROVIDER_ERROR = re.compile(
    r"rate.?limit|ratelimit|too many requests|\b429\b|\b50[0234]\b|overloaded|"
    r"service.?unavailable|internal.?server.?error|bad.?gateway|gateway.?timeout|"
    r"api.?connection|connection.?(error|reset|refused|aborted)|remote.?disconnected|"
    r"quota|insufficient.?credits|authentication.?error|permission.?denied",
    re.IGNORECASE,
)


class LogFormatError(RunTableError):
    """A log or results file of another harness is malformed.

    The message names the file, the record (index, line or sample) and the field.
    """


class IncompleteLogError(LogFormatError):
    """A log holds fewer results than it says it has (docs/importers.md, "Shared rules").

    ``gaps`` lists what is missing, one line each.
    """

    def __init__(self, message: str, gaps: list[str]) -> None:
        super().__init__(message)
        self.gaps = gaps


#: ``DataFrame.attrs`` key of the gaps a partial import accepted (``allow_partial=True``).
GAPS_ATTR = "import_gaps"


class MissingExtraError(ImportError, RunTableError):
    """An optional dependency needed to read a format is not installed; says what to install."""


def import_extra(module: str, purpose: str, extra: str = "inspect") -> Any:
    """Import ``module`` of the optional extra ``extra``; :class:`MissingExtraError` if absent.

    The message is one line: ``<purpose> needs <package>; install the extra: pip install
    'reliability-lab[<extra>]'``.
    """
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        package = module.split(".")[0].replace("_", "-")
        raise MissingExtraError(
            f"{purpose} needs {package}; install the extra: pip install 'reliability-lab[{extra}]'"
        ) from None


def fail(
    source: str,
    where: str | None,
    field: str,
    message: str,
    *,
    error: type[LogFormatError] = LogFormatError,
) -> LogFormatError:
    """The importers' error: ``<source>: <where>: field '<field>': <message>``.

    ``error`` is the importer's subclass of :class:`LogFormatError`.

    Examples
    --------
    >>> str(fail("r.json", "simulation 3", "trial", "expected an int >= 0, got -1"))
    "r.json: simulation 3: field 'trial': expected an int >= 0, got -1"
    """
    return error(f"{source}: {where or 'top level'}: field {field!r}: {message}")


def read_json(path: Path, error: type[LogFormatError] = LogFormatError) -> Any:
    """Parse a JSON file; non-UTF-8 or invalid JSON raises ``error`` naming it.

    A missing file raises :class:`FileNotFoundError` (naming it), as ``open`` does.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise missing(path) from None
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text ({exc})") from None
    except OSError as exc:
        raise error(f"{path}: cannot read file: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(
            f"{path}: not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None


def agent_label(name: str, agent: str | Mapping[str, str] | None) -> str:
    """The run table's agent: ``agent`` itself, its entry for ``name``, or ``name``.

    Examples
    --------
    >>> agent_label("gpt-4o", None), agent_label("gpt-4o", "mine"), agent_label("x", {"x": "y"})
    ('gpt-4o', 'mine', 'y')
    """
    if agent is None:
        return name
    return agent if isinstance(agent, str) else agent.get(name, name)


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a JSON object, else an empty mapping (for optional blocks)."""
    return value if isinstance(value, Mapping) else {}


def is_int(value: Any) -> bool:
    """Whether ``value`` is an int and not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def _real(value: Any) -> float | None:
    """``value`` as a float when it is a finite int or float (not a bool), else None."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None


def unit_number(
    value: Any,
    source: str,
    where: str,
    field: str,
    *,
    error: type[LogFormatError] = LogFormatError,
) -> float:
    """``value`` as a float in [0, 1]; anything else raises :class:`LogFormatError`."""
    number = _real(value)
    if number is not None and 0.0 <= number <= 1.0:
        return number
    raise fail(source, where, field, f"expected a number in [0, 1], got {value!r}", error=error)


def optional_number(
    value: Any,
    source: str,
    where: str,
    field: str,
    *,
    error: type[LogFormatError] = LogFormatError,
) -> float:
    """A finite number >= 0, or NaN when ``value`` is None (not recorded)."""
    if value is None:
        return math.nan
    number = _real(value)
    if number is not None and number >= 0:
        return number
    message = f"expected a number >= 0 or null, got {value!r}"
    raise fail(source, where, field, message, error=error)


def token_count(
    value: Any,
    source: str,
    where: str,
    field: str,
    *,
    error: type[LogFormatError] = LogFormatError,
) -> float:
    """A token count to add up: a number >= 0, where null (not reported) adds 0."""
    number = optional_number(value, source, where, field, error=error)
    return 0.0 if math.isnan(number) else number


def chat_message(
    role: str,
    text: str,
    *,
    tool_calls: Iterable[tuple[str, str, Any]] = (),
    tool_call_id: str | None = None,
) -> dict[str, Any]:
    """One message of a conversation in the OpenAI chat format the session metrics read
    (``trajectory``; docs/importers.md, "Sessions").

    ``tool_calls`` are ``(id, name, arguments)``; arguments that are not already a JSON text
    are serialised.
    """
    message: dict[str, Any] = {"role": role, "content": text}
    calls = [
        {
            "id": call_id,
            "type": "function",
            "function": {
                "name": name,
                "arguments": args if isinstance(args, str) else json.dumps(args, default=str),
            },
        }
        for call_id, name, args in tool_calls
    ]
    if calls:
        message["tool_calls"] = calls
    if tool_call_id is not None:
        message["tool_call_id"] = tool_call_id
    return message


def missing(path: Path) -> FileNotFoundError:
    """The error for a path that does not exist (the CLI prints ``<path>: file not found``)."""
    return FileNotFoundError(2, "No such file or directory", str(path))


def is_provider_error(*texts: str | None) -> bool:
    """Whether an exception name or message describes a provider/connection failure.

    Examples
    --------
    >>> is_provider_error("RateLimitError", "429 Too Many Requests")
    True
    >>> is_provider_error("ValueError", "agent gave up")
    False
    """
    return any(text and _PROVIDER_ERROR.search(text) for text in texts)


def infrastructure(reason: str) -> str:
    """An ``error`` value that marks a provider/harness failure (excluded from metrics)."""
    return f"{INFRASTRUCTURE_PREFIX} {reason}"


def finish_table(
    rows: Iterable[Mapping[str, Any]], source: str, *, empty_message: str
) -> pd.DataFrame:
    """Validate importer rows as a run table; no rows raises :class:`LogFormatError`.

    Rows that lack ``actions`` or ``violations`` get empty lists (a column that only some
    rows have would otherwise hold NaN for the others).
    """
    records = [{"actions": [], "violations": [], **row} for row in rows]
    if not records:
        raise LogFormatError(f"{source}: {empty_message}")
    return validate_run_table(pd.DataFrame.from_records(records), source=source)


def check_complete(
    table: pd.DataFrame, gaps: Iterable[str], source: str, *, allow_partial: bool
) -> pd.DataFrame:
    """Refuse an import with gaps against the file's own totals, unless ``allow_partial``.

    Parameters
    ----------
    table : DataFrame
        The imported run table.
    gaps : iterable of str
        What the file says it holds but does not, one line each (e.g. ``"run_2.jsonl: 3 of 5
        samples (missing: 3, 4)"``).
    source : str
        The file or directory, for the message.
    allow_partial : bool
        Return the table anyway, the gaps recorded in ``table.attrs[GAPS_ATTR]``.

    Raises
    ------
    IncompleteLogError
        There are gaps and ``allow_partial`` is False; the message lists them.
    """
    found = list(gaps)
    if found and not allow_partial:
        listed = "\n  ".join(found)
        raise IncompleteLogError(
            f"{source}: incomplete — the log states more results than it holds:\n  {listed}\n"
            "import what is there with allow_partial=True (--allow-partial)",
            found,
        )
    table.attrs[GAPS_ATTR] = found
    return table


def import_gaps(table: pd.DataFrame) -> list[str]:
    """The gaps a partial import accepted (empty when the log was complete)."""
    return list(table.attrs.get(GAPS_ATTR, []))


def count_gap(label: str, expected: Iterable[str], found: Iterable[str], noun: str) -> str | None:
    """A line naming what of ``expected`` is not in ``found`` (None when nothing is missing).

    Examples
    --------
    >>> count_gap("run_2.jsonl", ["1", "2", "3"], ["1"], "samples")
    "run_2.jsonl: 1 of 3 samples (missing: '2', '3')"
    """
    wanted = list(dict.fromkeys(expected))
    present = set(found)
    absent = [key for key in wanted if key not in present]
    if not absent:
        return None
    shown = ", ".join(repr(key) for key in absent[:10]) + (", …" if len(absent) > 10 else "")
    return f"{label}: {len(wanted) - len(absent)} of {len(wanted)} {noun} (missing: {shown})"
