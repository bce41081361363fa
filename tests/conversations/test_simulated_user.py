"""A simulated user played by the fake server: its calls go through the one client and its cache."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.testing.server import FakeLLMServer, Reply

SUITE = """\
name: support
target: {type: litellm, model: openai/fake}
tasks:
  - id: refund
    conversation:
      user_simulator:
        model: openai/gpt-4o-mini
        persona: a customer whose parcel never came
        goal: get a refund
        max_turns: 4
        stop: {assistant_says: [refund issued]}
    evaluate:
      - {type: contains, value: refund issued}
      - {type: contains, value: "[done]", negate: true, over: transcript}
"""


def play(server: FakeLLMServer) -> None:
    """The target answers "refund issued" once asked for one; the user asks, then asks again."""

    def answer(body: dict[str, Any]) -> Reply:
        if body["model"] == "gpt-4o-mini":  # the simulated user sees the assistant as 'user'
            said = [m for m in body["messages"] if m["role"] == "assistant"]
            return Reply("Where is my parcel?" if not said else "Then I want a refund.")
        last = body["messages"][-1]["content"]
        return Reply("refund issued" if "refund" in last else "Let me check that for you.")

    server.default = answer


def simulator_calls(server: FakeLLMServer) -> int:
    return sum(1 for r in server.requests if r.body.get("model") == "gpt-4o-mini")


def test_a_simulated_user_talks_until_a_stop_condition(bench_cli, bench_suite_file, bench_fake_llm, tmp_path):
    play(bench_fake_llm)
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "-o", "out.json")
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "out.json").read_text())
    [task] = report["tasks"]
    said = [(m["role"], m["content"]) for m in task["conversation"]["messages"]]
    assert said == [
        ("user", "Where is my parcel?"),
        ("assistant", "Let me check that for you."),
        ("user", "Then I want a refund."),
        ("assistant", "refund issued"),
    ]
    assert [t["by"] for t in task["conversation"]["turns"]] == ["simulator", "simulator"]
    assert task["conversation"]["simulator"] == {"calls": 2, "cached": 0}
    assert report["llm"]["simulator"]["calls"] == 2
    system = next(r for r in bench_fake_llm.requests if r.body["model"] == "gpt-4o-mini").body["messages"][0]
    assert "a customer whose parcel never came" in system["content"]
    assert "get a refund" in system["content"]


def test_a_rerun_against_an_unchanged_target_replays_the_user_with_no_call(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path: Path
):
    play(bench_fake_llm)
    suite = bench_suite_file(SUITE)
    assert bench_cli("run", suite, "-q", "-o", "first.json").exit_code == 0
    before = simulator_calls(bench_fake_llm)
    assert before == 2
    assert bench_cli("run", suite, "-q", "-o", "second.json").exit_code == 0
    assert simulator_calls(bench_fake_llm) == before  # zero simulator calls the second time
    first, second = (
        json.loads((tmp_path / n).read_text())["tasks"][0] for n in ("first.json", "second.json")
    )
    assert second["conversation"]["messages"] == first["conversation"]["messages"]
    assert second["conversation"]["simulator"] == {"calls": 2, "cached": 2}


def test_dry_run_counts_every_turn_and_the_simulators_calls(bench_cli, bench_suite_file, bench_fake_llm):
    suite = SUITE.replace("    conversation:\n", "    conversation:\n      turns: [hello]\n")
    dry = bench_cli("run", bench_suite_file(suite), "--dry-run")
    assert dry.exit_code == 0, dry.output
    # 1 scripted + 4 simulated turns: 5 target calls; the simulated user writes at most 4 messages.
    assert "9 model calls" in dry.stdout
    assert "of which 4 by simulated users" in dry.stdout
    assert bench_fake_llm.count() == 0


def test_dry_run_counts_turns_up_to_the_conversation_max_turns(bench_cli, bench_suite_file, bench_fake_llm):
    suite = SUITE.replace(
        "    conversation:\n", "    conversation:\n      max_turns: 3\n      turns: [hello]\n"
    )
    dry = bench_cli("run", bench_suite_file(suite), "--dry-run")
    assert dry.exit_code == 0, dry.output
    # At most 3 turns (3 target calls); the simulated user writes at most 3 of them.
    assert "6 model calls" in dry.stdout
    assert "of which 3 by simulated users" in dry.stdout
    assert bench_fake_llm.count() == 0
