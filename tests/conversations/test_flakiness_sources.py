"""Run statistics split a conversation's variance: the simulated user's share apart."""

from __future__ import annotations

from bench.scoring.run_stats import run_statistics


def _run(task: str, score: float, user: str) -> dict:
    return {"id": task, "status": "passed", "passed": True, "score": score, "user": user}


def test_runs_that_met_the_same_user_split_the_users_share_from_the_systems():
    results = [
        _run("refund", 1.0, "patient"),
        _run("refund", 1.0, "patient"),
        _run("refund", 0.0, "angry"),
        _run("refund", 0.0, "angry"),
    ]
    users = run_statistics(results)["variance"]["simulated_user"]
    assert users["system_and_judge"] == 0.0
    assert users["variance"] > 0
    assert (users["user_share"], users["hint"]) == (1.0, "most variation comes from the simulated user")


def test_runs_that_each_met_another_user_say_the_share_cannot_be_split():
    results = [_run("refund", 1.0, "a"), _run("refund", 0.0, "b")]
    users = run_statistics(results)["variance"]["simulated_user"]
    assert users["variance"] is None
    assert users["hint"].startswith("every run met a different simulated user")


def test_the_console_says_the_users_share():
    from bench.report.console import statistics_lines

    results = [
        _run("refund", 1.0, "p"),
        _run("refund", 1.0, "p"),
        _run("refund", 0.0, "q"),
        _run("refund", 0.0, "q"),
    ]
    lines = statistics_lines(run_statistics(results))
    assert lines[-1] == (
        "simulated user: 0.3333, system and judge 0.0000 (100% the user): most variation comes from the simulated user"
    )
