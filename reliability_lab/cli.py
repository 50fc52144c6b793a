"""Command line: ``reliability-lab run | report | compare | figures | validate | repair``
(docs/results.md).

Exit status: 0 when every gate passes, 1 when a gate fails, 2 on a usage or input error
(invalid config, unreadable results, missing file — the message goes to stderr, no traceback),
130 after Ctrl-C and 143 after SIGTERM (``run``: finished runs are saved either way; a lost
local Ray node ends ``run`` the same way), 141 when the reader of the output went away
(``report DIR | head``; silently).
``--quiet`` prints only ``✓ PASSED`` or ``✗ FAILED``.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from types import FrameType
from typing import TYPE_CHECKING

from reliability_lab.errors import ConfigError, ExecutorLostError, ExperimentError, RunTableError

if TYPE_CHECKING:
    from reliability_lab.results.outcome import ExperimentOutcome

__all__ = ["main"]

EXIT_PASSED, EXIT_FAILED, EXIT_INPUT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
#: 128 + the signal number, as a shell reports a process ended by SIGTERM / SIGPIPE.
EXIT_TERMINATED, EXIT_BROKEN_PIPE = 143, 141
#: Set when SIGTERM ended the command (the KeyboardInterrupt that follows is reported as such).
_TERMINATED = threading.Event()


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _n_boot(text: str) -> int:
    from reliability_lab.experiment.limits import MAX_N_BOOT

    value = _positive_int(text)
    if value > MAX_N_BOOT:
        raise argparse.ArgumentTypeError(
            f"at most {MAX_N_BOOT} (a ceiling that protects the machine), got {value}"
        )
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="reliability-lab",
        description="Measure how reliably AI agents succeed (consistency, predictability, "
        "robustness, safety).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = sub.add_parser("run", help="run (or resume) an experiment config")
    run.add_argument("config", metavar="CONFIG", help="experiment YAML file")
    run.add_argument("--output", metavar="DIR", help="results directory (default from config)")
    run.add_argument("--quiet", action="store_true", help="print only ✓ PASSED / ✗ FAILED")
    run.add_argument("--max-concurrent", type=_positive_int, metavar="N", help="runs at once")
    run.add_argument("--runs", type=_positive_int, metavar="K", help="repetitions per task")
    run.add_argument("--seed", type=_seed, metavar="S", help="master seed")
    run.add_argument(
        "--executor",
        choices=("asyncio", "ray"),
        help="where runs execute: this process (asyncio) or Ray (needs reliability-lab[ray]); "
        "default from the config",
    )
    run.add_argument(
        "--no-retry-infra",
        action="store_true",
        help="on resume, keep runs recorded as infrastructure errors instead of executing "
        "them again",
    )
    run.add_argument(
        "--skip-preflight",
        action="store_true",
        help="do not check model routing and API keys before the runs start",
    )
    _add_filters(run)
    _add_report_parser(sub)
    _add_compare_parser(sub)
    validate = sub.add_parser(
        "validate",
        help="check an experiment config without running it (no API key needed)",
        description="Check a config: fields, tasks, conditions, model routing. API keys are "
        "checked only with --preflight (and by `run` before it starts).",
    )
    validate.add_argument("config", metavar="CONFIG", help="experiment YAML file")
    _add_filters(validate)
    validate.add_argument(
        "--preflight",
        action="store_true",
        help="also check that every provider's API key is set, as `run` does",
    )
    _add_figures_parser(sub)
    _add_show_parser(sub)
    _add_table_parser(sub)
    catalog = sub.add_parser(
        "list",
        help="what a config can name: environments, simulated profiles, metrics, conditions",
    )
    catalog.add_argument(
        "section",
        nargs="?",
        choices=("environments", "simulated", "metrics", "profiles", "conditions"),
        help="one section only (default: all)",
    )
    html = sub.add_parser(
        "html",
        help="write the self-contained HTML reliability report of a results directory",
        description="Write one HTML file (no network, no external assets) with provenance, "
        "the per-agent table, every figure, robustness, safety, the paired comparison and "
        'the runs of every task (docs/results.md, "The HTML report").',
    )
    html.add_argument("directory", metavar="DIR", help="results directory")
    html.add_argument("-o", "--output", metavar="FILE", help="default: DIR/report.html")
    _add_export_parser(sub)
    repair = sub.add_parser(
        "repair",
        help="keep one record per run in a results directory (dropped lines are audited)",
        description="Keep one record per planned run in a results directory written by two "
        "processes: the first record of a run that is not an infrastructure error stays; the "
        "other records, and those of runs not in header.json's plan, move to "
        "results.audit.jsonl; traces.jsonl is made to agree.",
    )
    repair.add_argument("directory", metavar="DIR", help="results directory")
    return parser


def _add_filters(command: argparse.ArgumentParser) -> None:
    command.add_argument("--tasks", metavar="IDS", help="only these task ids (comma-separated)")
    command.add_argument(
        "--agents", metavar="LABELS", help="only these agents (comma-separated labels)"
    )
    command.add_argument(
        "--limit", type=_positive_int, metavar="N", help="only the first N selected tasks"
    )


def _run(args: argparse.Namespace) -> ExperimentOutcome:
    from reliability_lab.runner.runner import run_experiment

    return run_experiment(
        args.config,
        output=args.output,
        runs=args.runs,
        seed=args.seed,
        max_concurrent=args.max_concurrent,
        progress=not args.quiet,
        retry_infra=not args.no_retry_infra,
        preflight=not args.skip_preflight,
        executor=args.executor,
        tasks=args.tasks,
        agents=args.agents,
        limit=args.limit,
    )


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Send the process's file descriptor 1 (stdout) to descriptor 2 for the block.

    What a run prints goes to stderr (progress, warnings); Ray's processes, started inside the
    block, inherit the redirected descriptor, so their log lines never mix with the summary
    printed on stdout afterwards (restored when the block ends).
    """
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:  # no stdout at all
        yield
        return
    try:
        os.dup2(2, 1)
        yield
    finally:
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _cmd_run(args: argparse.Namespace) -> int:
    from reliability_lab.results.console import verdict

    with _stdout_to_stderr():  # stdout carries the summary alone (Ray's own lines go to stderr)
        outcome = _run(args)
    print(verdict(outcome.summary) if args.quiet else outcome.summary_text())
    return EXIT_PASSED if outcome.passed else EXIT_FAILED


