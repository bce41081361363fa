"""A budget on the simulated user's share: its calls' spend stops the run, and the run says so."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conversations.test_simulated_user import SUITE, play, simulator_calls

TWO = SUITE.replace("tasks:\n", "concurrency: 1\nruntime_limits: {max_simulator_tokens: 20}\ntasks:\n") + (
    SUITE[SUITE.index("  - id: refund") :].replace("id: refund", "id: second").replace("parcel", "letter")
)


def test_the_simulators_spend_stops_the_run_and_the_message_names_it(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path: Path
):
    play(bench_fake_llm)
    result = bench_cli("run", bench_suite_file(TWO), "-q", "-o", "out.json")
    assert result.exit_code == 3, result.output
    stopped = "budget runtime_limits.max_simulator_tokens (the simulated user's calls) reached"
    assert stopped in result.output
    report = json.loads((tmp_path / "out.json").read_text())
    # 15 tokens a fake call: the first conversation's two user messages reach 30 >= 20, so the
    # second conversation's first user message is never asked for; the target's tokens do not count.
    assert [t["status"] for t in report["tasks"]] == ["passed", "interrupted"]
    assert report["llm"]["simulator"]["tokens"] == 30
    assert report["llm"]["total_tokens"] > 30
    assert simulator_calls(bench_fake_llm) == 2
