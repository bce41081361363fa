"""The conversation metrics: each asks its rubric over the numbered transcript, names a turn."""

from __future__ import annotations

import pytest

from bench import Response
from bench.llm import Message
from bench.testing import judge_verdict, run_evaluator
from bench_llm_judge.conversation import RUBRICS

TRANSCRIPT = Response(
    messages=[
        Message(role="user", content="My order number is 7."),
        Message(role="assistant", content="Thanks. What is your order number?"),
    ]
).with_last_reply()


@pytest.mark.parametrize("name", sorted(RUBRICS))
def test_each_metric_sends_its_rubric_and_the_numbered_transcript(name, bench_fake_llm):
    bench_fake_llm.default = judge_verdict(passed=False, score=0.25, reason="asked again", turn=1)
    settings = {"type": name, "model": "openai/gpt-4o-mini"}
    if name == "role_adherence":
        settings["role"] = "a shop's support agent"
    outcome = run_evaluator(settings, TRANSCRIPT)
    assert (outcome.passed, outcome.score, outcome.details["turn"]) == (False, 0.25, 1)
    [request] = bench_fake_llm.requests
    prompt = request.body["messages"][-1]["content"]
    assert RUBRICS[name].split("{")[0][:40] in prompt
    assert "[turn 1] assistant: Thanks. What is your order number?" in prompt


def test_completeness_takes_the_goal_it_is_given(bench_fake_llm):
    bench_fake_llm.default = judge_verdict(passed=True, score=1.0)
    settings = {"type": "conversation_completeness", "model": "openai/gpt-4o-mini", "goal": "a refund"}
    outcome = run_evaluator(settings, TRANSCRIPT)
    assert outcome.passed
    assert "The user's goal: a refund" in bench_fake_llm.requests[0].body["messages"][-1]["content"]


def test_a_conversation_metric_of_a_response_without_messages_is_an_error_with_no_call(bench_fake_llm):
    """A single answer has no transcript: the judge was asked to score an empty one."""
    bench_fake_llm.default = judge_verdict(passed=True, score=1.0)
    settings = {"type": "knowledge_retention", "model": "openai/gpt-4o-mini"}
    outcome = run_evaluator(settings, Response(output="Sure, what is your order number?"))
    assert (outcome.passed, outcome.error) == (
        False,
        "knowledge_retention reads a conversation's messages, and this response has none: give the "
        "task a conversation: or a recorded response with messages",
    )
    assert bench_fake_llm.requests == []