def _add_report_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from reliability_lab.io.formats import FORMATS

    report = sub.add_parser(
        "report",
        help="the summary of a results directory, or of another harness's logs",
        description="Summarise a reliability_lab results directory, or import the logs of "
        "another harness (docs/importers.md) and print the same report and gates.",
    )
    report.add_argument("path", metavar="PATH", help="results directory or log file/directory")
    report.add_argument("--format", choices=FORMATS, help="log format (default: detected)")
    report.add_argument("--agent", metavar="LABEL", help="agent label for every imported run")
    report.add_argument("--scorer", metavar="NAME", help="inspect logs: scorer deciding success")
    report.add_argument(
        "--map",
        action="append",
        metavar="FIELD=COLUMN",
        help="a run table of your own (.csv/.parquet/.jsonl): take run-table FIELD from your "
        "COLUMN, e.g. --map task_id=sample --map run=epoch (repeatable)",
    )
    report.add_argument(
        "--pass-threshold",
        type=float,
        metavar="X",
        help="letta-evals (instead of the suite rule), or a run table without a success "
        "column: a run passes when its score is at least X",
    )
    report.add_argument(
        "--allow-partial",
        action="store_true",
        help="import logs that hold fewer results than they state, printing what is missing",
    )
    report.add_argument(
        "--gate", action="append", metavar="GATE", help='e.g. "R >= 0.7" (repeatable)'
    )
    report.add_argument("--profile", metavar="NAME", help="metric profile (default: default)")
    report.add_argument("--n-boot", type=_n_boot, metavar="B", help="bootstrap replicates")
    report.add_argument("--seed", type=_seed, metavar="S", help="bootstrap seed")
    report.add_argument(
        "--sessions",
        action="store_true",
        help="session metrics from the logs' conversations (calls the judge model)",
    )
    report.add_argument(
        "--judge-model",
        metavar="MODEL",
        help="--sessions: litellm model of the session judge (default: sim/judge, offline)",
    )
    report.add_argument("--output", metavar="DIR", help="write a results directory there")
    report.add_argument(
        "--write-summary",
        action="store_true",
        help="results directory: also rewrite its summary.json, run_k/ and "
        "aggregate_stats.json (by default report only reads)",
    )
    report.add_argument("--quiet", action="store_true", help="print only ✓ PASSED / ✗ FAILED")


