"""docs/reliability.md group D: hostile responses and misbehaving evaluator plugins."""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing
import signal
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench import Evaluator, EvaluatorConfig, Result
from bench.hookspecs import hookimpl
from bench.pipeline.options import RunOptions
from bench.pipeline.run import run_plan
from bench.plugins.registry import build_registry
from bench.suite.loader import load_suite

HOSTILE = "[/bold] \x1b[31mRED\x1b[0m \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \x00\x07 [link=file:///etc]x[/link] PASSED"


def test_d03_control_characters_and_markup_cannot_break_reports(bench_cli, bench_suite_file, tmp_path):
    path = bench_suite_file(
        "tasks:\n  - id: hostile\n    response: "
        + json.dumps(HOSTILE)
        + "\n    evaluate: {expected: 'never there'}\n"
    )
    result = bench_cli("run", path, "-o", "out.json", "--junit", "junit.xml")
    assert result.exit_code == 1
    assert "\x1b" not in result.stdout
    assert "\x00" not in result.stdout
    assert "[/bold]" not in result.stdout or "MarkupError" not in result.output
    assert json.loads((tmp_path / "out.json").read_text())["tasks"][0]["response"] == HOSTILE
    case = ET.parse(tmp_path / "junit.xml").getroot().find("testsuite/testcase/failure")
    assert case is not None
    assert "\x1b" not in (case.text or "")


def test_d04_lone_surrogate_in_a_response_is_written_as_valid_utf8(bench_suite_file, tmp_path):
    (tmp_path / "surrogate_agent.py").write_text("def answer(task):\n    return 'bad \\ud800 text'\n")
    path = bench_suite_file(
        "target: {type: python, function: 'surrogate_agent:answer'}\ntasks:\n  - {id: a, prompt: x, evaluate: {expected: bad}}\n"
    )
    outcome = run_plan(load_suite(path), RunOptions(runs_dir=tmp_path / "runs", handle_signals=False))
    raw = (outcome.folder / "results.jsonl").read_bytes()
    raw.decode("utf-8")  # strict: must not raise
    assert json.loads(raw)["response"] == "bad \ud800 text"
    assert outcome.report.summary.passed == 1


def test_d01_a_100_mb_response_is_kept_and_evaluated_as_a_bounded_view(bench_cli, bench_suite_file, tmp_path):
    (tmp_path / "huge_agent.py").write_text(
        "def answer(task):\n    return 'head ' + 'x' * 100_000_000 + ' tail'\n"
    )
    path = bench_suite_file(
        "target: {type: python, function: 'huge_agent:answer'}\n"
        "tasks:\n  - {id: a, prompt: x, evaluate: [{type: contains, value: head}, {type: contains, value: tail}]}\n"
    )
    result = bench_cli("run", path, "-o", "out.json")
    assert result.exit_code == 1
    (task,) = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert [e["passed"] for e in task["evaluators"]] == [True, False]  # the tail is past the view
    assert task["response"] == "head " + "x" * (10 * 1024 * 1024 - 5)  # the first 10 MiB
    assert task["truncated"] is True
    assert task["truncation"] == "response over max_response_bytes (10485760): the first 10485760 bytes kept"
    assert task["response_bytes"] == 100_000_010
    full = ("head " + "x" * 100_000_000 + " tail").encode()
    assert task["response_sha256"] == hashlib.sha256(full).hexdigest()
    (results,) = (tmp_path / ".bench" / "runs").glob("*/results.jsonl")
    assert results.stat().st_size < 11 * 1024 * 1024


def test_d01_max_response_bytes_sets_the_view_and_never_splits_a_character(bench_suite_file, tmp_path):
    path = bench_suite_file(
        "max_response_bytes: 8\n"
        "tasks:\n  - {id: a, response: 'abcdefgé and more', evaluate: {type: contains, value: abcdefg}}\n"
    )
    outcome = run_plan(load_suite(path), RunOptions(runs_dir=tmp_path / "runs", handle_signals=False))
    (task,) = outcome.report.tasks()
    assert task["status"] == "passed"
    assert task["response"] == "abcdefg"  # 'é' is two bytes: cut before it, not through it
    assert task["response_bytes"] == len("abcdefgé and more".encode())
    assert task["truncated"] is True


