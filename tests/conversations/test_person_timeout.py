"""A person's phase with a time limit (``person: {timeout_s, on_timeout}``): the wait records when it
began, a resume past the deadline applies ``on_timeout`` instead of waiting on, and an answer after
it is too late. The policy is AgentClash's ``runHumanPhase`` on ``ErrHumanTurnTimeout`` (from its
``PollHumanTurnGate.WaitForHumanTurn``): ``fail`` fails the case, ``stop`` ends the conversation."""

from __future__ import annotations

import json
import time
from datetime import datetime
from pathlib import Path

import pytest

from bench import ConfigError

ASSISTANT = """\
def reply(task):
    return "a refund it is" if "refund" in task.messages[-1].content else "how can I help?"
"""

SUITE = """\
name: person
target: {{type: python, function: "assistant:reply"}}
tasks:
  - id: t
    conversation:
      phases:
        - turns: [I want a refund]
        - person: {{prompt: take over the chat, timeout_s: {timeout}, on_timeout: {policy}}}
        - turns: [thanks]
    evaluate: {{type: contains, value: refund}}
"""

#: Short enough to pass in a test, long enough that the first run still waits.
SHORT = 0.05


def _suite(bench_suite_file, tmp_path: Path, timeout: float, policy: str) -> Path:
    (tmp_path / "assistant.py").write_text(ASSISTANT)
    return bench_suite_file(SUITE.format(timeout=timeout, policy=policy))


def _run(bench_cli, suite: Path, tmp_path: Path, *more: str) -> tuple[object, dict, str]:
    result = bench_cli("run", suite, "-q", "-o", "out.json", *more)
    report = json.loads((tmp_path / "out.json").read_text())
    return result, report["tasks"][0], report["run_id"]


def test_a_timed_person_wait_records_when_it_began_and_a_resume_keeps_it(
    bench_cli, bench_suite_file, tmp_path
):
    suite = _suite(bench_suite_file, tmp_path, 3600, "stop")
    _, first, run_id = _run(bench_cli, suite, tmp_path)
    asked = first["conversation"]["waiting"]
    began = datetime.fromisoformat(asked["since"]).timestamp()
    assert abs(began - time.time()) < 60
    assert datetime.fromisoformat(asked["deadline"]).timestamp() == pytest.approx(began + 3600)
    assert asked["on_timeout"] == "stop"
    result, again, _ = _run(bench_cli, suite, tmp_path, "--resume", run_id)
    assert result.exit_code == 5, result.output
    assert again["conversation"]["waiting"] == asked  # the wait began at the first run, not the resume


def test_person_timeout_stop_resume_past_the_deadline_ends_the_conversation_and_judges_it(
    bench_cli, bench_suite_file, tmp_path
):
    """``on_timeout: stop`` (``runHumanPhase`` sets ``StopReasonHumanTurnTimeout``): the phases after
    the person's do not run, and the conversation so far is judged."""
    suite = _suite(bench_suite_file, tmp_path, SHORT, "stop")
    _, first, run_id = _run(bench_cli, suite, tmp_path)
    assert first["status"] == "waiting"
    time.sleep(SHORT * 2)
    result, task, _ = _run(bench_cli, suite, tmp_path, "--resume", run_id)
    assert result.exit_code == 0, result.output
    assert (task["status"], task.get("error")) == ("passed", None)
    assert [m["content"] for m in task["conversation"]["messages"]] == ["I want a refund", "a refund it is"]
    assert "waiting" not in task["conversation"]
    assert task["conversation"]["timed_out"] == first["conversation"]["waiting"]


def test_person_timeout_fail_resume_past_the_deadline_makes_the_task_an_error(
    bench_cli, bench_suite_file, tmp_path
):
    """``on_timeout: fail``: ``runHumanPhase`` returns ``NewFailure(StopReasonHumanTurnTimeout, ...)``."""
    suite = _suite(bench_suite_file, tmp_path, SHORT, "fail")
    _, first, run_id = _run(bench_cli, suite, tmp_path)
    time.sleep(SHORT * 2)
    _, task, _ = _run(bench_cli, suite, tmp_path, "--resume", run_id)
    deadline = first["conversation"]["waiting"]["deadline"]
    assert task["status"] == "error"
    assert task["error"] == f"turn 2 is a person's and no one answered by {deadline} (on_timeout: fail)"


def test_person_timeout_an_answer_after_the_deadline_is_too_late(bench_cli, bench_suite_file, tmp_path):
    """AgentClash's ``SubmitHumanTurn`` refuses a turn ``MarkHumanTurnExpired`` marked expired."""
    from bench.testing import answer_waiting

    suite = _suite(bench_suite_file, tmp_path, SHORT, "stop")
    _, first, run_id = _run(bench_cli, suite, tmp_path)
    time.sleep(SHORT * 2)
    deadline = first["conversation"]["waiting"]["deadline"]
    message = (
        f"too late: task 't' of run {run_id} waited for a person until {deadline}; "
        "resuming the run ends the conversation there (on_timeout: stop)"
    )
    with pytest.raises(ConfigError) as caught:
        answer_waiting(tmp_path / ".bench" / "runs", run_id, "t", "a refund please")
    assert caught.value.message == message
    answered = bench_cli("answer", run_id, "t")
    assert (answered.exit_code, answered.stderr.strip()) == (2, f"error: {message}")
