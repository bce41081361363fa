"""turn_count, tool_called_before and never_said read a response's transcript, turn by turn."""

from __future__ import annotations

import pytest

from bench import BenchError, Response
from bench.llm import Message
from bench.testing import run_evaluator

REFUND_CALL = {"id": "c1", "type": "function", "function": {"name": "issue_refund", "arguments": "{}"}}
TRANSCRIPT = Response(
    messages=[
        Message(role="user", content="my parcel never came"),
        Message(role="assistant", content="What is the order number?"),
        Message(role="user", content="It is 7."),
        Message(role="assistant", content="Done.", tool_calls=[REFUND_CALL]),
        Message(role="user", content="Thanks"),
        Message(role="assistant", content="As an AI, I am glad to help."),
    ]
).with_last_reply()


def test_turn_count_counts_answered_turns_against_its_bounds():
    assert run_evaluator({"type": "turn_count", "max": 3}, TRANSCRIPT).passed
    fewer = run_evaluator({"type": "turn_count", "max": 2}, TRANSCRIPT)
    assert not fewer.passed
    assert fewer.reason == "3 answered turns (at most 2 allowed)"


def test_turn_count_without_bounds_is_refused():
    with pytest.raises(BenchError, match="give min, max or both"):
        run_evaluator({"type": "turn_count"}, TRANSCRIPT)


def test_tool_called_before_names_the_turn_of_the_call():
    assert run_evaluator({"type": "tool_called_before", "tool": "issue_refund", "turn": 3}, TRANSCRIPT).passed
    late = run_evaluator({"type": "tool_called_before", "tool": "issue_refund", "turn": 2}, TRANSCRIPT)
    assert (late.passed, late.reason, late.details) == (
        False,
        "issue_refund first called in turn 2, not before turn 2",
        {"turn": 2},
    )
    never = run_evaluator({"type": "tool_called_before", "tool": "escalate", "turn": 2}, TRANSCRIPT)
    assert (never.passed, never.reason) == (False, "escalate was never called")


def test_never_said_points_at_the_turn_and_message_that_said_it():
    outcome = run_evaluator({"type": "never_said", "phrases": ["as an ai"]}, TRANSCRIPT)
    assert (outcome.passed, outcome.reason, outcome.details) == (
        False,
        "turn 3: the assistant said 'as an ai'",
        {"turn": 3, "message": 5},
    )
    assert run_evaluator({"type": "never_said", "phrases": ["refund"]}, TRANSCRIPT).passed


@pytest.mark.parametrize(
    "config",
    [
        {"type": "never_said", "phrases": ["as an AI"]},
        {"type": "turn_count", "max": 3},
        {"type": "tool_called_before", "tool": "issue_refund", "turn": 2},
    ],
    ids=["never_said", "turn_count", "tool_called_before"],
)
def test_conversation_checks_of_a_response_without_a_transcript_are_errors_not_passes(config):
    """A plain answer has no messages to read: never_said passed it unread, though it said the phrase."""
    outcome = run_evaluator(config, Response(output="As an AI, I cannot help."))
    assert (outcome.passed, outcome.error) == (
        False,
        f"{config['type']} reads a conversation's messages, and this response has none: give the "
        "task a conversation: or a recorded response with messages",
    )
