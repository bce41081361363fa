"""The target's tool calls and their results stay in the history it receives the next turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.testing.server import Reply

SUITE = """\
name: lookup
target:
  type: litellm
  model: openai/fake
  tools:
    - name: find_order
      description: An order's state.
      input_schema: {type: object, properties: {order: {type: integer}}}
  tool_mocks:
    - {name: find_order, response: "order 7: lost in transit"}
tasks:
  - id: refund
    conversation: {turns: [Where is order 7?, Can I have a refund?]}
    evaluate: {type: contains, value: refund started}
"""


def answer(body: dict[str, Any]) -> Reply:
    """Turn 1: look the order up, then say what the tool said; turn 2: start the refund."""
    said = body["messages"]
    if said[-1]["role"] == "tool":
        return Reply("It was lost in transit.")
    if said[-1]["content"] == "Where is order 7?":
        call = {"name": "find_order", "arguments": {"order": 7}, "id": "c1"}
        return Reply(content=None, tool_calls=[call], finish_reason="tool_calls")
    return Reply("refund started")


def test_tool_calls_and_results_are_sent_back_in_the_next_turns_messages(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path: Path
):
    bench_fake_llm.default = answer
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "-o", "out.json")
    assert result.exit_code == 0, result.output
    second_turn = bench_fake_llm.requests[-1].body["messages"]
    shown = [
        (m["role"], m.get("content"), [c["function"]["name"] for c in m.get("tool_calls") or []])
        for m in second_turn
    ]
    assert shown == [
        ("user", "Where is order 7?", []),
        ("assistant", None, ["find_order"]),
        ("tool", "order 7: lost in transit", []),
        ("assistant", "It was lost in transit.", []),
        ("user", "Can I have a refund?", []),
    ]
    assert second_turn[2]["tool_call_id"] == "c1"
    [task] = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert [m["role"] for m in task["conversation"]["messages"]] == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
    ]
    assert task["conversation"]["turns"][0]["tool_calls"][0]["name"] == "find_order"