def _column_map(items: Sequence[str] | None) -> dict[str, str]:
    """``--map FIELD=COLUMN`` arguments as ``{field: column}``; a malformed one is named."""
    mapping: dict[str, str] = {}
    for item in items or []:
        field, equals, column = (part.strip() for part in item.partition("="))
        if not equals or not field or not column:
            raise ConfigError(f"--map {item!r}: expected FIELD=COLUMN, e.g. --map task_id=sample")
        if field in mapping:
            raise ConfigError(f"--map {item!r}: {field} is mapped already (to {mapping[field]!r})")
        mapping[field] = column
    return mapping


def _map_errors_named(command: Callable[[argparse.Namespace], int]) -> Callable[..., int]:
    """``command`` with a column mapping's errors named in its own syntax (``--map F=C``)."""

    @functools.wraps(command)
    def named(args: argparse.Namespace) -> int:
        from reliability_lab.io.table import ColumnMappingError

        try:
            return command(args)
        except ColumnMappingError as exc:
            pairs = " ".join(f"--map {field}={column}" for field, column in exc.pairs)
            raise ConfigError(f"{pairs}: {exc.problem}") from None

    return named


@_map_errors_named
def _cmd_report(args: argparse.Namespace) -> int:
    from reliability_lab.io.summarize import reanalysed_settings, summarize_logs
    from reliability_lab.results.console import format_summary, verdict

    summary = summarize_logs(
        args.path,
        format=args.format,
        agent=args.agent,
        columns=_column_map(args.map),
        scorer=args.scorer,
        pass_threshold=args.pass_threshold,
        allow_partial=args.allow_partial,
        gates=args.gate,
        profile=args.profile,
        n_boot=args.n_boot,
        seed=args.seed,
        sessions=args.sessions,
        judge_model=args.judge_model,
        output=args.output,
        write_summary=args.write_summary,
    )
    changed = reanalysed_settings(
        args.path, args.format, args.profile, args.n_boot, args.seed, args.gate
    )
    if changed:
        print(
            f"Re-analysis ({', '.join(changed)} changed; summary.json, the report of record, is "
            "left as it is):"
        )
    print(verdict(summary) if args.quiet else format_summary(summary))
    return EXIT_PASSED if summary.passed else EXIT_FAILED


def _add_compare_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    compare = sub.add_parser(
        "compare",
        help="what changed between two results directories; gates on the differences",
        description="Compare the agents of two results directories (matched by label) on "
        "their common tasks: NEW − OLD per metric with paired bootstrap intervals and "
        "Holm-adjusted p-values (docs/statistics.md). Gates apply to the differences.",
    )
    compare.add_argument("old", metavar="OLD_RESULTS", help="results directory of the old version")
    compare.add_argument("new", metavar="NEW_RESULTS", help="results directory of the new version")
    compare.add_argument(
        "--gate",
        action="append",
        metavar="GATE",
        help='on NEW − OLD, e.g. "R >= -0.02" (repeatable)',
    )
    compare.add_argument(
        "--agent",
        action="append",
        metavar="LABEL",
        help="agent to compare, or OLD=NEW (repeatable)",
    )
    compare.add_argument("--profile", metavar="NAME", help="metric profile (default: the results')")
    compare.add_argument(
        "--n-boot", type=_n_boot, default=2000, metavar="B", help="paired replicates"
    )
    compare.add_argument("--seed", type=_seed, default=0, metavar="S", help="bootstrap seed")
    compare.add_argument("--quiet", action="store_true", help="print only ✓ PASSED / ✗ FAILED")