def test_d01_a_max_response_bytes_of_zero_is_refused_before_running(bench_cli, bench_suite_file):
    path = bench_suite_file(
        "max_response_bytes: 0\ntasks:\n  - {id: a, response: x, evaluate: {expected: x}}\n"
    )
    result = bench_cli("run", path)
    assert result.exit_code == 2
    assert result.stderr == f"error: {path}:1:1: max_response_bytes: Input should be greater than 0 (got 0)\n"
    assert not (path.parent / ".bench" / "runs").exists()


class _Config(EvaluatorConfig):
    mode: str


class Misbehaving(Evaluator[_Config]):
    """Returns whatever its mode asks for."""

    name = "misbehaving"
    Config = _Config

    def evaluate(self, sample):  # type: ignore[no-untyped-def]
        mode = self.config.mode
        if mode == "raise":
            raise RuntimeError("plugin bug")
        if mode == "none":
            return None
        if mode == "score":
            return Result(passed=True, score=1.5)
        if mode == "nan":
            return Result(passed=True, score=float("nan"))
        if mode == "passed":
            return Result(passed="yes")  # type: ignore[arg-type]
        return Result(passed=True, score=1.0, reason="fine")


class _Plugin:
    @hookimpl
    def bench_register_evaluators(self, register):  # type: ignore[no-untyped-def]
        register(Misbehaving)


@pytest.mark.parametrize(
    ("mode", "error"),
    [
        (
            "raise",
            "evaluator 'misbehaving' (misbehaving from bench-test-plugin) raised RuntimeError: plugin bug",
        ),
        (
            "none",
            "evaluator 'misbehaving' (misbehaving from bench-test-plugin) returned NoneType, not a bench.Result",
        ),
        (
            "score",
            "evaluator 'misbehaving' (misbehaving from bench-test-plugin) returned score=1.5, outside 0..1",
        ),
        (
            "nan",
            "evaluator 'misbehaving' (misbehaving from bench-test-plugin) returned score=nan, not a number",
        ),
        (
            "passed",
            "evaluator 'misbehaving' (misbehaving from bench-test-plugin) returned passed='yes', not a bool",
        ),
    ],
)
def test_d12_misbehaving_plugin_is_an_evaluator_error_and_others_still_run(
    bench_suite_file, tmp_path, mode, error
):
    registry = build_registry([("bench-test-plugin", "test", _Plugin())])
    path = bench_suite_file(
        f"tasks:\n  - id: a\n    response: ok\n    evaluate: [{{type: misbehaving, mode: {mode}}}, {{expected: ok}}]\n"
    )
    outcome = run_plan(
        load_suite(path, registry), RunOptions(runs_dir=tmp_path / "runs", handle_signals=False)
    )
    (task,) = outcome.report.tasks()
    assert task["status"] == "error"
    assert task["evaluators"][0]["error"] == error
    assert task["evaluators"][0]["passed"] is False
    assert task["evaluators"][1]["passed"] is True  # the other evaluator still ran
    assert outcome.report.summary.errors == 1


def test_d12_plugin_config_error_names_the_distribution(bench_suite_file):
    registry = build_registry([("bench-test-plugin", "test", _Plugin())])
    path = bench_suite_file("tasks:\n  - id: a\n    response: ok\n    evaluate: {type: misbehaving}\n")
    with pytest.raises(Exception, match="required field missing") as info:
        load_suite(path, registry)
    assert str(info.value) == (
        f"{path}:4:15: tasks[0].evaluate.mode: required field missing [evaluator 'misbehaving' from bench-test-plugin]"
    )


class _SlowConfig(EvaluatorConfig):
    seconds: float


class Slow(Evaluator[_SlowConfig]):
    """Sleeps before answering."""

    name = "slow"
    Config = _SlowConfig

    async def evaluate(self, sample):  # type: ignore[no-untyped-def]
        import asyncio

        await asyncio.sleep(self.config.seconds)
        return Result(passed=True, score=1.0)


