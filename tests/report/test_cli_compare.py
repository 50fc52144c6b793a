"""``reliability-lab compare OLD NEW``: the table, difference gates, agent matching, exit codes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from reliability_lab.cli import main
from reliability_lab.experiment import parse_config
from reliability_lab.runner import run_experiment
from tests.experiment.helpers import sim_config
from tests.test_imports import _probe

pytestmark = pytest.mark.filterwarnings("ignore::reliability_lab.errors.UndefinedMetricWarning")


def _experiment(out: Path, label: str, model: str, **changes: Any) -> Path:
    agent = {"label": label, "model": model}
    config = sim_config(out.name, (agent,), limit=6, seed=1, runs=3, output=str(out))
    run_experiment(parse_config(config | changes), progress=False)
    return out


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare")
    return {
        "old": _experiment(root / "old", "agent", "sim/calibrated"),
        "new": _experiment(root / "new", "agent", "sim/inconsistent"),
        "renamed": _experiment(root / "renamed", "v2", "sim/inconsistent"),
        "unbiased": _experiment(root / "unbiased", "agent", "sim/calibrated", profile="unbiased"),
    }


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["compare", *argv, "--n-boot", "200"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_table_and_passing_gates(dirs: dict[str, Path], capsys: pytest.CaptureFixture) -> None:
    code, out, _ = _run(capsys, str(dirs["old"]), str(dirs["new"]), "--gate", "accuracy >= -1")
    assert code == 0
    assert "agent: 6 common tasks; profile default; 200 paired replicates" in out
    assert "Δ new−old" in out and "p (Holm)" in out and "sign-flip" in out
    family = next(line for line in out.splitlines() if "Holm family" in line)
    assert "accuracy" in family and "R_Pred" not in family
    assert "Gate (Δaccuracy >= -1) [agent]: PASSED" in out
    assert out.rstrip().endswith("✓ PASSED")


def test_a_regression_fails_its_gate(dirs: dict[str, Path], capsys: pytest.CaptureFixture) -> None:
    code, out, _ = _run(
        capsys,
        str(dirs["old"]),
        str(dirs["new"]),
        "--gate",
        "C_traj_s >= -0.01",
        "--gate",
        "R >= 0",
    )
    assert code == 1
    assert "Gate (ΔC_traj_s >= -0.01) [agent]: FAILED — ΔC_traj_s = -0." in out
    assert "ΔR is undefined: R is undefined for 'old' and 'new'" in out
    assert out.rstrip().endswith("✗ FAILED")


def test_agents_paired_by_option_or_as_the_only_ones(
    dirs: dict[str, Path], capsys: pytest.CaptureFixture
) -> None:
    code, out, _ = _run(capsys, str(dirs["old"]), str(dirs["renamed"]), "--quiet")
    assert (code, out.strip()) == (0, "✓ PASSED")  # one agent each: paired
    code, out, _ = _run(capsys, str(dirs["old"]), str(dirs["renamed"]), "--agent", "agent=v2")
    assert code == 0 and "agent→v2: 6 common tasks" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--gate", "R >> 0"], "cannot parse gate 'R >> 0'"),
        (["--gate", "speed >= 0"], "unknown metric 'speed'"),
        (["--gate", "R >= x"], "threshold 'x' is not a number"),
        (["--agent", "ghost"], "'ghost' is not an agent of the old results"),
        (["--profile", "fast"], "--profile: profile='fast' is not valid"),
    ],
)
def test_input_errors_exit_2(
    dirs: dict[str, Path], capsys: pytest.CaptureFixture, extra: list[str], message: str
) -> None:
    code, _, err = _run(capsys, str(dirs["old"]), str(dirs["new"]), *extra)
    assert code == 2 and message in err


def test_different_profiles_need_a_choice(
    dirs: dict[str, Path], capsys: pytest.CaptureFixture
) -> None:
    code, _, err = _run(capsys, str(dirs["old"]), str(dirs["unbiased"]))
    assert code == 2 and "different metric profiles ['default', 'unbiased']" in err
    code, out, _ = _run(capsys, str(dirs["old"]), str(dirs["unbiased"]), "--profile", "unbiased")
    assert code == 0 and "profile unbiased" in out


def test_missing_directory_exits_2(dirs: dict[str, Path], capsys: pytest.CaptureFixture) -> None:
    code, _, err = _run(capsys, str(dirs["old"]), str(dirs["old"].parent / "nowhere"))
    assert code == 2 and "nowhere" in err


def test_compare_does_not_load_litellm(dirs: dict[str, Path]) -> None:
    report = _probe(
        f"""
        from reliability_lab.cli import main
        RESULT["rc"] = main(["compare", {str(dirs["old"])!r}, {str(dirs["new"])!r}, "--quiet"])
        """
    )
    assert report == {"litellm": False, "env": None, "rc": 0}
