"""examples/conversation runs offline: a scripted user, and a simulated user played by the fake server."""

from __future__ import annotations

import json
from pathlib import Path

from bench.testing.server import Reply

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "conversation"


def _play_the_user(server) -> None:
    for rule in json.loads((EXAMPLE / "fake-user.json").read_text()):
        server.add(Reply(rule["reply"]), match=rule["match"])


def test_example_runs_offline_and_fails_only_the_recorded_transcript(bench_cli, bench_fake_llm, tmp_path):
    _play_the_user(bench_fake_llm)
    result = bench_cli("run", EXAMPLE / "suite.yaml", "-o", "out.json")
    assert result.exit_code == 1, result.output
    tasks = {t["id"]: t for t in json.loads((tmp_path / "out.json").read_text())["tasks"]}
    assert {i: t["status"] for i, t in tasks.items()} == {
        "scripted": "passed",
        "simulated": "passed",
        "recorded": "failed",
        "looked-up": "passed",
    }
    [looked_up] = tasks["looked-up"]["evaluators"]
    assert looked_up["reason"] == "find_order called in turn 1"
    simulated = tasks["simulated"]["conversation"]["messages"]
    assert [(m["role"], m["content"]) for m in simulated] == [
        ("user", "Hi, my parcel never came."),
        ("assistant", "Sorry to hear that! What is your order number?"),
        ("user", "It is order 7."),
        ("assistant", "Thanks! I have started a refund for order 7."),
    ]
    [remembers] = tasks["recorded"]["evaluators"]
    assert remembers["details"] == {"turn": 1, "message": 1}

    calls = bench_fake_llm.count()
    assert calls == 2
    again = bench_cli("run", EXAMPLE / "suite.yaml", "-o", "again.json")
    assert again.exit_code == 1, again.output
    assert bench_fake_llm.count() == calls  # the simulated user replayed from the cache


def test_d23_a_rescore_judges_each_conversation_on_its_stored_transcript(bench_cli, bench_fake_llm, tmp_path):
    _play_the_user(bench_fake_llm)
    assert bench_cli("run", EXAMPLE / "suite.yaml", "-o", "run.json").exit_code == 1
    calls = bench_fake_llm.count()
    rescored = bench_cli("rescore", "latest", "-o", "rescored.json")
    assert rescored.exit_code == 1, rescored.output
    assert bench_fake_llm.count() == calls  # no simulated user, no target: the transcript is the answer

    def kept(name: str) -> dict[str, tuple]:
        tasks = json.loads((tmp_path / name).read_text())["tasks"]
        return {t["id"]: (t["status"], t["evaluators"], t["conversation"]) for t in tasks}

    assert kept("rescored.json") == kept("run.json")
