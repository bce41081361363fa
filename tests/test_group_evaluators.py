"""Evaluators that re-decide a group's rows together (``groups``, ``evaluate_group``).

A group is a task's runs on each of the suite's prompts and targets (or tasks sharing ``group:``).
The run's driver decides each finished group from the stored rows after the tasks, so kept rows
of a ``--resume`` count, a row keeps its own verdict beside the group's, and an unchanged row is
not written again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample
from bench.hookspecs import hookimpl
from bench.pipeline.options import RunOptions
from bench.pipeline.run import run_plan
from bench.plugins.registry import build_registry
from bench.suite.loader import load_suite


class Longest(Evaluator[EvaluatorConfig]):
    """Each row passes alone; in its group only the longest response passes."""

    name = "longest"
    groups = True

    def evaluate(self, sample: Sample) -> Result:
        return Result(passed=True, score=1.0, reason="alone", details={"chars": len(sample.output)})

    def evaluate_group(self, rows: list[tuple[Sample, Result | None]]) -> list[Result | None]:
        longest = max(len(sample.output) for sample, _ in rows if not sample.is_error)
        return [
            None
            if verdict is None
            else Result(len(sample.output) == longest, None, f"{len(sample.output)} of {longest} chars")
            for sample, verdict in rows
        ]


class Refuses(Longest):
    name = "refuses_groups"

    def evaluate_group(self, rows: list[tuple[Sample, Result | None]]) -> list[Result | None]:
        raise EvaluatorError("no grader for this group")


class Hangs(Longest):
    name = "hangs_on_groups"

    def evaluate_group(self, rows: list[tuple[Sample, Result | None]]) -> list[Result | None]:
        while True:
            pass


class Miscounts(Longest):
    name = "miscounts_groups"

    def evaluate_group(self, rows: list[tuple[Sample, Result | None]]) -> list[Result | None]:
        return [Result(True)]


class _Plugin:
    @hookimpl
    def bench_register_evaluators(self, register):  # type: ignore[no-untyped-def]
        for kind in (Longest, Refuses, Hangs, Miscounts):
            register(kind)


SUITE = """
target: {type: echo}
prompts:
  - {label: short, template: "{prompt}"}
  - {label: long, template: "Please answer: {prompt}"}
tasks:
  - {id: a, prompt: hi, evaluate: {type: longest}}
  - {id: b, prompt: bye, evaluate: [{type: longest}, {expected: nothing}]}
"""


def _run(path: Path, runs: Path, resume: str | None = None, **options: Any) -> Any:
    registry = build_registry([("bench-test-groups", "groups", _Plugin())])
    settings = RunOptions(runs_dir=runs, handle_signals=False, resume=resume, **options)
    return run_plan(load_suite(path, registry), settings)


def _statuses(outcome: Any) -> dict[str, str]:
    return {task["id"]: task["status"] for task in outcome.report.tasks()}


def test_a_tasks_runs_on_each_prompt_are_decided_together(bench_suite_file, tmp_path):
    outcome = _run(bench_suite_file(SUITE), tmp_path / "runs")
    tasks = {task["id"]: task for task in outcome.report.tasks()}
    assert _statuses(outcome) == {
        "a[short]": "failed",
        "a[long]": "passed",
        "b[short]": "failed",
        "b[long]": "failed",
    }
    first = tasks["a[short]"]["evaluators"][0]
    assert (first["passed"], first["reason"]) == (False, "2 of 17 chars")
    # the row's own verdict stays beside the group's: a resumed run decides the group from it
    assert first["details"]["row_verdict"]["reason"] == "alone"
    assert outcome.report.summary.as_dict() == {
        "total": 4,
        "passed": 1,
        "failed": 3,
        "errors": 0,
        "interrupted": 0,
    }
    assert outcome.report.extra["statistics"]["pass_rate"]["value"] == 0.25


def test_a_resumed_run_decides_a_group_from_its_kept_rows(bench_suite_file, tmp_path):
    path = bench_suite_file(SUITE)
    full = _run(path, tmp_path / "runs")
    results = full.folder / "results.jsonl"
    kept = [line for line in results.read_text().splitlines(keepends=True) if '"id":"a[long]"' not in line]
    results.write_text("".join(kept))

    resumed = _run(path, tmp_path / "runs", resume=full.folder.name)

    assert resumed.to_run == 1
    assert _statuses(resumed) == _statuses(full)
    assert resumed.report.summary.as_dict() == full.report.summary.as_dict()


def test_a_group_decided_again_writes_no_row_that_did_not_change(bench_suite_file, tmp_path):
    path = bench_suite_file(SUITE)
    full = _run(path, tmp_path / "runs")
    lines = (full.folder / "results.jsonl").read_text().count("\n")
    resumed = _run(path, tmp_path / "runs", resume=full.folder.name)
    assert resumed.to_run == 0
    assert (full.folder / "results.jsonl").read_text().count("\n") == lines
    assert _statuses(resumed) == _statuses(full)


def test_tasks_that_share_a_group_are_decided_together(bench_suite_file, tmp_path):
    suite = """
