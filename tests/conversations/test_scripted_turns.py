"""Conversation tasks with scripted user turns: the target answers the whole history each turn."""

from __future__ import annotations

import json
from pathlib import Path

ASSISTANT = """\
def reply(task):
    users = [m.content for m in task.messages if m.role == "user"]
    return f"turn {len(users)} of {len(task.messages)} messages: you said {users[-1]}"
"""

SUITE = """\
name: chat
target: {type: python, function: "assistant:reply"}
tasks:
  - id: hello
    prompt: hi there
    conversation:
      turns:
        - my order is late
        - user: where is it?
          evaluate: {type: contains, value: "turn 3 of 5"}
    evaluate: {type: contains, value: "where is it"}
"""


def _result(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "out.json").read_text())["tasks"][0]


def test_each_turn_the_target_receives_the_whole_history(bench_cli, bench_suite_file, tmp_path):
    (tmp_path / "assistant.py").write_text(ASSISTANT)
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "-o", "out.json")
    assert result.exit_code == 0, result.output
    task = _result(tmp_path)
    messages = task["conversation"]["messages"]
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "hi there"),
        ("assistant", "turn 1 of 1 messages: you said hi there"),
        ("user", "my order is late"),
        ("assistant", "turn 2 of 3 messages: you said my order is late"),
        ("user", "where is it?"),
        ("assistant", "turn 3 of 5 messages: you said where is it?"),
    ]
    assert task["response"] == "turn 3 of 5 messages: you said where is it?"
    assert [t["by"] for t in task["conversation"]["turns"]] == ["input", "scripted", "scripted"]
    check = next(e for e in task["evaluators"] if e["name"].startswith("turn 2"))
    assert check["name"] == "turn 2: contains"
    assert check["passed"]
    assert check["details"]["turn"] == 3
