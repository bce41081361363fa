"""task_completion and confidence_calibration against the fake server (real litellm calls)."""

from __future__ import annotations

import pytest

from bench import Response
from bench.testing import judge_verdict, run_evaluator

MODEL = "openai/fake-judge"
RESPONSE = Response.model_validate(
    {
        "output": "Fixed add() and all tests pass.",
        "tool_calls": [{"name": "run_command", "arguments": {"command": "pytest"}}],
        "artifacts": {
            "diff": {
                "files": [],
                "patch": "--- a/calc.py\n+++ b/calc.py\n-    return a - b\n+    return a + b\n",
            }
        },
    }
)


def prompt_of(bench_fake_llm) -> str:
    return next(m["content"] for m in bench_fake_llm.requests[-1].body["messages"] if m["role"] == "user")


def test_task_completion_scores_the_criteria_met(bench_fake_llm):
    bench_fake_llm.default = judge_verdict(
        reason="fixed, but untested",
        criteria=[
            {"criterion": "add() returns the sum", "met": True, "reason": "the diff fixes it"},
            {"criterion": "a test was added", "met": False, "reason": "no test file in the diff"},
        ],
    )
    settings = {
        "type": "task_completion",
        "task": "Fix add() and add a test",
        "criteria_list": ["add() returns the sum", "a test was added"],
        "model": MODEL,
        "score_threshold": 0.7,
    }
    outcome = run_evaluator(settings, RESPONSE)
    assert outcome.error is None, outcome.error
    assert (outcome.passed, outcome.score) == (False, 0.5)
    assert outcome.reason.startswith("1 of 2 criteria met; not met: a test was added (fixed, but untested)")
    assert outcome.details["prompt_version"] == "agent-1"
    prompt = prompt_of(bench_fake_llm)
    assert "[1] add() returns the sum\n[2] a test was added" in prompt
    assert "+    return a + b" in prompt  # the judge sees the diff
    assert 'run_command({"command": "pytest"})' in prompt  # and the trajectory


def test_task_completion_wrong_number_of_criteria_is_an_evaluator_error(bench_fake_llm):
    bench_fake_llm.default = judge_verdict(criteria=[{"criterion": "only one", "met": True, "reason": ""}])
    settings = {"type": "task_completion", "task": "t", "criteria_list": ["a", "b", "c"], "model": MODEL}
    outcome = run_evaluator(settings, RESPONSE)
    assert outcome.error == "judge openai/fake-judge gave 1 criterion verdicts for 3 criteria"


def test_task_completion_without_criteria_uses_the_judges_score(bench_fake_llm):
    bench_fake_llm.default = judge_verdict(score=0.8, reason="mostly done")
    outcome = run_evaluator({"type": "task_completion", "task": "t", "model": MODEL}, RESPONSE)
    assert (outcome.passed, outcome.score, outcome.reason) == (True, 0.8, "mostly done")


def test_confidence_calibration_is_a_gated_signal_judged_by_a_model(bench_fake_llm):
    bench_fake_llm.default = judge_verdict(score=0.2, reason="claims tests pass, but none ran successfully")
    settings = {"type": "confidence_calibration", "model": MODEL, "pass_threshold": 0.6, "gate": True}
    outcome = run_evaluator(settings, RESPONSE)
    assert (outcome.passed, outcome.score) == (False, 0.2)
    assert outcome.details["gate"] is True
    assert "Fixed add() and all tests pass." in prompt_of(bench_fake_llm)


def test_confidence_calibration_with_a_panel_keeps_its_gate_and_threshold(bench_fake_llm):
    bench_fake_llm.add(judge_verdict(score=0.9, reason="honest"), model="judge-a")
    bench_fake_llm.add(judge_verdict(score=0.3, reason="overconfident"), model="judge-b")
    settings = {
        "type": "confidence_calibration",
        "models": ["openai/judge-a", "openai/judge-b"],
        "panel": "median",
        "pass_threshold": 0.7,
        "gate": True,
    }
    outcome = run_evaluator(settings, RESPONSE)
    assert outcome.error is None, outcome.error
    assert sorted(r.body["model"] for r in bench_fake_llm.requests) == ["judge-a", "judge-b"]
    # per model: 0.9 passes and 0.3 fails at pass_threshold 0.7; the median 0.6 fails too
    assert outcome.details["panel"] == {
        "openai/judge-a": {"passed": True, "score": 0.9},
        "openai/judge-b": {"passed": False, "score": 0.3},
    }
    assert outcome.passed is False
    assert outcome.score == pytest.approx(0.6)
    assert (outcome.details["gate"], outcome.details["pass_threshold"]) == (True, 0.7)
