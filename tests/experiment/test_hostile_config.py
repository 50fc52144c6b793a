"""Hostile configs are refused quickly, in bounded memory, with exit 2 naming the line (issue 25).

Non-finite numbers, values beyond documented ranges, booleans for numbers, billion-laughs
and recursive YAML aliases, plans too large for the machine, an ``output`` that is a file.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from reliability_lab.cli import main
from reliability_lab.errors import ConfigError
from reliability_lab.experiment._yaml import MAX_DEPTH, MAX_NODES, load_yaml
from reliability_lab.experiment.config import load_config, parse_config
from reliability_lab.experiment.limits import MAX_N_BOOT, MAX_PLANNED_RUNS
from reliability_lab.experiment.plan import plan_size
from tests.experiment.helpers import TINY, config_writer

ROOT = Path(__file__).resolve().parents[2]


def _validate(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    path = tmp_path / "exp.yaml"
    path.write_text(text, encoding="utf-8")
    capsys.readouterr()
    status = main(["validate", str(path)])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return status, captured.err


BASE = "name: x\nagents: [{label: a, model: sim/calibrated}]\n"


@pytest.mark.parametrize(
    ("extra", "where"),
    [
        ("llm: {timeout_s: .inf}\n", "line 3: llm.timeout_s: expected a finite number, got inf"),
        ("llm: {backoff_max_s: .nan}\n", "line 3: llm.backoff_max_s: expected a finite number"),
        ("report: {confidence_level: -.inf}\n", "line 3: report.confidence_level: expected a"),
        ("gates: [{metric: accuracy, value: .nan}]\n", "line 3: gates[0].value: expected a"),
        ("sessions: {signal_weights: {coherence: .inf}}\n", "signal_weights.coherence: expected"),
    ],
)
def test_non_finite_numbers_are_refused_with_their_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: str, where: str
) -> None:
    status, err = _validate(tmp_path, BASE + extra, capsys)
    assert status == 2 and where in err, err


def test_a_non_finite_number_in_free_params_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "name: x\nagents:\n  - label: a\n    model: sim/calibrated\n"
    text += "    params: {temperature: .nan}\n"
    status, err = _validate(tmp_path, text, capsys)
    assert status == 2 and "line 5: agents[0].params.temperature: expected a finite" in err, err


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ("llm: {timeout_s: 1.0e9}\n", "llm.timeout_s"),  # documented: at most a day
        ("llm: {max_retries: 100000}\n", "llm.max_retries"),
        ("max_concurrent: 10000000\n", "max_concurrent"),
        ("seed: 100000000000000000000000\n", "seed"),  # beyond a 64-bit seed
    ],
)
def test_numbers_beyond_their_documented_range_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: str, field: str
) -> None:
    status, err = _validate(tmp_path, BASE + extra, capsys)
    assert status == 2 and f"line 3: {field}: Input should be less than or equal" in err, err


def test_a_conditions_runs_true_is_an_error_not_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = _validate(tmp_path, BASE + "conditions: [{name: baseline, runs: true}]\n", capsys)
    assert status == 2 and "conditions[0].runs: expected an integer, not a boolean" in err, err


def test_a_key_shaped_model_name_is_refused_and_never_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key = "sk-proj-" + "A1b2C3d4" * 4
    text = f'name: x\nagents: [{{label: a, model: "openai/{key}"}}]\n'
    status, err = _validate(tmp_path, text, capsys)
    assert status == 2 and "agents[0].model" in err and "looks like a secret" in err, err
    assert key not in err and key[:16] not in err


def test_output_naming_an_existing_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "taken").write_text("not a directory")
    cfg = config_writer(tmp_path)({**TINY, "output": str(tmp_path / "taken")})
    for argv in (["validate", str(cfg)], ["run", str(cfg)]):
        capsys.readouterr()
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert "output:" in err and "is an existing file, not a directory" in err, err
    assert (tmp_path / "taken").read_text() == "not a directory"


def test_plan_size_is_counted_not_built() -> None:
    cfg = parse_config(
        {
            **TINY,
            "runs": 4,
            "conditions": [
                "baseline",
                {"name": "fault", "variants": ["p=0.1", "p=0.2"], "runs": 2},
            ],
        }
    )
    # 2 agents × 3 tasks × (baseline 4 runs + 2 fault variants × 2 runs)
    assert plan_size(cfg, n_tasks=3) == 2 * 3 * (4 + 2 * 2)


def test_runs_beyond_the_ceiling_are_refused_and_the_ceiling_can_be_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = _validate(tmp_path, BASE + "runs: 1000000000\n", capsys)
    assert status == 2 and f"limits.max_runs = {MAX_PLANNED_RUNS}" in err, err
    # K below the ceiling, but agents × tasks × K above it: refused before anything is built
    many = BASE + f"runs: {MAX_PLANNED_RUNS // 2}\n"
    status, err = _validate(tmp_path, many, capsys)
    assert status == 2 and "plans" in err and "limits.max_runs" in err, err
    status, _ = _validate(
        tmp_path, many + f"limits: {{max_runs: {MAX_PLANNED_RUNS * 100}}}\n", capsys
    )
    assert status == 0


def test_n_boot_beyond_the_ceiling_is_refused_unless_raised(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = _validate(tmp_path, BASE + f"report: {{n_boot: {MAX_N_BOOT + 1}}}\n", capsys)
    assert status == 2 and "limits.max_n_boot" in err, err
    raised = f"report: {{n_boot: {MAX_N_BOOT + 1}}}\nlimits: {{max_n_boot: {MAX_N_BOOT * 2}}}\n"
    assert _validate(tmp_path, BASE + raised, capsys)[0] == 0
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["report", str(tmp_path), "--n-boot", str(MAX_N_BOOT + 1)])
    assert "at most" in capsys.readouterr().err


def _laughs(levels: int) -> str:
    lines = ["name: x", 'l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_billion_laughs_is_refused_naming_the_line() -> None:
    # 9 ** 6 = 531441 nodes: level l5, on line 7, is the first past the bound
    assert 9**5 < MAX_NODES < 9**6
    with pytest.raises(ConfigError, match=rf"^exp.yaml: line 7: aliases expand .* {MAX_NODES}"):
        load_yaml(_laughs(10), source="exp.yaml")


def test_recursive_and_too_deep_yaml_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^exp\.yaml: line 2: recursive alias"):
        load_yaml("name: x\nagents: &x [*x]\n", source="exp.yaml")
    with pytest.raises(ConfigError, match=f"nested deeper than {MAX_DEPTH}"):
        load_yaml("x: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5), source="exp.yaml")
    with pytest.raises(ConfigError, match=r"exp\.yaml: nested too deeply to read"):
        load_yaml("x: " + "[" * 20_000 + "]" * 20_000, source="exp.yaml")
    big = tmp_path / "big.yaml"
    big.write_text("# " + "x" * 2_000_000 + "\n")
    with pytest.raises(ConfigError, match="larger than"):
        load_config(big)


_BOUNDED = """
import resource, sys, tracemalloc
resource.setrlimit(resource.RLIMIT_CPU, (60, 60))  # a regression is killed, never hangs CI
from reliability_lab.errors import ConfigError
from reliability_lab.experiment.config import load_config
tracemalloc.start()
try:
    load_config(sys.argv[1])
