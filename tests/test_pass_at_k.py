"""``pass_at_k:``: a task judged over its repeats, as AI Eval judges a case over its trials."""

from __future__ import annotations

import json

import pytest

from bench.scoring.pass_at_k import pass_at_k

FLAKY = """\
seen = {}


def answer(task):
    n = seen.get(task.prompt, 0)
    seen[task.prompt] = n + 1
    if task.prompt == "often":
        return "yes" if n < 2 else "no"
    if task.prompt == "rarely":
        return "yes" if n == 0 else "no"
    return "no"
"""

SUITE = """\
repeat: 3
pass_at_k: 0.9
concurrency: 1
target: {type: python, function: "flaky:answer"}
tasks:
  - {id: often, prompt: often, evaluate: {expected: "yes"}}
  - {id: rarely, prompt: rarely, evaluate: {expected: "yes"}}
  - {id: never, prompt: never, evaluate: {expected: "yes"}, pass_at_k: 0}
"""


@pytest.mark.parametrize(
    ("passed", "runs", "value"),
    [(0, 3, 0.0), (3, 3, 1.0), (1, 3, 1 - (2 / 3) ** 3), (2, 3, 1 - (1 / 3) ** 3), (1, 1, 1.0), (0, 0, 0.0)],
)
def test_pass_at_k_is_one_minus_the_chance_that_k_draws_all_fail(passed, runs, value):
    assert pass_at_k(passed, runs) == pytest.approx(value)


def test_each_task_passes_or_fails_by_pass_at_k_over_its_runs(bench_cli, bench_suite_file, tmp_path):
    (tmp_path / "flaky.py").write_text(FLAKY)
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "-o", "out.json")
    # often: p = 2/3, k = 3: 1 - (1/3)^3 = 0.963 >= 0.9 passes; rarely: p = 1/3: 1 - (2/3)^3 = 0.704
    # < 0.9 fails; never: p = 0 gives 0, which reaches its own threshold 0.
    assert result.exit_code == 1, result.stderr
    assert "judged over their repeats by pass@k: 2 tasks passed, 1 failed (rarely 0.704)" in result.stdout
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["passed"] is False
    assert report["summary"]["failed"] == 6  # each run keeps its own verdict
    judged = report["pass_at_k"]
    assert {
        task: (row["passed_runs"], row["pass_at_k"], row["passed"]) for task, row in judged["tasks"].items()
    } == {
        "never": (0, 0.0, True),
        "often": (2, round(1 - (1 / 3) ** 3, 6), True),
        "rarely": (1, round(1 - (2 / 3) ** 3, 6), False),
    }
    assert (judged["passed"], judged["failed"], judged["failed_runs"]) == (2, 1, 6)


def test_failed_runs_of_a_task_that_passes_by_pass_at_k_do_not_fail_the_run(
    bench_cli, bench_suite_file, tmp_path
):
    # its own module name: the first test's module, state and all, stays imported in this process
    (tmp_path / "flaky_again.py").write_text(FLAKY)
    body = SUITE.replace('  - {id: rarely, prompt: rarely, evaluate: {expected: "yes"}}\n', "")
    body = body.replace("flaky:answer", "flaky_again:answer")
    result = bench_cli("run", bench_suite_file(body), "-q", "-o", "out.json")
    assert result.exit_code == 0, result.stdout
    assert json.loads((tmp_path / "out.json").read_text())["passed"] is True


def test_a_threshold_outside_zero_to_one_is_refused(bench_cli, bench_suite_file):
    result = bench_cli(
        "validate",
        bench_suite_file("pass_at_k: 1.5\ntasks: [{id: a, response: x, evaluate: {expected: x}}]\n"),
    )
    assert result.exit_code == 2
    assert "pass_at_k: Input should be less than or equal to 1" in result.stderr
