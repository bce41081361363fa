"""numeric_match and math_equivalence on the hard cases."""

from __future__ import annotations

import pytest

from bench import BenchError
from bench.testing import run_evaluator


@pytest.mark.parametrize(
    ("response", "settings", "passed"),
    [
        (repr(0.1 + 0.2), {"value": 0.3, "absolute_tolerance": 1e-9}, True),  # 0.30000000000000004
        (repr(0.1 + 0.2), {"value": 0.3}, False),  # no tolerance: exact equality, as AgentClash
        ("98", {"value": 100, "relative_tolerance": 0.05}, True),
        ("94", {"value": 100, "relative_tolerance": 0.05}, False),
        ("94", {"value": 100, "relative_tolerance": 0.05, "absolute_tolerance": 10}, True),  # either one
        ("It costs $1,234.50", {"value": 1234.5, "extract_number": True}, True),
        ("Growth was 12.5%", {"value": "12.5", "extract_number": True}, True),
        ("3.14159", {"value": 3.14, "significant_digits": 3}, True),
        ("1e3", {"value": 1000}, True),
        ("101", {"value": 100, "tolerance": 0.02}, True),  # legacy form: relative by default
        ("101", {"value": 100, "tolerance": 0.5, "tolerance_mode": "absolute"}, False),
        ("0", {"value": 0}, True),
    ],
)
def test_numeric_match(response, settings, passed):
    outcome = run_evaluator({"type": "numeric_match", **settings}, response)
    assert outcome.error is None, outcome.error
    assert outcome.passed is passed, outcome.reason


def test_numeric_match_errors_are_explicit():
    outcome = run_evaluator({"type": "numeric_match", "value": 3}, "three")
    assert outcome.error == "'three' is not a number (set extract_number: true to find a number inside text)"
    outcome = run_evaluator({"type": "numeric_match", "value": 3, "extract_number": True}, "no digits")
    assert outcome.error == "no numeric value found in 'no digits'"
    with pytest.raises(BenchError, match="cannot mix tolerance_mode/tolerance with absolute_tolerance"):
        run_evaluator({"type": "numeric_match", "value": 1, "tolerance": 0.1, "absolute_tolerance": 1}, "1")
    with pytest.raises(BenchError, match=r"absolute_tolerance: Input should be greater than or equal to 0"):
        run_evaluator({"type": "numeric_match", "value": 1, "absolute_tolerance": -1}, "1")


@pytest.mark.parametrize(
    ("response", "expected", "passed"),
    [
        (r"\frac{1}{2}", "0.5", True),
        ("0.5", r"\frac{1}{2}", True),
        (r"The answer is $\frac{3}{4}$.", "0.75", True),
        (r"\boxed{42}", "42", True),
        ("x^2+2x+1", "(x+1)^2", True),
        ("x^2+2x+1", "(x+1)^3", False),
        (r"\sqrt{2}", "1.41421356237", True),  # numeric fallback within 1e-6
        ("1/3", "0.33", False),
        ("3", "4", False),
    ],
)
def test_math_equivalence(response, expected, passed):
    outcome = run_evaluator({"type": "math_equivalence", "value": expected}, response)
    assert outcome.error is None, outcome.error
    assert outcome.passed is passed, outcome.reason


def test_math_equivalence_extracts_the_gsm8k_answer():
    response = "Natalia sold 48 clips in April and 24 in May.\n#### 72"
    assert run_evaluator({"type": "math_equivalence", "value": 72, "extract_answer": True}, response).passed
    earlier = "48 clips in April.\n#### 72"
    assert not run_evaluator(
        {"type": "math_equivalence", "value": 48, "extract_answer": True}, earlier
    ).passed


def test_math_equivalence_numeric_mode_uses_the_tolerance():
    settings = {"type": "math_equivalence", "value": "1/3", "comparison_mode": "numeric", "tolerance": 0.01}
    assert run_evaluator(settings, "0.33").passed
    assert not run_evaluator({**settings, "tolerance": 1e-6}, "0.33").passed


def test_math_equivalence_without_an_answer_fails_with_the_reason():
    outcome = run_evaluator({"type": "math_equivalence", "value": "2"}, "I do not know")
    assert not outcome.passed
    assert outcome.reason == "no mathematical answer found in 'I do not know'"
