"""A scripted turn's own checks when its phase was rightly skipped (``when: after_mismatch`` after
a reply that met ``expect``): not applicable, neither a pass nor an error; a task whose every check
is not applicable is an error (a check that did not run never passes)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conversations.test_phase_conditions import ASSISTANT  # replies 'refund' when asked

SUITE = """\
name: skipped
target: {type: python, function: "assistant:reply"}
tasks:
  - id: t
    conversation:
      phases:
        - turns:
            - user: FIRST
              expect: [{contains: refund}]
        - when: after_mismatch
          turns:
            - user: I said I want a refund
              evaluate: {type: contains, value: refund}
        - turns:
            - user: thanks, bye
              evaluate: {type: contains, value: help}
TASK_CHECKS"""

NOT_APPLICABLE = "not applicable: phase 2 was skipped (when: after_mismatch)"


def _run(bench_cli, bench_suite_file, tmp_path: Path, first: str, checks: str) -> dict:
    (tmp_path / "assistant.py").write_text(ASSISTANT)
    suite = SUITE.replace("FIRST", first).replace("TASK_CHECKS", checks)
    result = bench_cli("run", bench_suite_file(suite), "-q", "-o", "out.json")
    assert (tmp_path / "out.json").exists(), result.output
    return json.loads((tmp_path / "out.json").read_text())["tasks"][0]


def _outcome(task: dict, name: str) -> dict:
    return next(e for e in task["evaluators"] if e["name"] == name)


def test_a_skipped_phase_turn_check_is_not_applicable(bench_cli, bench_suite_file, tmp_path):
    checks = "    evaluate: {type: contains, value: help}\n"
    task = _run(bench_cli, bench_suite_file, tmp_path, "a refund please", checks)
    skipped = _outcome(task, "turn 2: contains")
    assert (skipped["error"], skipped["reason"]) == (None, NOT_APPLICABLE)
    assert skipped["details"]["not_applicable"] == {"phase": 2, "when": "after_mismatch"}
    assert task["conversation"]["skipped"] == [{"phase": 2, "when": "after_mismatch", "scripted": [2]}]
    assert (task["status"], task["error"]) == ("passed", None)
    shown = bench_cli("show", "latest", "t").output
    assert f"evaluator turn 2: contains (contains): not applicable, score -\n  {NOT_APPLICABLE}" in shown


def test_scripted_turns_after_a_skipped_phase_keep_their_numbers(bench_cli, bench_suite_file, tmp_path):
    task = _run(bench_cli, bench_suite_file, tmp_path, "a refund please", "")
    third = _outcome(task, "turn 3: contains")
    assert (third["passed"], third["error"], third["details"]["turn"]) == (True, None, 2)
    assert [row.get("scripted") for row in task["conversation"]["turns"]] == [1, 3]


def test_a_skipped_phase_check_does_not_hide_a_failing_check(bench_cli, bench_suite_file, tmp_path):
    checks = "    evaluate: {type: contains, value: parcel}\n"
    task = _run(bench_cli, bench_suite_file, tmp_path, "a refund please", checks)
    assert (task["status"], task["score"]) == ("failed", 0.5)


def test_a_task_whose_every_check_is_not_applicable_is_an_error(bench_cli, bench_suite_file, tmp_path):
    (tmp_path / "assistant.py").write_text(ASSISTANT)
    suite = SUITE.replace("FIRST", "a refund please").replace("TASK_CHECKS", "")
    suite = suite.replace(
        "            - user: thanks, bye\n              evaluate: {type: contains, value: help}\n",
        "            - thanks, bye\n",
    )
    bench_cli("run", bench_suite_file(suite), "-q", "-o", "out.json")
    task = json.loads((tmp_path / "out.json").read_text())["tasks"][0]
    assert (task["status"], task["passed"]) == ("error", False)
    assert task["error"] == f"no check applied to this transcript: turn 2: contains: {NOT_APPLICABLE}"


def test_a_scripted_turn_that_should_have_been_played_stays_an_error(bench_cli, bench_suite_file, tmp_path):
    suite = """\
    name: recorded
    tasks:
      - id: t
        conversation: {turns: [{user: hi, evaluate: {type: contains, value: hi}}, {user: more, evaluate: {type: contains, value: x}}]}
        response: {messages: [{role: user, content: hi}, {role: assistant, content: hi there}]}
    """
    bench_cli("run", bench_suite_file(suite), "-q", "-o", "out.json")
    task = json.loads((tmp_path / "out.json").read_text())["tasks"][0]
    second = _outcome(task, "turn 2: contains")
    assert second["error"] == "scripted turn 2 was not answered in this transcript"
    assert task["status"] == "error"


def test_a_skipped_phase_check_is_not_in_the_scorecard(bench_cli, bench_suite_file, tmp_path):
    checks = (
        "    evaluate: {type: contains, value: help}\n"
        "scorecard: {strategy: binary, dimensions: [{key: correctness, pass_threshold: 1.0}]}\n"
    )
    task = _run(bench_cli, bench_suite_file, tmp_path, "a refund please", checks)
    assert (task["status"], task["scorecard"]["score"]) == ("passed", 1.0)
