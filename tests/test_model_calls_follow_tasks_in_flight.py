"""``-j N`` puts N model calls in flight unless the suite's ``llm.concurrency`` says otherwise;
when both are set the suite's wins and the run says so before its first task."""

from __future__ import annotations

import pytest

from bench.testing import run_suite

LATENCY = 0.3


@pytest.fixture(autouse=True)
def direct_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_LLM_TRANSPORT", "auto")


def _suite(bench_suite_file, tasks: int, extra: str = ""):
    rows = "".join(
        f"  - {{id: t{i}, prompt: 'question {i}', evaluate: {{expected: echo}}}}\n" for i in range(tasks)
    )
    return bench_suite_file(f"target: {{type: litellm, model: openai/fake}}\n{extra}tasks:\n{rows}")


def test_j_24_puts_24_model_calls_in_flight_not_the_default_16(bench_suite_file, bench_fake_llm):
    bench_fake_llm.latency_s = LATENCY
    outcome = run_suite(_suite(bench_suite_file, tasks=24), concurrency=24, cache=False)
    assert [t["status"] for t in outcome.report.tasks()] == ["passed"] * 24
    assert bench_fake_llm.max_in_flight == 24


def test_the_suites_concurrency_key_sets_model_calls_too(bench_suite_file, bench_fake_llm):
    bench_fake_llm.latency_s = LATENCY
    outcome = run_suite(_suite(bench_suite_file, tasks=20, extra="concurrency: 20\n"), cache=False)
    assert [t["status"] for t in outcome.report.tasks()] == ["passed"] * 20
    assert bench_fake_llm.max_in_flight == 20


def test_the_suites_llm_concurrency_wins_over_j_and_the_run_says_so(
    bench_cli, bench_suite_file, bench_fake_llm
):
    bench_fake_llm.latency_s = 0.1
    path = _suite(bench_suite_file, tasks=12, extra="llm: {concurrency: 3}\n")
    result = bench_cli("run", path, "-j", "12", "--no-cache")
    assert result.exit_code == 0, result.output
    assert bench_fake_llm.max_in_flight == 3
    assert (
        "model calls in flight: at most 3 (the suite's llm.concurrency), tasks in flight: 12 (-j)"
        in result.output
    )


def test_no_note_when_the_suites_llm_concurrency_matches_j(bench_cli, bench_suite_file, bench_fake_llm):
    path = _suite(bench_suite_file, tasks=2, extra="llm: {concurrency: 4}\n")
    result = bench_cli("run", path, "-j", "4", "--no-cache")
    assert result.exit_code == 0, result.output
    assert "model calls in flight" not in result.output