tasks:
  - {id: one, response: short, group: g, evaluate: {type: longest}}
  - {id: two, response: much longer, group: g, evaluate: {type: longest}}
  - {id: alone, response: x, evaluate: {type: longest}}
"""
    outcome = _run(bench_suite_file(suite), tmp_path / "runs")
    assert _statuses(outcome) == {"one": "failed", "two": "passed", "alone": "passed"}


def test_d16_a_group_evaluator_that_raises_makes_each_row_an_error_naming_why(bench_suite_file, tmp_path):
    suite = SUITE.replace("type: longest", "type: refuses_groups")
    outcome = _run(bench_suite_file(suite), tmp_path / "runs")
    tasks = list(outcome.report.tasks())
    assert {task["status"] for task in tasks} == {"error"}
    assert tasks[0]["evaluators"][0]["error"] == "no grader for this group"
    assert outcome.report.summary.errors == 4


def test_d16_a_group_evaluator_that_hangs_is_stopped_at_the_evaluator_time_limit(bench_suite_file, tmp_path):
    suite = SUITE.replace(
        "prompt: hi, evaluate: {type: longest}", "prompt: hi, evaluate: {type: hangs_on_groups}"
    )
    outcome = _run(bench_suite_file(suite), tmp_path / "runs", evaluator_timeout=0.2)
    tasks = {task["id"]: task for task in outcome.report.tasks()}
    assert tasks["a[short]"]["evaluators"][0]["error"] == (
        "evaluator 'hangs_on_groups' (hangs_on_groups) exceeded 0.2 s on its group"
    )
    assert tasks["b[long]"]["status"] == "failed"  # the other group is decided as before


def test_d16_a_verdict_count_other_than_the_groups_rows_is_each_rows_error(bench_suite_file, tmp_path):
    suite = SUITE.replace("type: longest", "type: miscounts_groups")
    tasks = list(_run(bench_suite_file(suite), tmp_path / "runs").report.tasks())
    assert {task["evaluators"][0]["error"] for task in tasks} == {
        "evaluator 'miscounts_groups' (miscounts_groups) did not return one verdict per row of its group (2)"
    }


def test_a_row_whose_target_failed_keeps_its_error(bench_suite_file, tmp_path):
    suite = """
targets:
  - {label: ok, type: echo}
  - {label: broken, type: command, command: ["false"]}
tasks:
  - {id: a, prompt: hi, evaluate: {type: longest}}
"""
    outcome = _run(bench_suite_file(suite), tmp_path / "runs")
    tasks = {task["id"]: task for task in outcome.report.tasks()}
    assert tasks["a[broken]"]["status"] == "error"
    assert tasks["a[ok]"]["status"] == "passed"
    stored = [json.loads(line) for line in (outcome.folder / "results.jsonl").read_text().splitlines()]
    # the failed row is not judged by its group: it lands once; the other again, decided
    assert [row["id"] for row in stored] == ["a[ok]", "a[broken]", "a[ok]"]
    assert "evaluators" not in stored[1] or not stored[1]["evaluators"]
