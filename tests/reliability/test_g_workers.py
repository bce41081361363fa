"""docs/reliability.md group G (and N04): how tasks are handed to workers."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from bench import Evaluator, EvaluatorConfig, Result
from bench.hookspecs import hookimpl
from bench.pipeline.options import RunOptions
from bench.pipeline.run import run_plan
from bench.plugins.registry import build_registry
from bench.suite.loader import load_suite
from bench.testing.server import Reply
from bench.testing.verdicts import judge_verdict


class Probe(Evaluator[EvaluatorConfig]):
    """Passes, and says how many asyncio tasks the run has at that moment."""

    name = "probe"

    def evaluate(self, sample):  # type: ignore[no-untyped-def]
        return Result(passed=True, reason=str(len(asyncio.all_tasks())))


class _ProbePlugin:
    @hookimpl
    def bench_register_evaluators(self, register):  # type: ignore[no-untyped-def]
        register(Probe)


def _most_tasks_alive(bench_suite_file, tmp_path, n: int, concurrency: int) -> int:  # type: ignore[no-untyped-def]
    rows = "".join(f"  - {{id: t{i}, response: ok, evaluate: {{type: probe}}}}\n" for i in range(n))
    path = bench_suite_file(f"tasks:\n{rows}")
    registry = build_registry([("bench-probe", "probe", _ProbePlugin())])
    options = RunOptions(runs_dir=tmp_path / "runs", handle_signals=False, concurrency=concurrency)
    outcome = run_plan(load_suite(path, registry), options)
    assert outcome.report.summary.passed == n
    return max(int(task["evaluators"][0]["reason"]) for task in outcome.report.tasks())


def test_n04_a_large_j_starts_no_more_workers_than_there_are_tasks(bench_suite_file, tmp_path):
    assert _most_tasks_alive(bench_suite_file, tmp_path, n=3, concurrency=10_000) <= 1 + 3  # the run + 3


def test_g01_tasks_are_fed_to_a_fixed_number_of_workers_never_one_coroutine_per_task(
    bench_suite_file, tmp_path
):
    assert _most_tasks_alive(bench_suite_file, tmp_path, n=3_000, concurrency=4) <= 1 + 4


def test_g06_fast_tasks_are_not_queued_behind_a_slow_llm_judge(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    def slow_verdict(body: dict[str, Any]) -> Reply:
        reply = judge_verdict(passed=True)(body)
        reply.latency_s = 1.5
        return reply

    bench_fake_llm.add(slow_verdict)
    fast = "".join(f"  - {{id: f{i}, response: ok, evaluate: {{expected: ok}}}}\n" for i in range(5))
    bench_suite_file(
        "tasks:\n"
        "  - id: judged\n"
        "    response: Canberra\n"
        "    evaluate: {type: llm_judge, criteria: Names a city., model: openai/gpt-4o-mini}\n" + fast
    )
    result = bench_cli("run", "suite.yaml", "-q", "-j", "1")
    assert result.exit_code == 0, result.output
    (run,) = (tmp_path / ".bench" / "runs").iterdir()
    lines = (run / "results.jsonl").read_text().splitlines()
    # With one worker, the five fast tasks were done while the judge was still thinking.
    assert [json.loads(line)["id"] for line in lines] == ["f0", "f1", "f2", "f3", "f4", "judged"]
    assert json.loads(lines[-1])["status"] == "passed"


def test_g06_judging_stays_bounded_and_every_judged_task_finishes(
    bench_cli, bench_fake_llm, bench_suite_file, tmp_path
):
    def verdict(body: dict[str, Any]) -> Reply:
        reply = judge_verdict(passed=True)(body)
        reply.latency_s = 0.05
        return reply

    bench_fake_llm.add(verdict)
    rows = "".join(
        f"  - {{id: j{i}, response: Canberra, evaluate: {{type: llm_judge, criteria: 'Names a city {i}.',"
        " model: openai/gpt-4o-mini}}\n"
        for i in range(24)
    )
    bench_suite_file(f"llm: {{concurrency: 64}}\ntasks:\n{rows}")
    result = bench_cli("run", "suite.yaml", "-q", "-j", "2", "--no-cache")
    assert result.exit_code == 0, result.output
    (run,) = (tmp_path / ".bench" / "runs").iterdir()
    lines = (run / "results.jsonl").read_text().splitlines()
    assert sorted(json.loads(line)["id"] for line in lines) == sorted(f"j{i}" for i in range(24))
    assert {json.loads(line)["status"] for line in lines} == {"passed"}
    # Two workers, each waiting for room among at most two judging tasks: never more than
    # four judges at once, though the model would take 64.
    assert 2 <= bench_fake_llm.max_in_flight <= 4
    assert bench_fake_llm.count() == 24