class _SlowPlugin:
    @hookimpl
    def bench_register_evaluators(self, register):  # type: ignore[no-untyped-def]
        register(Slow)


def test_d13_async_evaluator_past_its_time_limit_is_an_evaluator_error(bench_suite_file, tmp_path):
    registry = build_registry([("bench-slow", "slow", _SlowPlugin())])
    path = bench_suite_file(
        "tasks:\n  - {id: a, response: ok, evaluate: [{type: slow, seconds: 30}, {expected: ok}]}\n"
    )
    options = RunOptions(runs_dir=tmp_path / "runs", handle_signals=False, evaluator_timeout=0.5)
    outcome = run_plan(load_suite(path, registry), options)
    (task,) = outcome.report.tasks()
    assert task["status"] == "error"
    assert task["evaluators"][0]["error"] == "evaluator 'slow' (slow) exceeded 0.5 s"
    assert task["evaluators"][1]["passed"] is True


class _HangConfig(EvaluatorConfig):
    pass


class Hang(Evaluator[_HangConfig]):
    """Never answers: plain Python code, which no asyncio timeout can pre-empt."""

    name = "hang"
    Config = _HangConfig
    isolate_above = 0  # always in a killable worker process

    def evaluate(self, sample):  # type: ignore[no-untyped-def]
        while True:
            pass


class _HangPlugin:
    @hookimpl
    def bench_register_evaluators(self, register):  # type: ignore[no-untyped-def]
        register(Hang)


def test_d13_sync_evaluator_that_hangs_is_killed_at_its_time_limit(bench_suite_file, tmp_path):
    registry = build_registry([("bench-hang", "hang", _HangPlugin())])
    path = bench_suite_file("tasks:\n  - {id: a, response: ok, evaluate: [{type: hang}, {expected: ok}]}\n")
    options = RunOptions(runs_dir=tmp_path / "runs", handle_signals=False, evaluator_timeout=0.5)
    outcome = run_plan(load_suite(path, registry), options)
    (task,) = outcome.report.tasks()
    assert task["status"] == "error"
    assert task["evaluators"][0]["error"] == "evaluator 'hang' (hang) exceeded 0.5 s"
    assert task["evaluators"][1]["passed"] is True
    assert multiprocessing.active_children() == []  # the worker was killed, none is left


class InlineHang(Evaluator[_HangConfig]):
    """Never answers, and has not opted in to a worker process: it runs on the event loop."""

    name = "inline_hang"
    Config = _HangConfig

    def evaluate(self, sample):  # type: ignore[no-untyped-def]
        # (Not `while True: try:` at the loop's head: Python 3.10 runs no signal handler on a jump
        # back to a `try`, so neither Ctrl-C nor a deadline could stop that loop there.)
        spins = 0
        while True:
            spins += 1
            try:
                spins %= 1000
            except Exception:  # a plugin that swallows errors still cannot swallow its deadline
                continue


class _InlineHangPlugin:
    @hookimpl
    def bench_register_evaluators(self, register):  # type: ignore[no-untyped-def]
        register(InlineHang)


@contextlib.contextmanager
def _no_outer_alarm() -> Iterator[None]:
    """pytest-timeout's alarm suspended (bench then shares one timer per loop step), put back after."""
    delay, interval = signal.setitimer(signal.ITIMER_REAL, 0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, delay, interval)


