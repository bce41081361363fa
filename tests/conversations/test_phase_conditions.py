"""A phase that runs only after a mismatch (a scripted turn's ``expect`` fell short), and a phase
only a person can take, which stops the conversation waiting for them (test_person_turn.py)."""

from __future__ import annotations

import json
from pathlib import Path
from unittest.mock import ANY

ASSISTANT = """\
def reply(task):
    said = task.messages[-1].content
    return "a refund it is" if "refund" in said else "how can I help?"
"""

SUITE = """\
name: steer
target: {type: python, function: "assistant:reply"}
tasks:
  - id: TASK
    conversation:
      phases:
        - turns:
            - user: FIRST
              expect: [{contains: refund}]
        - when: after_mismatch
          turns: [I said I want a refund]
        - PERSON
    evaluate: {type: contains, value: refund}
"""


def _run(bench_cli, bench_suite_file, tmp_path: Path, first: str, person: str = "") -> dict:
    (tmp_path / "assistant.py").write_text(ASSISTANT)
    person_phase = f"        - {{person: {{prompt: {person}}}}}\n" if person else ""
    suite = SUITE.replace("FIRST", first).replace("TASK", "t").replace("        - PERSON\n", person_phase)
    result = bench_cli("run", bench_suite_file(suite), "-q", "-o", "out.json")
    assert (tmp_path / "out.json").exists(), result.output
    return json.loads((tmp_path / "out.json").read_text())["tasks"][0]


def _said(task: dict) -> list[str]:
    return [m["content"] for m in task["conversation"]["messages"] if m["role"] == "user"]


def test_a_phase_when_after_mismatch_runs_after_a_reply_that_falls_short(
    bench_cli, bench_suite_file, tmp_path
):
    task = _run(bench_cli, bench_suite_file, tmp_path, "my parcel is lost")
    assert _said(task) == ["my parcel is lost", "I said I want a refund"]
    assert task["conversation"]["turns"][0]["mismatch"] is True
    assert task["passed"] is True


def test_a_phase_when_after_mismatch_is_skipped_after_a_reply_that_meets_expect(
    bench_cli, bench_suite_file, tmp_path
):
    task = _run(bench_cli, bench_suite_file, tmp_path, "a refund please")
    assert _said(task) == ["a refund please"]
    assert "mismatch" not in task["conversation"]["turns"][0]


def test_a_person_phase_stops_the_conversation_waiting_for_them(bench_cli, bench_suite_file, tmp_path):
    task = _run(bench_cli, bench_suite_file, tmp_path, "a refund please", person="take over the chat")
    assert _said(task) == ["a refund please"]
    assert (task["status"], task.get("error")) == ("waiting", None)
    assert task["conversation"]["waiting"] == {"turn": 2, "prompt": "take over the chat", "since": ANY}
    assert task["passed"] is False
