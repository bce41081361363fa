"""The bench ``expected`` matcher, case by case from seed 000."""

from __future__ import annotations

import pytest

from bench import BenchError, Response
from bench.testing import run_evaluator


@pytest.mark.parametrize(
    ("expected", "response", "passed"),
    [
        ("Paris", "The capital is Paris.", True),
        ("Paris", "the capital is paris.", False),  # exact string: case matters
        ("exact value", "this has the exact value inside", True),
        (42, "The answer is 42.", True),
        (42, "42.0", True),
        (42, "420", False),
        (42, "1422", False),
        (42, "x42", False),
        (42, "version 1.42", False),
        (42, "-42 degrees", False),
        (-42, "-42 degrees", True),
        (3.14, "pi is about 3.140", True),
        (3.14, "pi is about 3.14159", False),
        (1000, "It costs 1,000 dollars", True),
        (7, "1,2,7", True),
        (0.1, "0.1", True),
    ],
)
def test_single_values(expected, response, passed):
    outcome = run_evaluator({"expected": expected}, response)
    assert outcome.error is None
    assert outcome.passed is passed
    assert outcome.score == (1.0 if passed else 0.0)


def test_list_requires_all_items_and_scores_the_fraction():
    outcome = run_evaluator({"expected": ["a", "b", "c", 4]}, "a and c and 4")
    assert not outcome.passed
    assert outcome.score == pytest.approx(0.75)
    assert outcome.reason == "not found: 'b'"


def test_list_all_found():
    outcome = run_evaluator({"expected": ["Paris", 42, {"regex": "Ber+lin"}]}, "Paris 42 Berrlin")
    assert outcome.passed
    assert outcome.reason == "found all 3 expected values"


def test_regex_matches_anywhere():
    assert run_evaluator({"expected": [{"regex": r"\d{4}-\d{2}"}]}, "due 2024-05 at noon").passed
    assert not run_evaluator({"expected": {"regex": "^due"}}, "it is due").passed


def test_regex_is_linear_time_on_catastrophic_patterns():
    # D05: RE2 answers at once where a backtracking engine would run for ages.
    outcome = run_evaluator({"expected": {"regex": "^(a|aa)+$"}}, "a" * 50_000 + "b")
    assert outcome.passed is False
    assert outcome.error is None


def test_regex_fallback_engine_times_out_as_an_evaluator_error():
    # A lookahead is beyond RE2, so the bounded fallback engine runs it and gives up (R1).
    outcome = run_evaluator({"expected": {"regex": r"^(?=a)(a|aa)+$"}}, "a" * 41 + "b")
    assert outcome.passed is False
    assert outcome.error == "regex timed out after 1 s: ^(?=a)(a|aa)+$"


def test_expect_error_passes_on_error_text():
    response = Response(error="timed out after 0.5 s")
    outcome = run_evaluator({"expect_error": True, "expected": "timed out"}, response)
    assert outcome.passed
    assert outcome.reason == "found 'timed out'"


def test_expect_error_fails_when_the_target_answered():
    outcome = run_evaluator({"expect_error": True}, "all fine")
    assert not outcome.passed
    assert outcome.reason == "expected an error, but the target returned a response"


def test_nothing_to_check_is_a_config_error():
    with pytest.raises(BenchError) as info:
        run_evaluator({"type": "expected"}, "x")
    assert "Value error, set expected (or expect_error: true)" in str(info.value)


def test_boolean_is_refused_with_a_hint():
    with pytest.raises(BenchError) as info:
        run_evaluator({"expected": True}, "true")
    assert "a boolean is neither text nor a number; quote it ('true') to match the text" in str(info.value)


def test_negate_and_threshold_apply_to_any_evaluator():
    assert run_evaluator({"expected": "rude", "negate": True}, "a polite answer").passed
    partial = {"expected": ["a", "b", "c", "d"], "threshold": 0.75}
    assert run_evaluator(partial, "a b c").passed
    assert not run_evaluator(partial, "a b").passed