def _cmd_compare(args: argparse.Namespace) -> int:
    from reliability_lab.results.compare_dirs import compare_results, format_comparison
    from reliability_lab.results.console import FAILED, PASSED

    comparison = compare_results(
        args.old,
        args.new,
        gates=args.gate,
        agents=args.agent,
        profile=args.profile,
        n_boot=args.n_boot,
        seed=args.seed,
    )
    if args.quiet:
        print(PASSED if comparison.passed else FAILED)
    else:
        print(format_comparison(comparison))
    return EXIT_PASSED if comparison.passed else EXIT_FAILED


def _add_figures_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    figures = sub.add_parser(
        "figures",
        help="write the paper figure set of a results directory (PDF and PNG)",
        description="Draw every figure of the paper figure set (reliability_lab.plots.FIGURES) "
        "from a results directory and write each as PDF and PNG (docs/figures.md).",
    )
    figures.add_argument("results", metavar="RESULTS_DIR", help="results directory")
    figures.add_argument(
        "--output", metavar="DIR", help="where to write them (default: RESULTS_DIR/figures)"
    )
    figures.add_argument(
        "--only", action="append", metavar="NAME", help="only this figure (repeatable)"
    )
    figures.add_argument(
        "--format",
        action="append",
        choices=("pdf", "png", "svg"),
        dest="formats",
        help="file format (repeatable; default: pdf and png)",
    )


def _cmd_figures(args: argparse.Namespace) -> int:
    from pathlib import Path

    from reliability_lab.plots.figure_set import save_all

    results = Path(args.results)
    if not results.is_dir():
        raise ConfigError(f"{results}: not a results directory")
    out = Path(args.output) if args.output else results / "figures"
    try:
        saved = save_all(
            results, out, formats=tuple(args.formats or ("pdf", "png")), only=args.only
        )
    except ValueError as exc:
        raise ConfigError(f"--only: {exc}") from None
    for name, files in saved.written.items():
        print(f"  {name}: {', '.join(f.suffix.lstrip('.') for f in files)}")
    for name, reason in saved.skipped.items():
        print(f"  {name}: skipped ({reason})")
    print(
        f"{len(saved.written)} figures written to {saved.directory} "
        "(captions and data: manifest.json)"
    )
    return EXIT_PASSED


def _add_show_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    show = sub.add_parser(
        "show",
        help="list the runs of a results directory, or print one run's transcript",
        description="List the runs of a results directory in the experiment's order (filters "
        "combine), or print one run's transcript with --run "
        '(docs/results.md, "Looking at runs").',
    )
    show.add_argument("directory", metavar="DIR", help="results directory")
    show.add_argument("--run", metavar="KEY", help="AGENT|TASK|CONDITION|VARIANT|RUN to print")
    show.add_argument("--failed", action="store_true", help="only runs that failed")
    show.add_argument("--agent", metavar="LABEL", help="only this agent's runs")
    show.add_argument("--task", metavar="TASK_ID", help="only this task's runs")
    show.add_argument("--condition", metavar="NAME", help="only this condition's runs")
    show.add_argument(
        "--inconsistent",
        action="store_true",
        help="only tasks whose repeated runs (one agent, one condition variant) disagree",
    )


def _cmd_show(args: argparse.Namespace) -> int:
    from reliability_lab.viewer import (
        RunFilter,
        filter_runs,
        format_run_list,
        format_transcript,
        read_view,
    )

    view = read_view(args.directory)
    if args.run is not None:
        print(format_transcript(view, args.run))
        return EXIT_PASSED
    selection = RunFilter(
        failed=args.failed,
        agent=args.agent,
        task=args.task,
        condition=args.condition,
        inconsistent=args.inconsistent,
    )
    print(format_run_list(view, filter_runs(view.runs, selection)))
    return EXIT_PASSED