@pytest.mark.parametrize("outer_alarm", [True, False], ids=["pytest-timeout armed", "no other alarm"])
def test_d13_sync_evaluator_that_hangs_on_the_event_loop_is_stopped_at_its_time_limit(
    bench_suite_file, tmp_path, outer_alarm
):
    """With no alarm of someone else's running, the blocks of one loop step share one timer
    (bench.execution.deadline): each evaluation is still stopped at its own limit."""
    registry = build_registry([("bench-hang", "hang", _InlineHangPlugin())])
    rows = "".join(
        f"  - {{id: t{i}, response: ok, evaluate: [{{expected: ok}}, {{type: inline_hang}}]}}\n"
        for i in range(2)
    )
    path = bench_suite_file(f"tasks:\n{rows}")
    options = RunOptions(runs_dir=tmp_path / "runs", handle_signals=False, evaluator_timeout=0.25)
    started = time.monotonic()
    with contextlib.nullcontext() if outer_alarm else _no_outer_alarm():
        outcome = run_plan(load_suite(path, registry), options)
    assert time.monotonic() - started < 5
    for task in outcome.report.tasks():
        assert task["status"] == "error"
        assert task["evaluators"][1]["error"] == "evaluator 'inline_hang' (inline_hang) exceeded 0.25 s"
        assert task["evaluators"][0]["passed"] is True


def _words(step: int, n: int) -> str:
    return " ".join(f"w{(i * step) % 997}" for i in range(n))


def test_n06_rouge_l_on_two_6000_word_texts_is_capped_with_a_note(bench_cli, bench_suite_file):
    bench_suite_file(
        "tasks:\n"
        f"  - {{id: long, response: '{_words(7, 6_000)}', "
        f"evaluate: {{type: rouge, reference: '{_words(13, 6_000)}', threshold: 0.0}}}}\n"
    )
    result = bench_cli("run", "suite.yaml", "-q", "-o", "out.json")
    assert result.exit_code == 0, result.output
    (task,) = json.loads(Path("out.json").read_text())["tasks"]
    (outcome,) = task["evaluators"]
    note = (
        "ROUGE-L is quadratic: it compared the first 2000 words"
        " of the response (of 6000) and of the reference (of 6000)"
    )
    assert outcome["details"]["capped"] == note
    assert outcome["reason"].endswith(f"; {note} (score {outcome['score']:.3g}, at least 0 needed)")


def test_d14_template_syntax_in_a_response_is_substituted_once_verbatim(
    bench_cli, bench_suite_file, tmp_path, bench_fake_llm
):
    from bench.testing.verdicts import judge_verdict

    bench_fake_llm.add(judge_verdict(passed=True, reason="fine"))
    response = "See {expected} and {0} and {{ 7*7 }} and ${HOME} and a lone { here, {response}."
    judge = (
        "{prompt: 'Expected: {expected}. Question: {input}. Answer: {response}', "
        "expected: SECRET-ANSWER-42, model: openai/fake}"
    )
    path = bench_suite_file(
        f"tasks:\n  - id: t\n    prompt: Name it\n    response: {json.dumps(response)}\n    evaluate: {judge}\n"
    )
    result = bench_cli("run", path, "-o", "out.json")
    assert result.exit_code == 0, result.output
    (request,) = bench_fake_llm.requests
    prompt = request.body["messages"][1]["content"]
    assert response in prompt  # verbatim: nothing in it was filled, escaped or evaluated
    assert prompt.count("SECRET-ANSWER-42") == 1  # from the template only, not through the response
    assert prompt.index("SECRET-ANSWER-42") < prompt.index("Question: Name it")
    assert "49" not in prompt
    task = json.loads((tmp_path / "out.json").read_text())["tasks"][0]
    assert task["response"] == response


def test_d13_a_deadline_puts_back_the_alarm_someone_else_armed():
    import signal

    from bench.execution.deadline import Exceeded, sync_deadline

    def spin() -> None:
        with sync_deadline(0.05):
            while True:
                pass

    def outer_handler(*_: object) -> None:
        raise AssertionError("the outer alarm fired early")

    previous = signal.signal(signal.SIGALRM, outer_handler)
    outer = signal.setitimer(signal.ITIMER_REAL, 5.0)
    try:
        with pytest.raises(Exceeded):
            spin()
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 4.0 < left < 5.0  # the outer alarm is armed again, less the time spent
        assert signal.getsignal(signal.SIGALRM) is outer_handler
    finally:
        signal.setitimer(signal.ITIMER_REAL, *outer)
        signal.signal(signal.SIGALRM, previous)
