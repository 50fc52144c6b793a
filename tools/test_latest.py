"""``make test-latest``: the test suite on the newest versions pyproject.toml allows.

``make test`` installs the committed lock (requirements/lock.txt), so a new release of a
dependency cannot turn a fresh clone red. This script shows what that release *would* do,
before it bites: it installs the project with every extra afresh into ``.venv-latest`` (pip
picks the newest version each range admits), runs the same pytest steps as ``make unit``, and
writes the outcome, with every direct dependency's version beside the lock's, to
docs/test-latest.md.

Not part of ``make test`` and never blocking: a failure here is a reason to fix the code (or the
tests' assumptions) before widening a range in pyproject.toml and running ``make lock``.

Usage: ``python tools/test_latest.py [--keep]`` (``--keep`` reuses an existing .venv-latest).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv-latest"
REPORT = ROOT / "docs" / "test-latest.md"
LOCK = ROOT / "requirements" / "lock.txt"
#: The pytest steps of ``make unit`` (kept in step with the Makefile by tests/test_packaging.py).
STEPS = (
    [
        "-n",
        "2",
        "--dist",
        "loadgroup",
        "-m",
        "not ray",
        "--durations=15",
        "tests",
        "reliability_lab",
    ],
    ["-p", "no:xdist", "-m", "ray", "--durations=3", "tests"],
)
_SUMMARY = re.compile(r"^=+ (.*(passed|failed|error|skipped|no tests ran).*) =+$")


def _name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    if match is None:
        raise ValueError(f"cannot parse requirement {requirement!r}")
    return re.sub(r"[-_.]+", "-", match.group(1)).lower()


def direct_requirements() -> dict[str, str]:
    """Name → specifier of every dependency pyproject.toml declares (runtime and extras)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    entries = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        entries.extend(extra)
    return {_name(e): e for e in entries}


def _extras() -> str:
    """Every extra pyproject.toml declares, comma-separated (what the lock covers)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return ",".join(project.get("optional-dependencies", {}))


def locked_versions() -> dict[str, str]:
    """Name → version pinned in requirements/lock.txt."""
    pins = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", LOCK.read_text("utf-8"), re.M)
    return {_name(name): version for name, version in pins}


def installed_versions(python: Path) -> dict[str, str]:
    out = subprocess.run(
        [str(python), "-m", "pip", "list", "--format", "json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {_name(item["name"]): item["version"] for item in json.loads(out)}


def _install(keep: bool) -> Path:
    python = VENV / "bin" / "python"
    if not (keep and python.exists()):
        shutil.rmtree(VENV, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--upgrade", "-e", f".[{_extras()}]"],
        check=True,
        cwd=ROOT,
    )
    return python


def _run_step(python: Path, args: list[str]) -> tuple[int, str]:
    env = {
        **os.environ,
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
        "PYTHONHASHSEED": "0",
        "MPLBACKEND": "Agg",
    }
    done = subprocess.run(
        [str(python), "-m", "pytest", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    sys.stdout.write(done.stdout[-3000:])
    lines = [m.group(1) for m in map(_SUMMARY.match, done.stdout.splitlines()) if m]
    failed = [ln for ln in done.stdout.splitlines() if ln.startswith(("FAILED ", "ERROR "))]
    summary = lines[-1] if lines else f"no pytest summary (exit status {done.returncode})"
    return done.returncode, "\n".join([summary, *failed[:30]])


def write_report(
    results: list[tuple[list[str], int, str]], versions: dict[str, str], wall: float
) -> None:
    locked = locked_versions()
    ok = all(status == 0 for _, status, _ in results)
    lines = [
        "# make test-latest: the suite on the newest allowed versions",
        "",
        f"Last run: {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC, {wall / 60:.0f} min, "
        f"**{'passed' if ok else 'FAILED'}** "
        "(written by `make test-latest`, tools/test_latest.py).",
        "",
        f"`make test` installs requirements/lock.txt; this run installed `.[{_extras()}]` "
        "afresh with the newest release each range in pyproject.toml admits. Widen a range "
        "only after a passing run here, then `make lock`.",
        "",
        "| pytest step | exit status | result |",
        "|---|---|---|",
    ]
    for args, status, summary in results:
        first, *rest = summary.splitlines()
        lines.append(f"| `pytest {' '.join(args)}` | {status} | {first} |")
        lines.extend(f"| | | {line} |" for line in rest)
    lines += [
        "",
        "## Versions (direct dependencies)",
        "",
        "| package | range in pyproject.toml | newest allowed (this run) | lock |",
        "|---|---|---|---|",
    ]
    for name, requirement in sorted(direct_requirements().items()):
        latest, pinned = versions.get(name, "—"), locked.get(name, "—")
        mark = " ⬆" if latest != pinned else ""
        spec = requirement[len(name) :].strip() or "any"
        lines.append(f"| {name} | `{spec}` | {latest}{mark} | {pinned} |")
    lines.append("")
    REPORT.write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="reuse an existing .venv-latest")
    args = parser.parse_args(argv)
    start = time.monotonic()
    python = _install(args.keep)
    results = [(list(step), *_run_step(python, list(step))) for step in STEPS]
    write_report(results, installed_versions(python), time.monotonic() - start)
    print(f"wrote {REPORT.relative_to(ROOT)}")
    return 0 if all(status == 0 for _, status, _ in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
