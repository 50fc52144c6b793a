"""Command line: ``reliability-lab run | report | validate | figures`` (docs/results.md).

Exit status: 0 when every gate passes, 1 when a gate fails, 2 on a usage or input error
(invalid config, unreadable results, missing file — the message goes to stderr, no traceback).
``--quiet`` prints only ``✓ PASSED`` or ``✗ FAILED``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from reliability_lab.errors import ConfigError, RunTableError

__all__ = ["main"]

EXIT_PASSED, EXIT_FAILED, EXIT_INPUT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
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
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = sub.add_parser("run", help="run (or resume) an experiment config")
    run.add_argument("config", metavar="CONFIG", help="experiment YAML file")
    run.add_argument("--output", metavar="DIR", help="results directory (default from config)")
    run.add_argument("--quiet", action="store_true", help="print only ✓ PASSED / ✗ FAILED")
    run.add_argument("--max-concurrent", type=_positive_int, metavar="N", help="runs at once")
    run.add_argument("--runs", type=_positive_int, metavar="K", help="repetitions per task")
    run.add_argument("--seed", type=_seed, metavar="S", help="master seed")
    _add_report_parser(sub)
    validate = sub.add_parser("validate", help="check an experiment config without running it")
    validate.add_argument("config", metavar="CONFIG", help="experiment YAML file")
    _add_figures_parser(sub)
    return parser


def _cmd_run(args: argparse.Namespace) -> int:
    from reliability_lab.experiment.console import format_summary, verdict
    from reliability_lab.experiment.runner import run_experiment

    outcome = run_experiment(
        args.config,
        output=args.output,
        runs=args.runs,
        seed=args.seed,
        max_concurrent=args.max_concurrent,
        progress=not args.quiet,
    )
    if args.quiet:
        print(verdict(outcome.summary))
    else:
        if outcome.n_previous:
            print(
                f"Resumed: {outcome.n_previous} of {outcome.n_planned} runs were already "
                f"done; executed {outcome.n_executed}.",
            )
        print(format_summary(outcome.summary))
        print(f"\nResults written to {outcome.output_dir}")
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
        "--gate", action="append", metavar="GATE", help='e.g. "R >= 0.7" (repeatable)'
    )
    report.add_argument("--profile", metavar="NAME", help="metric profile (default: default)")
    report.add_argument("--n-boot", type=_positive_int, metavar="B", help="bootstrap replicates")
    report.add_argument("--seed", type=_seed, metavar="S", help="bootstrap seed")
    report.add_argument("--output", metavar="DIR", help="write a results directory there")
    report.add_argument("--quiet", action="store_true", help="print only ✓ PASSED / ✗ FAILED")


_IMPORT_OPTIONS = ("agent", "scorer", "gate", "profile", "n_boot", "seed", "output")


def _cmd_report(args: argparse.Namespace) -> int:
    from reliability_lab.experiment.console import format_summary, verdict
    from reliability_lab.experiment.imported import import_config
    from reliability_lab.experiment.summary import summarize_directory, summarize_imported
    from reliability_lab.io import detect_format, load_runs

    fmt = args.format or detect_format(args.path)
    if fmt == "results":
        given = [f"--{o.replace('_', '-')}" for o in _IMPORT_OPTIONS if getattr(args, o)]
        if given:
            raise ConfigError(
                f"{args.path}: {', '.join(given)} apply to imported logs; a results "
                "directory takes its settings and gates from its config"
            )
        summary = summarize_directory(args.path)
    else:
        if args.scorer and fmt != "inspect":
            raise ConfigError(f"--scorer applies to inspect logs, not to {fmt!r}")
        options = {"scorer": args.scorer} if args.scorer else {}
        runs = load_runs(args.path, format=fmt, agent=args.agent, **options)
        report = {"n_boot": args.n_boot} if args.n_boot else None
        config = import_config(
            runs,
            format=fmt,
            path=args.path,
            gates=args.gate,
            profile=args.profile,
            seed=args.seed,
            report=report,
        )
        summary = summarize_imported(runs, config, output=args.output)
    print(verdict(summary) if args.quiet else format_summary(summary))
    return EXIT_PASSED if summary.passed else EXIT_FAILED


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


def _cmd_figures(args: argparse.Namespace) -> int:
    from pathlib import Path

    from reliability_lab.plots.figure_set import save_all

    results = Path(args.results)
    if not results.is_dir():
        raise ConfigError(f"{results}: not a results directory")
    saved = save_all(results, Path(args.output) if args.output else results / "figures")
    for name, files in saved.written.items():
        print(f"  {name}: {', '.join(f.suffix.lstrip('.') for f in files)}")
    for name, reason in saved.skipped.items():
        print(f"  {name}: skipped ({reason})")
    print(f"{len(saved.written)} figures written to {saved.directory}")
    return EXIT_PASSED


def _cmd_validate(args: argparse.Namespace) -> int:
    from reliability_lab.experiment.config import load_config
    from reliability_lab.experiment.plan import build_plan, resolve_tasks
    from reliability_lab.runs import is_simulated_model

    config = load_config(args.config)
    tasks = resolve_tasks(config, source=args.config)
    plan = build_plan(config, tasks, source=args.config)
    n_variants = sum(len(c.resolved_variants()) for c in config.conditions)
    per_task = sum(len(c.resolved_variants()) * config.condition_runs(c) for c in config.conditions)
    shape = (
        f"{n_variants} condition variant(s) × K={config.runs}"
        if per_task == n_variants * config.runs
        else f"{per_task} runs per agent and task ({n_variants} condition variant(s), "
        f"K={config.runs}, conditions' own runs)"
    )
    print(
        f"OK: {args.config}: {len(config.agents)} agents × {len(tasks)} tasks × {shape} "
        f"= {len(plan)} runs "
        f"→ {config.output_dir()}"
    )
    sim = [a.label for a in config.agents if is_simulated_model(a.model)]
    if sim:
        print(f"note: simulated model (sim/...) used by: {', '.join(sim)}")
    return EXIT_PASSED


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``reliability-lab`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    from reliability_lab.experiment.runner import ExperimentError

    handlers = {
        "run": _cmd_run,
        "report": _cmd_report,
        "validate": _cmd_validate,
        "figures": _cmd_figures,
    }
    try:
        return handlers[args.command](args)
    except (ConfigError, RunTableError, ExperimentError) as exc:
        print(f"reliability-lab: error: {exc}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except FileNotFoundError as exc:
        print(f"reliability-lab: error: {exc.filename or exc}: file not found", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except OSError as exc:  # unwritable output directory, disk full, ...
        print(f"reliability-lab: error: {exc}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    except KeyboardInterrupt:
        print(
            "reliability-lab: interrupted; finished runs are saved — run the same command "
            "again to resume",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
