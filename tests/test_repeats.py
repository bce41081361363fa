"""repeat: K — runs, keys in the store, statistics, the cache, resume."""

from __future__ import annotations

import json

import pytest

from bench.scoring.run_stats import run_statistics

FLAKY_TARGET = """
import itertools
_calls = {}
def answer(task):
    n = _calls[task.id] = _calls.get(task.id, -1) + 1
    if task.id == "flaky":
        return "yes" if n % 2 == 0 else "no"   # passes runs 0 and 2 of 3
    return "yes" if task.id == "good" else "no"
"""


@pytest.fixture
def flaky_suite(tmp_path):
    (tmp_path / "target.py").write_text(FLAKY_TARGET)
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: rep\ntarget: {type: python, function: 'target:answer'}\nconcurrency: 1\nrepeat: 3\n"
        "tasks:\n"
        "  - {id: good, prompt: q, evaluate: {expected: 'yes'}}\n"
        "  - {id: flaky, prompt: q, evaluate: {expected: 'yes'}}\n"
        "  - {id: bad, prompt: q, evaluate: {expected: 'yes'}}\n"
    )
    return path


def test_each_task_runs_k_times_and_the_statistics_are_right(bench_cli, flaky_suite, tmp_path):
    result = bench_cli("run", flaky_suite, "-o", "out.json")
    assert result.exit_code == 1
    report = json.loads((tmp_path / "out.json").read_text())
    assert [(t["id"], t["repeat"]) for t in report["tasks"]][:4] == [
        ("good", 0),
        ("good", 1),
        ("good", 2),
        ("flaky", 0),
    ]
    stats = report["statistics"]
    assert (stats["tasks"], stats["repeats"]) == (3, 3)
    assert stats["flaky"] == ["flaky"]
    assert stats["per_task"]["flaky"] == {"runs": 3, "passed": 2}
    # pass@k averaged over tasks, by hand: good 1, bad 0, flaky (n=3, c=2) 2/3, 1, 1
    assert stats["pass_at_k"] == {
        "1": pytest.approx((1 + 2 / 3) / 3),
        "2": pytest.approx(2 / 3),
        "3": pytest.approx(2 / 3),
    }
    # pass^k: flaky C(2,k)/C(3,k): 2/3, 1/3, 0
    assert stats["pass_hat_k"] == {
        "1": pytest.approx((1 + 2 / 3) / 3),
        "2": pytest.approx((1 + 1 / 3) / 3),
        "3": pytest.approx(1 / 3),
    }
    assert stats["pass_rate"]["method"] == "cluster bootstrap over tasks"
    assert "flaky tasks (1): flaky" in result.stdout
    lines = (next((tmp_path / ".bench" / "runs").iterdir()) / "results.jsonl").read_text().splitlines()
    assert len(lines) == 9


def test_command_line_repeat_overrides_the_suite(bench_cli, flaky_suite, tmp_path):
    bench_cli("run", flaky_suite, "--repeat", "2", "-o", "out.json")
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["statistics"]["repeats"] == 2
    assert report["summary"]["total"] == 6


def test_resume_keeps_every_finished_repeat(bench_cli, flaky_suite, tmp_path):
    bench_cli("run", flaky_suite, "-o", "first.json")
    run_id = json.loads((tmp_path / "first.json").read_text())["run_id"]
    again = bench_cli("run", flaky_suite, "--resume", run_id)
    assert "9 kept, 0 to run" in again.stderr


def test_g08_repeats_are_distinct_model_calls_then_cached(bench_cli, bench_fake_llm, tmp_path):
    (tmp_path / "suite.yaml").write_text(
        "name: llm\ntarget: {type: litellm, model: openai/fake}\nrepeat: 5\n"
        "tasks:\n  - {id: a, prompt: 'Say yes', evaluate: {expected: 'yes'}}\n"
    )
    bench_fake_llm.default = lambda body: __import__("bench.testing.server", fromlist=["Reply"]).Reply("yes")
    assert bench_cli("run", tmp_path / "suite.yaml").exit_code == 0
    assert bench_fake_llm.count() == 5
    assert bench_cli("run", tmp_path / "suite.yaml").exit_code == 0
    assert bench_fake_llm.count() == 5  # all five answers came from the cache


def judged(task: str, repeat: int, samples: list[float]) -> dict:
    return {
        "id": task,
        "repeat": repeat,
        "status": "passed",
        "passed": True,
        "score": sum(samples) / len(samples),
        "evaluators": [{"name": "judge", "details": {"verdicts": [{"score": s} for s in samples]}}],
    }


def test_variance_is_split_between_the_system_and_the_judge():
    # One task, two runs, two judge samples each. Judge variance: samples (0.4, 0.6) and (0.8, 1.0)
    # each have variance 0.02. Per-run means 0.5 and 0.9 have variance 0.08; less 0.02 / 2 samples:
    # the system's share is 0.07.
    stats = run_statistics([judged("t", 0, [0.4, 0.6]), judged("t", 1, [0.8, 1.0])])
    assert stats is not None
    variance = stats["variance"]
    assert variance["judge"] == pytest.approx(0.02)
    assert variance["system"] == pytest.approx(0.07)
    assert variance["system_share"] == pytest.approx(0.07 / 0.09, abs=1e-4)
    assert variance["hint"] == "most variation comes from the system under test"
    noisy_judge = run_statistics([judged("t", 0, [0.0, 1.0]), judged("t", 1, [0.0, 1.0])])
    assert noisy_judge is not None
    assert noisy_judge["variance"]["hint"].startswith("most variation comes from the judge")


def test_single_runs_use_the_wilson_interval():
    results = [
        {"id": f"t{i}", "status": "passed" if i < 81 else "failed", "passed": i < 81} for i in range(263)
    ]
    stats = run_statistics(results)
    assert stats is not None
    assert stats["pass_rate"]["method"] == "wilson"
    assert stats["pass_rate"]["low"] == pytest.approx(0.2553, abs=5e-5)  # Newcombe (1998)
    assert "pass_at_k" not in stats


def test_junit_names_each_run(bench_cli, flaky_suite, tmp_path):
    import xml.etree.ElementTree as ET

    bench_cli("run", flaky_suite, "--junit", "junit.xml")
    names = [case.get("name") for case in ET.parse(tmp_path / "junit.xml").getroot().iter("testcase")]
    assert names[:3] == ["good", "good (run 2)", "good (run 3)"]
    assert len(names) == len(set(names)) == 9


def test_validate_counts_apart_repeated_tasks_whose_ids_hold_an_at_sign(bench_cli, tmp_path):
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: at\nrepeat: 2\ntasks:\n"
        "  - {id: support@acme.com, response: 'yes', evaluate: {expected: 'yes'}}\n"
        "  - {id: support@globex.com, response: 'yes', evaluate: {expected: 'yes'}}\n"
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0] == (
        "suite 'at' is valid: 2 tasks, 4 runs (repeat up to 2), target: recorded"
    )