except ConfigError as exc:
    print("refused:", exc)
print("peak", tracemalloc.get_traced_memory()[1])
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "text",
    [
        _laughs(10),  # 9 ** 10 nodes expanded: gigabytes before the bound existed
        "name: x\nagents: &x [*x]\n",
        "name: x\nruns: 1000000000\nagents: [{label: a, model: sim/calibrated}]\n",
    ],
    ids=["billion-laughs", "recursive-alias", "runs-1e9"],
)
def test_hostile_configs_are_refused_in_a_few_megabytes(tmp_path: Path, text: str) -> None:
    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", _BOUNDED, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr  # not killed by the CPU limit
    out = proc.stdout.splitlines()
    assert out[0].startswith("refused: "), proc.stdout
    peak = int(out[-1].split()[1])
    assert peak < 4_000_000, f"peak {peak} bytes"


def test_validate_interrupted_says_nothing_about_saved_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import reliability_lab.experiment.plan as plan

    def interrupt(*_: Any, **__: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(plan, "check_plan", interrupt)
    cfg = config_writer(tmp_path)(TINY)
    capsys.readouterr()
    assert main(["validate", str(cfg)]) == 130
    err = capsys.readouterr().err
    assert err == "reliability-lab: interrupted\n", err


def test_ctrl_c_while_the_command_loads_is_no_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import reliability_lab.cli as cli

    def interrupt() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_parser", interrupt)
    assert main(["run", "x.yaml"]) == 130
    assert capsys.readouterr().err == "reliability-lab: interrupted\n"


def test_the_readme_documents_limits_and_ranges() -> None:
    readme = (ROOT / "experiments" / "README.md").read_text(encoding="utf-8")
    for text in ("limits:", "max_runs", "max_n_boot", str(MAX_PLANNED_RUNS), "finite"):
        assert text in readme, text
    assert json.dumps(MAX_NODES) in (ROOT / "experiments" / "README.md").read_text()
