"""String checks; expected verdicts follow AgentClash's string_validators_test.go and AI Eval's guide."""

from __future__ import annotations

import time

import pytest

from bench import BenchError, Response, Task
from bench.llm import ToolCall
from bench.testing import run_evaluator

# Behaviour that differs between Python versions: these run on every Python (noxfile.py).
pytestmark = pytest.mark.every_python


@pytest.mark.parametrize(
    ("settings", "response", "passed"),
    [
        ({"type": "exact_match", "value": "Hello, world!"}, "Hello, world!", True),
        ({"type": "exact_match", "value": "Hello, world!"}, "Hello, world! ", False),
        ({"type": "exact_match", "value": "Hello", "trim": True}, "  Hello\n", True),
        ({"type": "exact", "value": "PARIS", "case_insensitive": True}, "paris", True),
        ({"type": "exact_match", "value": 42}, "42", True),
        ({"type": "contains", "value": ["hello", "world"]}, "hello wide world", True),
        ({"type": "contains", "value": ["hello", "world"]}, "hello there", False),
        ({"type": "contains", "value": ["hi", "hello"], "mode": "any"}, "hello", True),
        ({"type": "contains", "value": "Hello"}, "hello", False),
        ({"type": "icontains", "value": "hello"}, "HELLO", True),
        ({"type": "icontains", "value": "straße"}, "STRASSE", True),  # full Unicode case folding
        ({"type": "not_contains", "value": ["I can't", "I won't"]}, "Sure.", True),
        ({"type": "not_contains", "value": ["I can't", "I won't"]}, "I won't do that", False),
        ({"type": "starts_with", "value": "Dear"}, "  Dear Sir", True),
        ({"type": "starts_with", "value": "Dear"}, "Hi, Dear", False),
        ({"type": "regex", "value": r"^\d{4}-\d{2}-\d{2}$"}, "2024-01-31", True),
        ({"type": "regex", "value": [r"^\d+", r"end$"]}, "12 the end", True),
        ({"type": "regex", "value": [r"^\d+", r"end$"]}, "12 the end.", False),
        ({"type": "regex", "value": r"^caf.\.$"}, "café.", True),  # one character, two bytes
        ({"type": "regex", "value": r"^€.{2}$"}, "€€€", True),
        ({"type": "regex", "value": r"^.{4}$"}, "€€€", False),
        (
            {"type": "regex_match", "value": r"(\w+) \1"},
            "hello hello",
            True,
        ),  # backreference: fallback engine
        ({"type": "boolean_assert", "value": True}, "True", True),
        ({"type": "boolean_assert", "value": True}, " yes. ", True),
        ({"type": "boolean_assert", "value": False}, "1", False),
    ],
)
def test_string_checks(settings, response, passed):
    outcome = run_evaluator(settings, response)
    assert outcome.error is None, outcome.error
    assert outcome.passed is passed, outcome.reason


def test_contains_scores_the_fraction_found():
    outcome = run_evaluator({"type": "contains", "value": ["a1", "b2", "c3", "d4"]}, "a1 c3")
    assert outcome.score == 0.5
    assert outcome.reason == "not found: 'b2', 'd4'"


def test_boolean_assert_refuses_a_response_that_is_not_a_boolean():
    outcome = run_evaluator({"type": "boolean_assert", "value": True}, "maybe")
    assert outcome.error == "the response 'maybe' is not a boolean (true/false, yes/no, 1/0)"


def test_expected_from_supplies_the_value_agentclash_style():
    task = Task(id="t", prompt="capital?", expectations={"answer": "Paris"})
    settings = {"type": "exact_match", "expected_from": "case.expectations.answer"}
    assert run_evaluator(settings, "Paris", task=task).passed
    assert not run_evaluator(settings, "Lyon", task=task).passed
    literal = {"type": "regex_match", "expected_from": r"literal:^order #\d+$"}
    assert run_evaluator(literal, "order #12").passed


def test_a_comparison_without_any_expected_value_is_refused():
    with pytest.raises(BenchError, match=r"set value \(or expected_from: an evidence reference\)"):
        run_evaluator({"type": "exact_match"}, "x")


def test_d06_invalid_regex_is_refused_when_the_suite_is_loaded():
    with pytest.raises(BenchError, match=r"invalid regex '\(unclosed'"):
        run_evaluator({"type": "regex", "value": "(unclosed"}, "x")


def test_d05_catastrophic_pattern_on_50000_characters_finishes_at_once():
    text = "a" * 50_000 + "!"
    started = time.perf_counter()
    for pattern in (r"(a+)+$", r"^(a|aa)+$"):
        outcome = run_evaluator({"type": "regex", "value": pattern}, text)
        assert outcome.error is None
    assert time.perf_counter() - started < 1.0


def test_d05_a_fallback_pattern_that_backtracks_times_out_as_an_evaluator_error():
    # RE2 rejects the backreference, so this runs on the bounded engine and must time out.
    outcome = run_evaluator({"type": "regex", "value": r"^(a|aa)+\1$"}, "a" * 60 + "b")
    assert outcome.error is not None
    assert outcome.error.startswith("regex timed out after 1 s")


