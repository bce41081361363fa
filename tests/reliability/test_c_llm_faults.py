"""docs/reliability.md group C through litellm's real code path to the fake server (C01-C18)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.llm.client import LLMClient
from bench.testing import run_suite
from bench.testing.pytest_plugin import CANARY_KEY
from bench.testing.server import Fault, Reply

# Every test here runs on both paths of the LLM client (the root conftest.py).
pytestmark = pytest.mark.usefixtures("llm_transport")


def _suite(bench_suite_file, tasks: int = 1, extra: str = "", prompt: str = "question") -> object:
    rows = "".join(
        f"  - {{id: t{i}, prompt: '{prompt} {i}', evaluate: {{expected: echo}}}}\n" for i in range(tasks)
    )
    return bench_suite_file(f"target: {{type: litellm, model: openai/fake}}\n{extra}tasks:\n{rows}")


def _tasks(outcome):
    return list(outcome.report.tasks())


def _warm_up_litellm() -> None:
    asyncio.run(LLMClient().warm_up())


def test_c01_rate_limit_with_retry_after_is_waited_and_counted_once(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(429, retry_after=1), times=1)
    started = time.monotonic()
    outcome = run_suite(_suite(bench_suite_file))
    (task,) = _tasks(outcome)
    assert time.monotonic() - started >= 1.0
    assert task["status"] == "passed"
    assert bench_fake_llm.count() == 2  # not 3 or 5: litellm's own retries are off (L2)
    assert outcome.report.extra["llm"]["calls"] == 1
    assert outcome.report.extra["llm"]["total_tokens"] == 15


def test_c04_503_twice_then_success(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(503), times=2)
    (task,) = _tasks(run_suite(_suite(bench_suite_file)))
    assert task["status"] == "passed"
    assert bench_fake_llm.count() == 3


def test_c05_500s_past_the_retry_bound_are_a_task_error_and_the_run_goes_on(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(500), match="question 0")
    outcome = run_suite(_suite(bench_suite_file, tasks=2, extra="llm: {max_attempts: 3}\n"), concurrency=1)
    first, second = _tasks(outcome)
    assert first["status"] == "error"
    assert first["error"] == "500 from openai/fake after 3 attempts: fake failure"
    assert second["status"] == "passed"
    assert bench_fake_llm.count() == 4


def test_c05_circuit_breaker_stops_starting_calls_and_stays_resumable(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(500), times=4)
    path = _suite(bench_suite_file, tasks=5, extra="llm: {max_attempts: 2, max_consecutive_failures: 2}\n")
    outcome = run_suite(path, concurrency=1)
    statuses = [t["status"] for t in _tasks(outcome)]
    assert statuses == ["error", "error"]  # the three others were never started
    assert outcome.report.summary.not_run == 3
    assert bench_fake_llm.count() == 4
    assert outcome.report.stopped is not None
    assert outcome.report.stopped.startswith("provider stopped: 2 consecutive failed calls to openai")
    manifest = json.loads((outcome.folder / "manifest.json").read_text())
    assert manifest["status"] == "stopped"
    resumed = run_suite(path, resume=outcome.report.run_id, concurrency=1)
    assert [t["status"] for t in _tasks(resumed)] == ["passed"] * 5  # errors and unstarted tasks re-run


def test_c06_a_hang_times_out_per_attempt(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(kind="hang", hang_s=30), times=2)
    _warm_up_litellm()  # litellm's start-up takes seconds; the bound below is about the attempts
    started = time.monotonic()
    outcome = run_suite(_suite(bench_suite_file, extra="llm: {max_attempts: 2, attempt_timeout: 1}\n"))
    (task,) = _tasks(outcome)
    assert time.monotonic() - started < 8
    assert task["status"] == "error"
    assert task["error"] == "openai/fake after 2 attempts: timed out"


def test_c07_task_timeout_bounds_a_trickling_body(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(kind="trickle"), times=1)
    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake}\n"
        "tasks:\n  - {id: t, prompt: q, timeout: 2, evaluate: {expected: echo}}\n"
    )
    _warm_up_litellm()  # seconds of start-up; the bound below is about the trickle
    started = time.monotonic()
    (task,) = _tasks(run_suite(path))
    assert time.monotonic() - started < 6
    assert task["error"] == "timed out after 2 s"


def test_c09_malformed_json_is_retried_then_an_error(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(kind="malformed"), times=2)
    (task,) = _tasks(run_suite(_suite(bench_suite_file, extra="llm: {max_attempts: 2}\n")))
    assert task["status"] == "error"
    assert (
        task["error"]
        == "500 from openai/fake after 2 attempts: Unterminated string starting at: line 1 column 76 (char 75)"
    )
    assert bench_fake_llm.count() == 2


def test_c10_empty_completion_is_an_error_not_an_empty_answer(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Reply(content=None), times=1)
    path = _suite(bench_suite_file)
    (task,) = _tasks(run_suite(path))
    assert task["error"] == "empty completion from openai/fake (finish_reason=stop)"
    (again,) = _tasks(run_suite(path))  # not cached: asked again
    assert again["status"] == "passed"
    assert bench_fake_llm.count() == 2


def test_c03_quota_exhausted_is_not_retried_and_stops_the_provider(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(429, code="insufficient_quota", message="You exceeded your current quota"))
    outcome = run_suite(_suite(bench_suite_file, tasks=3), concurrency=1)
    statuses = [t["status"] for t in _tasks(outcome)]
    assert statuses == ["error"]
    assert outcome.report.summary.not_run == 2
    assert bench_fake_llm.count() == 1
    assert "You exceeded your current quota" in (outcome.report.stopped or "")


def test_c14_auth_error_once_per_provider(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(401, message="Incorrect API key provided"))
    outcome = run_suite(_suite(bench_suite_file, tasks=3), concurrency=1)
    assert bench_fake_llm.count() == 1
    first = _tasks(outcome)[0]
    assert first["error"].startswith("401 from openai/fake after 1 attempt:")


def test_g08_warm_cache_makes_zero_calls_and_no_cache_bypasses_it(bench_suite_file, bench_fake_llm):
    path = _suite(bench_suite_file, tasks=3)
    run_suite(path)
    assert bench_fake_llm.count() == 3
    again = run_suite(path)
    assert bench_fake_llm.count() == 3
    assert again.report.extra["llm"]["cached"] == 3
    run_suite(path, cache=False)
    assert bench_fake_llm.count() == 6


def test_c18_token_budget_stops_the_run_keeps_results_and_resumes(bench_suite_file, bench_fake_llm):
    path = _suite(bench_suite_file, tasks=5, extra="runtime_limits: {max_total_tokens: 40}\n")
    outcome = run_suite(path, concurrency=1)
    statuses = [t["status"] for t in _tasks(outcome)]
    assert statuses == ["passed", "passed", "passed"]
    assert outcome.report.summary.as_dict() == {
        "total": 5,
        "passed": 3,
        "failed": 0,
        "errors": 0,
        "interrupted": 0,
        "not_run": 2,
    }
    assert outcome.report.stopped == "budget runtime_limits.max_total_tokens reached"
    assert bench_fake_llm.count() == 3
    bigger = _suite(bench_suite_file, tasks=5, extra="runtime_limits: {max_total_tokens: 1000}\n")
    resumed = run_suite(bigger, resume=outcome.report.run_id, concurrency=1)
    assert [t["status"] for t in _tasks(resumed)] == ["passed"] * 5
    assert bench_fake_llm.count() == 5


def test_c17_cost_budget_needs_a_price_for_every_model(bench_cli, bench_suite_file, bench_fake_llm):
    path = _suite(bench_suite_file, extra="runtime_limits: {max_cost_usd: 1}\n")
    result = bench_cli("run", path)
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"error: {path}: no price for openai/fake; add it to pricing.models or drop runtime_limits.max_cost_usd\n"
    )
    assert bench_fake_llm.count() == 0


def test_pricing_rows_give_the_cost(bench_suite_file, bench_fake_llm):
    extra = "pricing:\n  models:\n    - {model: openai/fake, input_cost_per_million_tokens: 1000, output_cost_per_million_tokens: 2000}\n"
    outcome = run_suite(_suite(bench_suite_file, extra=extra))
    (task,) = _tasks(outcome)
    assert task["usage"]["cost_usd"] == 0.02  # 10 x $0.001 + 5 x $0.002
    assert outcome.report.extra["llm"]["cost_usd"] == 0.02


def test_unpriced_cost_is_unknown_not_zero(bench_suite_file, bench_fake_llm):
    outcome = run_suite(_suite(bench_suite_file))
    (task,) = _tasks(outcome)
    assert task["usage"]["cost_usd"] is None
    assert outcome.report.extra["llm"]["cost_usd"] is None


def test_tool_calls_are_recorded_on_the_response(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(
        Reply(
            content=None,
            tool_calls=[{"name": "get_weather", "arguments": {"city": "Paris"}}],
            finish_reason="tool_calls",
        )
    )
    path = bench_suite_file(
        "target:\n  type: litellm\n  model: openai/fake\n"
        "  tools: [{type: function, function: {name: get_weather, parameters: {type: object, properties: {city: {type: string}}}}}]\n"
        "tasks:\n  - {id: t, prompt: weather?, evaluate: {expect_error: false, expected: ''}}\n"
    )
    (task,) = _tasks(run_suite(path))
    assert task["tool_calls"] == [
        {"name": "get_weather", "arguments": {"city": "Paris"}, "id": task["tool_calls"][0]["id"]}
    ]
    body = bench_fake_llm.requests[-1].body
    assert body["tools"][0]["function"]["name"] == "get_weather"


def test_streamed_answers_record_time_to_first_token(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Reply("The capital is Paris", latency_s=0.05))
    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake, stream: true}\ntasks:\n  - {id: t, prompt: q, evaluate: {expected: Paris}}\n"
    )
    (task,) = _tasks(run_suite(path))
    assert task["response"] == "The capital is Paris"
    assert task["usage"]["ttft_ms"] is not None
    assert task["usage"]["ttft_ms"] >= 50


def test_a_streamed_chunk_longer_than_a_line_reader_takes_is_read_whole(bench_suite_file, bench_fake_llm):
    word = "x" * 3_000_000  # one server-sent event line of 3 MB: aiohttp's line reader refuses > 512 KiB
    bench_fake_llm.add(Reply(f"Paris {word}"))
    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake, stream: true}\n"
        "tasks:\n  - {id: t, prompt: q, evaluate: {expected: Paris}}\n"
    )
    (task,) = _tasks(run_suite(path))
    assert task["status"] == "passed", task["error"]
    assert task["response_bytes"] is None or task["response_bytes"] == len(word) + 6


def test_c11_cut_stream_is_an_error_and_not_cached(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(kind="cut_stream"), times=2)
    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake, stream: true}\nllm: {max_attempts: 2}\n"
        "tasks:\n  - {id: t, prompt: q, evaluate: {expected: answer}}\n"
    )
    (task,) = _tasks(run_suite(path))
    assert task["status"] == "error"
    assert task["error"] == "openai/fake after 2 attempts: the stream ended without a finish_reason"
    assert task["response"] == "The answer is"  # the partial text is kept, flagged incomplete
    assert task["truncated"] is True
    assert task["truncation"] == "the stream ended without a finish_reason"
    (again,) = _tasks(run_suite(path))
    assert again["status"] == "failed"  # asked again (nothing was cached); the default echo answers
    assert bench_fake_llm.count() == 3


def test_per_model_concurrency_is_respected(bench_suite_file, bench_fake_llm):
    bench_fake_llm.latency_s = 0.1
    outcome = run_suite(
        _suite(bench_suite_file, tasks=12, extra="llm:\n  models:\n    openai/fake: {concurrency: 3}\n"),
        concurrency=12,
    )
    assert outcome.report.summary.passed == 12
    assert bench_fake_llm.max_in_flight == 3


def test_rpm_limit_spaces_requests(bench_suite_file, bench_fake_llm):
    _warm_up_litellm()  # litellm's start-up takes seconds; the bound below is about the spacing
    started = time.monotonic()
    outcome = run_suite(
        _suite(bench_suite_file, tasks=3, extra="llm:\n  models:\n    openai/fake: {rpm: 60}\n"),
        concurrency=3,
    )
    assert outcome.report.summary.passed == 3
    stamps = sorted(r.at for r in bench_fake_llm.requests)
    assert stamps[-1] - stamps[0] >= 1.5  # 60 per minute: about one a second after the first
    assert time.monotonic() - started < 10


def test_judge_token_budget_stops_judging(bench_suite_file, bench_fake_llm):
    from bench.testing.verdicts import judge_verdict

    bench_fake_llm.add(judge_verdict(passed=True))
    rows = "".join(
        f"  - {{id: t{i}, response: answer {i}, evaluate: {{prompt: 'ok? {{response}}', model: openai/fake}}}}\n"
        for i in range(4)
    )
    path = bench_suite_file(f"judge_limits: {{max_tokens: 30}}\ntasks:\n{rows}")
    outcome = run_suite(path, concurrency=1)
    # The third task's judge call found the budget spent: it is left for --resume, the fourth never starts.
    assert [t["status"] for t in _tasks(outcome)] == ["passed", "passed", "interrupted"]
    assert outcome.report.summary.not_run == 1
    assert outcome.report.stopped == "budget judge_limits.max_tokens reached"
    assert bench_fake_llm.count() == 2


def test_c08_nothing_listening_fails_fast_and_names_the_url(bench_suite_file, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key")
    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake, api_base: 'http://127.0.0.1:9/v1?key=sk-query-secret'}\n"
        "llm: {max_attempts: 2, max_wait: 0.2}\n"
        "tasks:\n  - {id: t, prompt: q, evaluate: {expected: x}}\n"
    )
    _warm_up_litellm()  # litellm's start-up takes seconds; the bound below is about the calls
    started = time.monotonic()
    (task,) = _tasks(run_suite(path))
    assert time.monotonic() - started < 5
    assert task["status"] == "error"
    assert task["error"] == "openai/fake after 2 attempts: cannot connect to http://127.0.0.1:9/v1"
    assert "sk-query-secret" not in task["error"]


def test_c13_length_cut_answer_is_flagged_truncated(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Reply("The answer is", finish_reason="length"))
    (task,) = _tasks(run_suite(_suite(bench_suite_file)))
    assert task["response"] == "The answer is"
    assert task["status"] == "failed"
    assert task["truncated"] is True
    assert task["truncation"] == "finish_reason=length: the model stopped at its token limit"
    run_suite(_suite(bench_suite_file))
    assert bench_fake_llm.count() == 2  # a truncated answer is not cached


def test_c13_judge_verdict_cut_by_length_is_an_evaluator_error(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Reply('{"passed": true, "sco', finish_reason="length"))
    path = bench_suite_file(
        "tasks:\n  - {id: t, response: Paris, evaluate: {prompt: 'capital? {response}', model: openai/fake}}\n"
    )
    outcome = run_suite(path)
    (task,) = _tasks(outcome)
    assert task["status"] == "error"
    assert task["truncated"] is False  # the response itself was complete; the verdict was not
    assert task["evaluators"][0]["error"] == (
        "judge openai/fake ran out of tokens before finishing its verdict (finish_reason=length)"
    )


def test_c15_context_window_exceeded_is_not_retried(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(
        Fault(400, code="context_length_exceeded", message="maximum context length is 8192 tokens")
    )
    (task,) = _tasks(run_suite(_suite(bench_suite_file)))
    assert task["error"] == "400 from openai/fake after 1 attempt: maximum context length is 8192 tokens"
    assert bench_fake_llm.count() == 1


def test_c20_tool_call_arguments_that_are_not_json_are_kept_as_text(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(
        Reply(
            content=None,
            tool_calls=[{"name": "search", "arguments": "{query: oops"}],
            finish_reason="tool_calls",
        )
    )
    (task,) = _tasks(run_suite(_suite(bench_suite_file)))
    assert task["tool_calls"][0]["name"] == "search"
    assert task["tool_calls"][0]["arguments"] == "{query: oops"


def test_g02_concurrency_one_with_a_model_target_and_a_judge_does_not_deadlock(
    bench_suite_file, bench_fake_llm
):
    from bench.testing.verdicts import judge_verdict

    bench_fake_llm.add(judge_verdict(passed=True), match="JSON Schema")
    rows = "".join(
        f"  - {{id: t{i}, prompt: q{i}, evaluate: {{prompt: 'ok? {{response}}', model: openai/fake}}}}\n"
        for i in range(3)
    )
    path = bench_suite_file(
        f"target: {{type: litellm, model: openai/fake}}\nllm: {{concurrency: 1}}\ntasks:\n{rows}"
    )
    outcome = run_suite(path, concurrency=1)
    assert outcome.report.summary.passed == 3
    assert bench_fake_llm.count() == 6


@pytest.mark.parametrize("status", [404, 422])
def test_c15_client_errors_are_sent_once_with_the_providers_reason(bench_suite_file, bench_fake_llm, status):
    # litellm's drop_params resent a 422 once without the parameters it named, then failed with
    # "'NoneType' object has no attribute 'choices'".
    bench_fake_llm.add(Fault(status, message="temperature: Input should be less than or equal to 2"))
    (task,) = _tasks(run_suite(_suite(bench_suite_file)))
    assert task["error"] == (
        f"{status} from openai/fake after 1 attempt: temperature: Input should be less than or equal to 2"
    )
    assert bench_fake_llm.count() == 1


def test_c14_auth_error_names_the_default_key_variable(bench_cli, bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(401, message="Incorrect API key provided"))
    result = bench_cli("run", _suite(bench_suite_file, tasks=3), "-j", "1", "-o", "out.json")
    assert result.exit_code == 3
    report = json.loads(Path("out.json").read_text())
    (task,) = report["tasks"]
    assert task["error"] == (
        "401 from openai/fake after 1 attempt: Incorrect API key provided "
        "(the key in OPENAI_API_KEY was refused)"
    )
    assert "the key in OPENAI_API_KEY was refused" in result.output
    assert CANARY_KEY not in result.output
    assert bench_fake_llm.count() == 1


def test_c14_auth_error_names_the_suites_api_key_env(bench_suite_file, bench_fake_llm, monkeypatch):
    monkeypatch.setenv("JUDGE_PROVIDER_KEY", "sk-canary-other-3b1d")
    bench_fake_llm.add(Fault(403, message="Forbidden"))
    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake, api_key_env: JUDGE_PROVIDER_KEY}\n"
        "tasks:\n  - {id: t, prompt: q, evaluate: {expected: x}}\n"
    )
    outcome = run_suite(path)
    (task,) = _tasks(outcome)
    assert (
        task["error"]
        == "403 from openai/fake after 1 attempt: Forbidden (the key in JUDGE_PROVIDER_KEY was refused)"
    )
    assert "sk-canary-other-3b1d" not in json.dumps(task)
    assert bench_fake_llm.count() == 1


@pytest.mark.slow
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
def test_n05_litellms_first_call_is_not_charged_to_the_attempt(tmp_path, bench_fake_llm, stream):
    # A fresh process: litellm imports hundreds of modules on its first call (0.7-1.8 s here).
    (tmp_path / "suite.yaml").write_text(
        f"target: {{type: litellm, model: openai/fake, stream: {str(stream).lower()}}}\n"
        "llm: {attempt_timeout: 0.4, max_attempts: 1, cache: false}\n"
        "tasks:\n  - {id: t, prompt: q, evaluate: {expected: echo}}\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "bench", "run", "suite.yaml", "-q", "-o", "out.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    (task,) = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert task["status"] == "passed", task.get("error")
    assert done.returncode == 0
    assert task["usage"]["latency_ms"] < 400
    assert bench_fake_llm.count() == 1


def test_c16_server_request_count_equals_benchs_attempts(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(429, retry_after=0), match="question 0", times=1)
    bench_fake_llm.add(Fault(500), match="question 1", times=2)
    bench_fake_llm.add(Fault(kind="malformed"), match="question 2", times=1)
    bench_fake_llm.add(Fault(400), match="question 3")  # not retried
    bench_fake_llm.add(Fault(503), match="question 4")  # past the retry bound
    extra = "llm: {max_attempts: 3, max_wait: 0.1}\n"
    outcome = run_suite(_suite(bench_suite_file, tasks=6, extra=extra), concurrency=1)
    tasks = {t["id"]: t for t in _tasks(outcome)}
    assert [tasks[f"t{i}"]["usage"]["attempts"] for i in (0, 1, 2, 5)] == [2, 3, 2, 1]
    assert tasks["t3"]["error"] == "400 from openai/fake after 1 attempt: fake failure"
    assert tasks["t4"]["error"] == "503 from openai/fake after 3 attempts: fake failure"
    assert bench_fake_llm.count() == 2 + 3 + 2 + 1 + 3 + 1
    assert outcome.report.extra["llm"]["attempts"] == bench_fake_llm.count()


def test_c02_429_storm_cuts_concurrency_and_no_task_fails(bench_cli, bench_suite_file, bench_fake_llm):
    # Scaled down from 64 tasks and 10 s: 32 tasks at once, the first 40 requests rate-limited.
    bench_fake_llm.add(Fault(429, retry_after=0.2), times=40)
    bench_fake_llm.add(Reply("echo", latency_s=0.05))
    path = _suite(bench_suite_file, tasks=32, extra="llm: {concurrency: 32, cache: false}\n")
    result = bench_cli("run", path, "-j", "32", "-o", "out.json")
    report = json.loads(Path("out.json").read_text())
    assert result.exit_code == 0, result.output
    assert report["summary"]["passed"] == 32
    assert "note: openai/fake is rate-limited (429): at most 16 calls at a time now" in result.stderr
    after_storm = bench_fake_llm.requests[40:]
    assert len(after_storm) == 32
    assert max(r.in_flight for r in after_storm) <= 16  # the server sees concurrency drop


def test_c12_stalled_stream_is_retried_from_scratch_without_duplicated_text(bench_suite_file, bench_fake_llm):
    bench_fake_llm.add(Fault(kind="stall_stream", hang_s=5), times=1)
    bench_fake_llm.add(Reply("The answer is 42"))
    path = bench_suite_file(
        "target: {type: litellm, model: openai/fake, stream: true}\nllm: {attempt_timeout: 1}\n"
        "tasks:\n  - {id: t, prompt: q, evaluate: {expected: '42'}}\n"
    )
    _warm_up_litellm()  # litellm's start-up takes seconds; the bound below is about the stall
    started = time.monotonic()
    (task,) = _tasks(run_suite(path))
    assert time.monotonic() - started < 5  # the stall (5 s) was cut at the attempt timeout (1 s)
    assert task["status"] == "passed"
    assert task["response"] == "The answer is 42"  # the stalled attempt's "The" is not kept
    assert task["usage"]["attempts"] == 2
    assert bench_fake_llm.count() == 2