def _add_table_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    table = sub.add_parser(
        "table",
        help="the per-agent table of a results directory as LaTeX (booktabs) or Markdown",
        description="Print (or write with -o) the per-agent table of summary.json as a paper "
        "prints it: point estimates with intervals, n/a with the reason in a note "
        '(docs/results.md, "Tables for a paper").',
    )
    table.add_argument("directory", metavar="DIR", help="results directory")
    kind = table.add_mutually_exclusive_group(required=True)
    kind.add_argument("--latex", action="store_true", help="a booktabs table environment")
    kind.add_argument("--markdown", action="store_true", help="a Markdown table")
    table.add_argument(
        "--metric",
        action="append",
        metavar="NAME",
        help="a column (repeatable; default: accuracy, R_Con, R_Pred, R_Rob, R, R_saf)",
    )
    table.add_argument("--digits", type=_positive_int, default=2, metavar="D", help="decimals")
    table.add_argument("-o", "--output", metavar="FILE", help="write there instead of stdout")


def _cmd_table(args: argparse.Namespace) -> int:
    from pathlib import Path

    from reliability_lab.results.order import in_config_order
    from reliability_lab.results.read import load_report
    from reliability_lab.viewer.tables import DEFAULT_TABLE_METRICS, latex_table, markdown_table

    report = in_config_order(load_report(args.directory), args.directory)
    metrics = args.metric or DEFAULT_TABLE_METRICS
    render = latex_table if args.latex else markdown_table
    text = render(report, metrics=metrics, digits=args.digits)
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
        print(f"Table written to {args.output}")
    else:
        print(text)
    return EXIT_PASSED


def _add_export_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = sub.add_parser(
        "export",
        help="write a results directory in another tool's log format (inspect view)",
        description="Write a results directory as inspect_ai .eval logs, one per agent × "
        "condition × variant (runs as epochs, transcripts as messages, our scores and "
        "confidences on each sample), for `inspect view` "
        '(needs reliability-lab[inspect]; docs/inspect.md, "Exporting to inspect view").',
    )
    export.add_argument("directory", metavar="DIR", help="results directory")
    export.add_argument("--to", choices=("inspect",), required=True, help="target log format")
    export.add_argument("-o", "--output", metavar="OUTDIR", help="default: DIR/inspect-logs")


def _cmd_export(args: argparse.Namespace) -> int:
    from reliability_lab.inspect.export import export_to_inspect

    print(export_to_inspect(args.directory, args.output).describe())
    return EXIT_PASSED


def _cmd_list(args: argparse.Namespace) -> int:
    from reliability_lab.viewer.catalog import SECTIONS, format_catalog

    print(format_catalog((args.section,) if args.section else SECTIONS))
    return EXIT_PASSED


def _cmd_html(args: argparse.Namespace) -> int:
    from reliability_lab.html import write_html_report

    print(f"HTML report written to {write_html_report(args.directory, args.output)}")
    return EXIT_PASSED


def _cmd_validate(args: argparse.Namespace) -> int:
    from reliability_lab.experiment.plan import check_plan, resolve_tasks
    from reliability_lab.runner.preflight import check_preflight
    from reliability_lab.runner.runner import load_filtered
    from reliability_lab.runs import is_simulated_model

    _, config = load_filtered(args.config, tasks=args.tasks, agents=args.agents, limit=args.limit)
    tasks = resolve_tasks(config, source=args.config)
    n_runs = check_plan(config, tasks, source=args.config)
    check_preflight(config, source=args.config, keys=args.preflight)
    n_variants = sum(len(c.resolved_variants()) for c in config.conditions)
    per_task = sum(len(c.resolved_variants()) * config.condition_runs(c) for c in config.conditions)
    shape = (
        f"{n_variants} condition variant(s) × K={config.runs}"
        if per_task == n_variants * config.runs
        else f"{per_task} runs per agent and task ({n_variants} condition variant(s), "
        f"K={config.runs}, conditions' own runs)"
    )
    n_static = len(config.agents) * len(tasks) * per_task
    adaptive = f" (up to {n_runs} with adaptive runs)" if n_runs != n_static else ""
    print(
        f"OK: {args.config}: {len(config.agents)} agents × {len(tasks)} tasks × {shape} "
        f"= {n_static} runs{adaptive} "
        f"→ {config.output_dir()}"
    )
    sim = [a.label for a in config.agents if a.model and is_simulated_model(a.model)]
    if sim:
        print(f"note: simulated model (sim/...) used by: {', '.join(sim)}")
    if not args.preflight and len(sim) < len(config.agents):
        print("note: API keys not checked (validate --preflight, and run, check them)")
    return EXIT_PASSED