@pytest.mark.parametrize(
    ("pipeline", "actual", "expected", "passed"),
    [
        (None, "  Hello   World ", "hello world", True),
        (None, "Hello, World", "hello world", False),
        (["lowercase", "strip_punctuation", "collapse_whitespace"], "Hello, World!", "hello world", True),
        (["lowercase", "remove_articles", "collapse_whitespace", "trim"], "The cat", "cat", True),
        (["strip_currency", "strip_formatting", "trim"], "$1,000", "1000", True),
        (["normalize_unicode"], "ﬁle", "file", True),  # NFKC folds the ligature
        (["sort_words"], "b a c", "a b c", True),
        (["sort_lines"], "b\na", "a\nb", True),
    ],
)
def test_normalized_match_pipeline(pipeline, actual, expected, passed):
    settings = {"type": "normalized_match", "value": expected}
    if pipeline is not None:
        settings["pipeline"] = pipeline
    assert run_evaluator(settings, actual).passed is passed


def test_normalized_match_refuses_unknown_steps_and_mixed_keys():
    with pytest.raises(BenchError, match=r"pipeline\[0\]: Input should be 'trim', .* \(got 'uppercase'\)"):
        run_evaluator({"type": "normalized_match", "value": "x", "pipeline": ["uppercase"]}, "x")
    with pytest.raises(BenchError, match="cannot mix pipeline with normalizations"):
        run_evaluator(
            {"type": "normalized_match", "value": "x", "pipeline": ["trim"], "normalizations": ["trim"]}, "x"
        )


@pytest.mark.parametrize(
    ("actual", "expected", "config", "similarity"),
    [
        ("kitten", "sitting", {}, 10 / 13),  # Levenshtein 3: (6 + 7 - 3) / 13, as AgentClash computes it
        ("Paris", "Paris", {}, 1.0),
        ("", "", {}, 1.0),
        ("HELLO", "hello", {"case_insensitive": True}, 1.0),
        ("  a   b ", "a b", {"normalize": True}, 1.0),
    ],
)
def test_fuzzy_match_similarity_matches_agentclash(actual, expected, config, similarity):
    outcome = run_evaluator({"type": "fuzzy_match", "value": expected, **config}, actual)
    assert outcome.score == pytest.approx(similarity)


def test_fuzzy_match_threshold_decides():
    assert not run_evaluator({"type": "fuzzy_match", "value": "sitting"}, "kitten").passed  # 0.77 < 0.8
    assert run_evaluator({"type": "fuzzy_match", "value": "sitting", "threshold": 0.75}, "kitten").passed
    with pytest.raises(BenchError, match=r"threshold: Input should be less than or equal to 1 \(got 1.5\)"):
        run_evaluator({"type": "fuzzy_match", "value": "x", "threshold": 1.5}, "x")


def test_fuzzy_match_refuses_oversized_inputs():
    outcome = run_evaluator({"type": "fuzzy_match", "value": "x"}, "y" * 100_001)
    assert outcome.error == "fuzzy_match input too large: more than 100,000 characters"


def test_any_check_can_be_negated():
    negated = run_evaluator({"type": "contains", "value": "error", "negate": True}, "all good")
    assert negated.passed
    assert negated.reason.startswith("negated: ")
    assert not run_evaluator({"type": "contains", "value": "good", "negate": True}, "all good").passed
    prefixed = run_evaluator({"type": "not-is_json"}, "plain text")  # promptfoo's not- prefix
    assert prefixed.passed
    assert prefixed.reason.startswith("negated: ")
    assert not run_evaluator({"type": "not-is_json"}, "[1, 2]").passed


def test_tool_calls_section_lets_contains_and_regex_see_the_calls_as_ai_eval_does():
    response = Response(
        output="Routing.",
        tool_calls=[ToolCall(name="codeagent", arguments={"agent": "develop", "note": "a<b", "n": 2.0})],
    )
    # AI Eval's buildFullResponse: the text, then each call with its input as Go's MarshalIndent writes it.
    section = (
        "## Response Text\nRouting.\n\n## Tool Calls Made\n\n### Tool Call 1\n- **Tool:** `codeagent`\n"
        '- **Input:**\n```json\n{\n  "agent": "develop",\n  "n": 2,\n  "note": "a\\u003cb"\n}\n```\n'
    )
    found = run_evaluator(
        {"type": "contains", "value": ["develop", section], "tool_calls_section": True}, response
    )
    assert (found.passed, found.score) == (True, 1.0)
    plain = run_evaluator({"type": "contains", "value": ["develop"]}, response)
    assert (plain.passed, plain.score) == (False, 0.0)
    matched = run_evaluator({"type": "regex", "value": "`codeagent`", "tool_calls_section": True}, response)
    assert matched.passed is True
    assert run_evaluator({"type": "regex", "value": "`codeagent`"}, response).passed is False
    # Without tool calls the text is the response alone.
    alone = run_evaluator({"type": "regex", "value": "^Routing\\.$", "tool_calls_section": True}, "Routing.")
    assert alone.passed is True
