"""``over:`` applies any evaluator to each turn, the last turn (the default) or the transcript;
a recorded transcript is judged the same way, with no target call."""

from __future__ import annotations

import json
from pathlib import Path

SUITE = """\
name: recorded
tasks:
  - id: support
    response:
      messages:
        - {role: user, content: hello}
        - {role: assistant, content: "Hello! How can I help?"}
        - {role: user, content: my parcel}
        - {role: assistant, content: "It ships tomorrow."}
    evaluate:
      - {name: last, type: contains, value: tomorrow}
      - {name: every, type: contains, value: "!", over: each_turn}
      - {name: whole, type: contains, value: "user: my parcel", over: transcript}
"""
MESSAGES = [
    {"role": "user", "content": "hello"},
    {"role": "assistant", "content": "Hello! How can I help?"},
    {"role": "user", "content": "my parcel"},
    {"role": "assistant", "content": "It ships tomorrow."},
]


def _evaluators(tmp_path: Path) -> dict[str, dict]:
    [task] = json.loads((tmp_path / "out.json").read_text())["tasks"]
    return {e["name"]: e for e in task["evaluators"]}


def test_an_evaluator_judges_each_turn_the_last_or_the_transcript(bench_cli, bench_suite_file, tmp_path):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "-o", "out.json")
    assert result.exit_code == 1, result.output
    found = _evaluators(tmp_path)
    assert found["last"]["passed"]
    assert found["whole"]["passed"]
    every = found["every"]
    assert (every["passed"], every["reason"], every["details"]["turn"]) == (
        False,
        "turn 2: not found: '!'",
        2,
    )
    assert [(t["turn"], t["passed"]) for t in every["details"]["turns"]] == [(1, True), (2, False)]


def test_a_recorded_transcript_keeps_its_messages_and_last_reply(bench_cli, bench_suite_file, tmp_path):
    bench_cli("run", bench_suite_file(SUITE), "-q", "-o", "out.json")
    [task] = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert task["response"] == "It ships tomorrow."
    assert [t["by"] for t in task["conversation"]["turns"]] == ["recorded", "recorded"]
    assert len(task["conversation"]["messages"]) == 4


def test_over_must_be_one_of_three(bench_cli, bench_suite_file):
    suite = SUITE.replace("over: each_turn", "over: every_turn")
    result = bench_cli("validate", bench_suite_file(suite))
    assert result.exit_code == 2
    assert "over: Input should be 'last_turn', 'each_turn' or 'transcript'" in result.output


def test_a_jsonl_of_transcripts_is_judged_as_a_recorded_transcript(bench_cli, bench_suite_file, tmp_path):
    """A ``recorded`` target's JSONL rows hold transcripts (``response: {messages}``): no target call."""
    rows = [{"id": "support", "response": {"messages": MESSAGES}}]
    (tmp_path / "transcripts.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    head, tail = SUITE.split("    response:\n", 1)
    suite = head.replace("tasks:\n", "target: {type: recorded, file: transcripts.jsonl}\ntasks:\n")
    suite += "    prompt: hello\n" + tail[tail.index("    evaluate:") :]
    assert bench_cli("run", bench_suite_file(suite), "-q", "-o", "out.json").exit_code == 1
    [task] = json.loads((tmp_path / "out.json").read_text())["tasks"]
    assert (task["response"], [t["by"] for t in task["conversation"]["turns"]]) == (
        "It ships tomorrow.",
        ["recorded", "recorded"],
    )
    assert _evaluators(tmp_path)["every"]["reason"] == "turn 2: not found: '!'"
