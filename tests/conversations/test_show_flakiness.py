"""``bench show RUN`` prints the flakiness split by source, the simulated user's share included."""

from __future__ import annotations

from itertools import count
from typing import Any

from bench.testing.server import Reply
from tests.conversations.test_simulated_user import SUITE


def two_users(server: Any) -> None:
    """Every other conversation meets a user who asks for a refund (score 1) or who gives up (0.5)."""
    openings = count()
    users: list[int] = []

    def answer(body: dict[str, Any]) -> Reply:
        if body["model"] == "gpt-4o-mini":
            said = [m for m in body["messages"] if m["role"] == "assistant"]
            if not said:
                users.append(next(openings) % 2)
                return Reply("I want a refund." if users[-1] == 0 else "Where is my parcel?")
            return Reply("Never mind. [done]")
        last = body["messages"][-1]["content"]
        return Reply("refund issued" if "refund" in last else "Let me check that for you.")

    server.default = answer


def test_show_prints_the_simulated_users_share_of_the_variance(bench_cli, bench_suite_file, bench_fake_llm):
    two_users(bench_fake_llm)
    suite = bench_suite_file(SUITE.replace("tasks:\n", "concurrency: 1\ntasks:\n"))
    assert bench_cli("run", suite, "-q", "--repeat", "4").exit_code == 1
    shown = bench_cli("show", "latest")
    assert shown.exit_code == 0, shown.output
    assert "flaky tasks (1): refund" in shown.stdout
    assert (
        "simulated user: 0.0833, system and judge 0.0000 (100% the user): "
        "most variation comes from the simulated user"
    ) in shown.stdout