def _cmd_repair(args: argparse.Namespace) -> int:
    from reliability_lab.results.repair import repair_directory

    print(repair_directory(args.directory).describe())
    return EXIT_PASSED


@contextlib.contextmanager
def _cli_process() -> Iterator[None]:
    """Process-wide behaviour of the command, in place only while :func:`main` runs.

    - warnings print as one line, ``reliability-lab: warning: <message>``, without the Python
      source line the default format adds;
    - SIGTERM (from ``kill``, a CI timeout, a container stop) ends the command exactly like
      Ctrl-C — it is handed to the SIGINT handler in place, which inside the experiment's event
      loop cancels the experiment cleanly — and :data:`_TERMINATED` remembers it for the
      message. Every finished run is already saved.
    """
    saved_show = warnings.showwarning

    def one_line(message: Warning | str, category: type[Warning], *_: object, **__: object) -> None:
        text = " ".join(str(message).split())
        print(f"reliability-lab: warning: {text}", file=sys.stderr)

    def on_sigterm(signum: int, frame: FrameType | None) -> None:
        _TERMINATED.set()
        handler = signal.getsignal(signal.SIGINT)
        if callable(handler):
            handler(signal.SIGINT, frame)
        else:
            raise KeyboardInterrupt

    _TERMINATED.clear()
    warnings.showwarning = one_line
    in_main_thread = threading.current_thread() is threading.main_thread()
    saved_term = signal.signal(signal.SIGTERM, on_sigterm) if in_main_thread else None
    try:
        yield
    finally:
        warnings.showwarning = saved_show
        if saved_term is not None:
            signal.signal(signal.SIGTERM, saved_term)


def _quiet_broken_pipe() -> None:
    """The reader of stdout went away (``reliability-lab report DIR | head``): send the rest
    of the output, and Python's final flush, to the null device instead of an error."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (captured in a test)
        pass
    finally:
        os.close(devnull)


def _version() -> str:
    from reliability_lab._version import __version__

    return __version__


#: What an interrupted command leaves behind, when that needs saying.
_INTERRUPTED_NOTES = {
    "run": "finished runs are saved — run the same command again to resume",
    "repair": "files are replaced whole, never half-written — run the same command again",
}


def _interrupted(command: str | None) -> int:
    """Report an interruption (Ctrl-C or SIGTERM) in one line; its exit status."""
    how = "terminated (SIGTERM)" if _TERMINATED.is_set() else "interrupted"
    note = _INTERRUPTED_NOTES.get(command or "")
    print(f"reliability-lab: {how}{'; ' + note if note else ''}", file=sys.stderr)
    return EXIT_TERMINATED if _TERMINATED.is_set() else EXIT_INTERRUPTED


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``reliability-lab`` command; returns the exit status."""
    handlers = {
        "run": _cmd_run,
        "report": _cmd_report,
        "compare": _cmd_compare,
        "figures": _cmd_figures,
        "validate": _cmd_validate,
        "repair": _cmd_repair,
        "show": _cmd_show,
        "html": _cmd_html,
        "table": _cmd_table,
        "list": _cmd_list,
        "export": _cmd_export,
    }
    command: str | None = None
    try:  # Ctrl-C while the command's modules load is an interruption too, not a traceback
        args = _parser().parse_args(argv)
        command = args.command
        with _cli_process():
            return handlers[args.command](args)
    except BrokenPipeError:
        _quiet_broken_pipe()
        return EXIT_BROKEN_PIPE
    except ExecutorLostError as exc:  # the run was interrupted from outside, not bad input
        print(f"reliability-lab: interrupted: {exc}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (ConfigError, RunTableError, ExperimentError) as exc:
        print(f"reliability-lab: error: {exc}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except FileNotFoundError as exc:
        print(f"reliability-lab: error: {exc.filename or exc}: file not found", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except OSError as exc:  # unwritable output directory, disk full, ...
        where = f"{exc.filename}: " if exc.filename and str(exc.filename) not in str(exc) else ""
        print(f"reliability-lab: error: {where}{exc}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except KeyboardInterrupt:
        return _interrupted(command)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
