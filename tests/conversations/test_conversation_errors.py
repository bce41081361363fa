"""Conversations written wrong are refused with a message naming the field; phases run in order;
a command target reads the history from its messages file."""

from __future__ import annotations

import json
import sys

import pytest


@pytest.mark.parametrize(
    ("conversation", "message"),
    [
        ("{}", "tasks[0].conversation: a conversation needs 'turns', 'user_simulator' or 'phases'"),
        (
            "{turns: [hi], phases: [{turns: [hi]}]}",
            "tasks[0].conversation: give 'phases', or 'turns' and 'user_simulator', not both",
        ),
        (
            "{phases: [{}]}",
            "tasks[0].conversation.phases[0]: a phase has one of 'turns', 'user_simulator' or 'person'",
        ),
    ],
)
def test_a_conversation_written_wrong_is_refused(conversation, message, bench_cli, bench_suite_file):
    suite = f"tasks:\n  - id: t\n    response: x\n    conversation: {conversation}\n    evaluate: {{expected: x}}\n"
    result = bench_cli("validate", bench_suite_file(suite))
    assert result.exit_code == 2
    assert message in result.output


COMMAND_SUITE = """\
target: {{type: command, command: [{python}, reply.py, "{{messages_file}}"]}}
tasks:
  - id: t
    conversation:
      phases:
        - turns: [one]
        - turns: [two]
    evaluate: {{type: contains, value: "2 user messages"}}
"""

REPLY = """\
import json, sys
messages = json.load(open(sys.argv[1]))
print(f"{sum(m['role'] == 'user' for m in messages)} user messages, last {messages[-1]['content']}")
"""


def test_a_command_target_reads_the_history_from_its_messages_file(bench_cli, bench_suite_file, tmp_path):
    (tmp_path / "reply.py").write_text(REPLY)
    suite = bench_suite_file(COMMAND_SUITE.format(python=json.dumps(sys.executable)))
    result = bench_cli("run", suite, "-q", "-o", "out.json")
    assert result.exit_code == 0, result.output
    [task] = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert [m["content"] for m in task["conversation"]["messages"]] == [
        "one",
        "1 user messages, last one",
        "two",
        "2 user messages, last two",
    ]
