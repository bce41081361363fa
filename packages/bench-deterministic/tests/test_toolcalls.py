"""AI Eval's tool_calls expectations and AgentClash's tool_call_assertion."""

from __future__ import annotations

import pytest

from bench import BenchError, Response
from bench.llm import Message, ToolCall
from bench.testing import run_evaluator


def calls(*pairs: tuple[str, object]) -> Response:
    return Response(output="", tool_calls=[ToolCall(name=n, arguments=a) for n, a in pairs])


WEATHER_THEN_SEARCH = calls(
    ("get_weather", {"location": "San Francisco", "unit": "c"}),
    ("search", {"query": "golang  error wrapping"}),
)


def expect(*expected: dict[str, object], **settings: object) -> dict[str, object]:
    return {"type": "tool_calls", "calls": list(expected), **settings}


def test_unordered_expectations_match_any_position():
    outcome = run_evaluator(expect({"name": "search"}, {"name": "get_weather"}), WEATHER_THEN_SEARCH)
    assert outcome.passed
    assert outcome.score == 1.0


def test_ordered_expectations_must_be_at_their_position():
    assert run_evaluator(
        expect({"name": "get_weather", "order": 1}, {"name": "search", "order": 2}), WEATHER_THEN_SEARCH
    ).passed
    swapped = run_evaluator(
        expect({"name": "search", "order": 1}, {"name": "get_weather", "order": 2}), WEATHER_THEN_SEARCH
    )
    assert not swapped.passed
    assert swapped.score == 0.0
    assert swapped.reason == "missing tool call: search at position 1, get_weather at position 2"


def test_args_match_is_a_subset_match_with_regex_values():
    regex = {"name": "search", "args_match": {"query": r"regex:^golang\s+error\s+wrapping"}}
    assert run_evaluator(expect(regex), WEATHER_THEN_SEARCH).passed
    subset = {"name": "get_weather", "args_match": {"location": "San Francisco"}}
    assert run_evaluator(expect(subset), WEATHER_THEN_SEARCH).passed
    wrong = {"name": "get_weather", "args_match": {"location": "Paris"}}
    assert not run_evaluator(expect(wrong), WEATHER_THEN_SEARCH).passed
    missing_key = {"name": "get_weather", "args_match": {"days": 3}}
    assert not run_evaluator(expect(missing_key), WEATHER_THEN_SEARCH).passed


def test_each_actual_call_satisfies_one_expectation():
    twice = expect({"name": "search"}, {"name": "search"})
    outcome = run_evaluator(twice, WEATHER_THEN_SEARCH)
    assert not outcome.passed
    assert outcome.score == 0.5


def test_optional_calls_count_in_the_score_only():
    settings = expect({"name": "search"}, {"name": "summarize", "required": False})
    outcome = run_evaluator(settings, WEATHER_THEN_SEARCH)
    assert outcome.passed
    assert outcome.score == 0.5
    thresholded = run_evaluator(
        {**settings, "type": "tool_call", "score_threshold": 0.8}, WEATHER_THEN_SEARCH
    )
    assert not thresholded.passed  # AI Eval's tool_call score_threshold decides on the match score


def test_c20_arguments_that_are_not_json_are_reported():
    response = calls(("search", '{"query": "x"'))
    outcome = run_evaluator(expect({"name": "search", "args_match": {"query": "x"}}), response)
    assert not outcome.passed
    assert outcome.reason == "missing tool call: search (call 1 (search): arguments are not valid JSON)"


def test_whitespace_only_arguments_are_no_arguments():
    from bench_deterministic.toolcalls import calls_of

    response = calls(("search", "  \n"), ("search", "  not json"))
    assert [c.arguments for c in calls_of(response)] == [{}, None]
    outcome = run_evaluator(expect({"name": "search", "args_match": {}}), calls(("search", " ")))
    assert outcome.passed, outcome.reason


def test_calls_in_openai_messages_are_read_too():
    message = Message(
        role="assistant",
        content=None,
        tool_calls=[
            {"id": "1", "type": "function", "function": {"name": "search", "arguments": '{"q": "bench"}'}}
        ],
    )
    response = Response(output="", messages=[message])
    assert run_evaluator(expect({"name": "search", "args_match": {"q": "bench"}}), response).passed


def test_bad_expectations_fail_at_load_time():
    with pytest.raises(BenchError, match=r"calls\[0\].order: Input should be greater than or equal to 0"):
        run_evaluator(expect({"name": "a", "order": -1}), WEATHER_THEN_SEARCH)
    with pytest.raises(BenchError, match="invalid regex"):
        run_evaluator(expect({"name": "a", "args_match": {"q": "regex:(oops"}}), WEATHER_THEN_SEARCH)


TRAJECTORY = calls(
    ("lookup_order", {"order_id": "A-17"}),
    ("lookup_order", {"order_id": "A-18"}),
    ("create_refund", {"order_id": "A-17", "reason": "damaged item", "items": ["cup"]}),
)


@pytest.mark.parametrize(
    ("settings", "passed"),
    [
        ({"must_call": ["create_refund"]}, True),
        ({"must_call": ["send_email"]}, False),
        ({"must_not_call": ["delete_account"]}, True),
        ({"must_not_call": ["lookup_order"]}, False),
        ({"call_counts": {"lookup_order": 2}}, True),
        ({"call_counts": {"lookup_order": {"min": 1, "max": 1}}}, False),
        ({"call_counts": {"create_refund": {"exact": 1}}}, True),
        ({"arguments_contain": [{"tool": "create_refund", "arguments": {"reason": "damaged"}}]}, True),
        ({"arguments_contain": [{"tool": "create_refund", "arguments": {"items": "cup"}}]}, True),
        ({"arguments_contain": [{"tool": "create_refund", "arguments": {"order_id": "A-18"}}]}, False),
        ({"ordered_tools": ["lookup_order", "create_refund"]}, True),
        ({"ordered_tools": ["create_refund", "lookup_order"]}, False),
    ],
)
def test_tool_call_assertion(settings, passed):
    outcome = run_evaluator({"type": "tool_call_assertion", **settings}, TRAJECTORY)
    assert outcome.passed is passed, outcome.reason


def test_tool_call_assertion_scores_the_fraction_that_holds_and_names_failures():
    settings = {
        "type": "tool_call_assertion",
        "must_call": ["create_refund", "send_email"],
        "call_counts": {"lookup_order": 1},
    }
    outcome = run_evaluator(settings, TRAJECTORY)
    assert outcome.score == pytest.approx(1 / 3)
    assert (
        outcome.reason == "send_email was never called; lookup_order was called 2 time(s), expected exactly 1"
    )


def test_tool_call_assertion_needs_something_to_assert():
    with pytest.raises(BenchError, match="nothing to assert"):
        run_evaluator({"type": "tool_call_assertion"}, TRAJECTORY)
