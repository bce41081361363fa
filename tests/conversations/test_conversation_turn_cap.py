"""``conversation: {max_turns: N}``: the most user turns the whole conversation takes, across its
phases; at the cap it ends (no phase after it runs, a person's phase included)."""

from __future__ import annotations

import json
from pathlib import Path

ASSISTANT = """\
def reply(task):
    return "noted: " + task.messages[-1].content
"""

SUITE = """\
name: capped
target: {type: python, function: "assistant:reply"}
tasks:
  - id: t
    conversation:
      max_turns: CAP
      phases:
        - turns: [one, two]
        - turns:
            - user: three
              evaluate: {type: contains, value: three}
        - person: {prompt: take over}
    evaluate: {type: contains, value: noted}
"""


def _run(bench_cli, bench_suite_file, tmp_path: Path, cap: str):
    (tmp_path / "assistant.py").write_text(ASSISTANT)
    result = bench_cli("run", bench_suite_file(SUITE.replace("CAP", cap)), "-q", "-o", "out.json")
    out = tmp_path / "out.json"
    return result, json.loads(out.read_text())["tasks"][0] if out.exists() else None


def test_conversation_max_turns_stops_the_whole_conversation(bench_cli, bench_suite_file, tmp_path):
    _, task = _run(bench_cli, bench_suite_file, tmp_path, "2")
    said = [m["content"] for m in task["conversation"]["messages"] if m["role"] == "user"]
    assert said == ["one", "two"]
    assert task["conversation"]["capped"] == {"max_turns": 2, "turn": 2, "scripted": [3]}
    assert "waiting" not in task["conversation"]
    cut = next(e for e in task["evaluators"] if e["name"] == "turn 3: contains")
    assert (cut["error"], cut["reason"]) == (
        None,
        "not applicable: the conversation stopped at its max_turns (2)",
    )
    assert (task["status"], task["error"]) == ("passed", None)


def test_conversation_max_turns_must_be_at_least_one(bench_cli, bench_suite_file, tmp_path):
    result, task = _run(bench_cli, bench_suite_file, tmp_path, "0")
    assert task is None
    assert "tasks[0].conversation.max_turns: Input should be greater than or equal to 1" in result.output
