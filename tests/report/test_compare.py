"""compare_agents: values, paired intervals, tests and Holm, against independent computations."""

from __future__ import annotations

import itertools
import math
import statistics
import warnings

import numpy as np
import pandas as pd
import pytest

from reliability_lab import compare_agents, reliability_report
from reliability_lab.errors import RunTableError
from reliability_lab.report.compare import holm
from reliability_lab.simulate import SimulatedAgent, simulate_runs

pytestmark = pytest.mark.filterwarnings("ignore::reliability_lab.errors.UndefinedMetricWarning")


def _two_agents(n_tasks: int = 10, seed: int = 0) -> pd.DataFrame:
    return simulate_runs(
        [SimulatedAgent(name="old"), SimulatedAgent(name="new", success_a=0.3, success_b=0.3)],
        n_tasks=n_tasks,
        runs=4,
        seed=seed,
    )


def test_values_are_the_reports_of_each_agent_on_the_common_tasks() -> None:
    runs = _two_agents()
    runs = runs[~((runs["agent"] == "new") & (runs["task_id"] == "task-0"))]  # new lacks task-0
    table = compare_agents(runs, "old", "new", n_boot=50)
    common = runs[runs["task_id"] != "task-0"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = reliability_report(common, n_boot=0)
    for metric, row in table.iterrows():
        assert row["baseline"] == pytest.approx(report.loc["old", metric], abs=1e-12)
        assert row["candidate"] == pytest.approx(report.loc["new", metric], abs=1e-12)
        assert row["difference"] == pytest.approx(row["candidate"] - row["baseline"], abs=1e-12)
    assert table.attrs["n_common_tasks"] == 9
    assert (table.attrs["n_tasks_only_baseline"], table.attrs["n_tasks_only_candidate"]) == (1, 0)
    assert table.attrs["adjustment"] == "holm"


def test_sign_flip_p_value_is_the_exact_enumeration() -> None:
    runs = _two_agents(n_tasks=8, seed=1)
    table = compare_agents(runs, "old", "new", metrics=["C_out"], n_boot=50)
    per_task = {}
    for agent in ("old", "new"):
        own = runs[runs["agent"] == agent]
        per_task[agent] = own.groupby("task_id")["success"].mean().map(lambda p: (2 * p - 1) ** 2)
    d = (per_task["new"] - per_task["old"]).to_numpy()
    observed = abs(d.mean())
    flips = [abs(np.mean(np.array(s) * d)) for s in itertools.product([-1, 1], repeat=len(d))]
    expected = np.mean([f >= observed - 1e-12 for f in flips])
    assert table.loc["C_out", "test"] == "sign-flip"
    assert table.loc["C_out", "p_value"] == pytest.approx(expected, abs=1e-12)
    assert table.loc["C_out", "n_tasks"] == 8


def test_pooled_metrics_use_the_exact_task_swap_test() -> None:
    # Independent computation: swap the agents' runs on each subset of the 7 tasks and
    # re-pool accuracy; the p-value is the share of subsets reaching the observed |Δ|.
    runs = _two_agents(n_tasks=7, seed=3)
    table = compare_agents(runs, "old", "new", metrics=["accuracy", "C_out"], n_boot=50)
    succ = {a: runs[runs["agent"] == a].groupby("task_id")["success"] for a in ("old", "new")}
    sums = {
        a: (g.sum().to_numpy(dtype=float), g.count().to_numpy(dtype=float)) for a, g in succ.items()
    }
    observed = abs(
        sums["new"][0].sum() / sums["new"][1].sum() - sums["old"][0].sum() / sums["old"][1].sum()
    )
    stats = []
    for s in itertools.product([0, 1], repeat=7):
        s = np.array(s, dtype=bool)
        new = [np.where(s, sums["old"][i], sums["new"][i]).sum() for i in (0, 1)]
        old = [np.where(s, sums["new"][i], sums["old"][i]).sum() for i in (0, 1)]
        stats.append(abs(new[0] / new[1] - old[0] / old[1]))
    expected = np.mean(np.array(stats) >= observed - 1e-12)
    row = table.loc["accuracy"]
    assert row["test"] == "sign-flip"
    assert row["p_value"] == pytest.approx(expected, abs=1e-12)
    assert row["p_min"] == pytest.approx(2 / 2**7)
    assert table.attrs["exact_test"] is True


def test_a_clear_difference_is_significant() -> None:
    good = SimulatedAgent(name="old", success_a=4, success_b=1)
    bad = SimulatedAgent(name="new", success_a=1, success_b=4)
    runs = simulate_runs([good, bad], n_tasks=40, runs=3, seed=2)
    table = compare_agents(runs, "old", "new", metrics=["accuracy", "C_out"], n_boot=400, seed=1)
    row = table.loc["accuracy"]
    assert row["difference_lo"] <= row["difference"] <= row["difference_hi"] < 0
    assert row["p_value"] == pytest.approx(1 / 401, abs=1e-12)  # no random pattern reaches it
    assert row["p_min"] == pytest.approx(1 / 401)


@pytest.mark.parametrize("n_tasks", [1, 3, 5])
def test_too_few_tasks_to_reject_warns_and_one_task_has_no_interval(n_tasks: int) -> None:
    good = SimulatedAgent(name="old", success_a=9, success_b=1)
    bad = SimulatedAgent(name="new", success_a=1, success_b=9)
    runs = simulate_runs([good, bad], n_tasks=n_tasks, runs=5, seed=4)
    with pytest.warns(UserWarning, match="no test can reject"):
        table = compare_agents(runs, "old", "new", n_boot=200)
    assert (table["p_value"] >= 2.0 ** (1 - n_tasks) - 1e-12).all()
    assert (table["p_adjusted"] >= 0.05).all()  # the p = 0.004 at one task is gone
    if n_tasks == 1:
        assert table[["difference_lo", "difference_hi"]].isna().all().all()
    assert "no test can reject" in table.attrs["warning"]


def test_default_family_drops_duplicates_and_constants() -> None:
    table = compare_agents(_two_agents(n_tasks=20), "old", "new", n_boot=100)
    assert "R_Pred" not in table.index and "P_brier" in table.index
    assert table.attrs["left_out"]["R_Pred"] == "identical to P_brier on these runs"
    for m in ("S_comp", "S_harm", "R_saf"):  # no safety data: every score is 1
        assert m not in table.index
        assert table.attrs["left_out"][m].startswith("constant 1")
    assert table.attrs["family"] == list(table.index)


def test_identical_agents_show_no_difference() -> None:
    runs = _two_agents()
    old = runs[runs["agent"] == "old"]
    twin = pd.concat([old, old.assign(agent="twin")], ignore_index=True)
    table = compare_agents(twin, "old", "twin", n_boot=100)
    assert (table["difference"] == 0).all()
    assert (table["difference_lo"] == 0).all() and (table["difference_hi"] == 0).all()
    assert (table["p_value"] == 1).all() and (table["p_adjusted"] == 1).all()


def test_holm_by_hand() -> None:
    p = [0.01, 0.04, 0.03, 0.005]
    # sorted 0.005, 0.01, 0.03, 0.04 → ×4, ×3, ×2, ×1 = 0.02, 0.03, 0.06, 0.04 → monotone 0.06
    assert holm(p).tolist() == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert math.isnan(holm([math.nan, 0.2])[0])


def test_default_metrics_leave_out_undefined_ones_and_say_why() -> None:
    table = compare_agents(_two_agents(), "old", "new", n_boot=20)
    assert "R" not in table.index and "R_fault" not in table.index
    assert table.attrs["left_out"]["R"] == "undefined for 'old' and 'new'"
    assert statistics.mean(table["n_tasks"]) > 0


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"baseline": "nobody"},
            RunTableError,
            r"baseline='nobody' is not an agent.*\['new', 'old'\]",
        ),
        ({"candidate": "old"}, ValueError, "same agent"),
        ({"metrics": ["C_outt"]}, ValueError, "unknown metric 'C_outt'"),
        ({"n_boot": 0}, ValueError, "n_boot must be >= 1"),
        ({"profile": "fast"}, ValueError, "profile='fast' is not valid"),
    ],
)
def test_bad_arguments_are_named(kwargs: dict, error: type, message: str) -> None:
    arguments = {"baseline": "old", "candidate": "new", **kwargs}
    with pytest.raises(error, match=message):
        compare_agents(_two_agents(), **arguments)


def test_no_common_task_is_an_error() -> None:
    runs = _two_agents()
    runs.loc[runs["agent"] == "new", "task_id"] = runs["task_id"] + "-new"
    with pytest.raises(RunTableError, match="share no task"):
        compare_agents(runs, "old", "new")
