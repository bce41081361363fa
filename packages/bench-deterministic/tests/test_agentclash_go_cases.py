"""AgentClash's own Go tests (runtime/scoring, 439e20b): tool_call_assertion, JSONPath, math.

Each case id names the Go test and subtest it comes from; expected verdicts are the Go test's.
"""

from __future__ import annotations

import pytest

from bench import BenchError, Response
from bench.testing import run_evaluator

TRACE = Response.model_validate(
    {
        "output": "",
        "tool_calls": [
            {"name": "search", "arguments": {"query": "x"}},
            {"name": "read_file", "arguments": {"path": "a.txt"}},
            {"name": "read_file", "arguments": {"path": "b.txt"}},
            {"name": "submit", "arguments": {"answer": "done"}},
        ],
    }
)


def calls(*pairs):
    return Response.model_validate(
        {"output": "", "tool_calls": [{"name": n, "arguments": a} for n, a in pairs]}
    )


VERDICTS = [
    (
        "TestToolCallAssertionPresenceAndArgumentFragment",
        {"tool_name": "submit", "arguments_contain": {"answer": {"value": "42"}}},
        calls(("search", {"query": "life"}), ("submit", {"answer": {"value": "42", "secret": "s"}})),
        True,
    ),
    (
        "TestToolCallAssertionArgumentFragmentArraySubset",
        {"tool_name": "submit", "arguments_contain": {"tags": ["urgent"], "steps": [{"status": "done"}]}},
        calls(
            (
                "submit",
                {"tags": ["info", "urgent"], "steps": [{"status": "queued"}, {"status": "done", "id": "f"}]},
            )
        ),
        True,
    ),
    (
        "TestToolCallAssertionArgumentFragmentArraySubsetConsumesMatches",
        {"tool_name": "submit", "arguments_contain": {"steps": ["approve", "approve"]}},
        calls(("submit", {"steps": ["approve"]})),
        False,
    ),
    (
        "TestToolCallAssertionAbsence/no_exec",
        {"tool_name": "exec", "must_call": False},
        calls(("search", {})),
        True,
    ),
    (
        "TestToolCallAssertionAbsence/no_search",
        {"tool_name": "search", "must_call": False},
        calls(("search", {})),
        False,
    ),
    (
        "TestToolCallAssertionCountsAndOrder/read_count",
        {"tool_name": "read_file", "min_count": 2, "max_count": 2},
        TRACE,
        True,
    ),
    (
        "TestToolCallAssertionCountsAndOrder/expected_order",
        {"ordered_tools": ["search", "read_file", "submit"], "order_mode": "subsequence"},
        TRACE,
        True,
    ),
    (
        "TestToolCallAssertionCountsAndOrder/exact_order_fails",
        {"ordered_tools": ["search", "read_file", "submit"], "order_mode": "exact"},
        TRACE,
        False,
    ),
    (
        "TestToolCallAssertionCountsAndOrder/exact_submit_count_fails",
        {"tool_name": "submit", "count": 2},
        TRACE,
        False,
    ),
    ("TestToolCallAssertionCountsAndOrder/zero_exec_count", {"tool_name": "exec", "count": 0}, TRACE, True),
    ("TestToolCallAssertionCountsAndOrder/zero_exec_min", {"tool_name": "exec", "min_count": 0}, TRACE, True),
    (
        "TestToolCallAssertionZeroCountFailsWhenToolObserved",
        {"tool_name": "search", "count": 0},
        calls(("search", {})),
        False,
    ),
]


@pytest.mark.parametrize(("case", "config", "response", "passed"), VERDICTS, ids=[c[0] for c in VERDICTS])
def test_tool_call_assertion(case, config, response, passed):
    outcome = run_evaluator({"type": "tool_call_assertion", "target": "tool_calls", **config}, response)
    assert outcome.error is None
    assert (outcome.passed, outcome.score) == (passed, 1.0 if passed else 0.0), outcome.reason
    if case == "TestToolCallAssertionZeroCountFailsWhenToolObserved":
        assert outcome.reason == "matched tool call count 1 != expected 0"
    if case.endswith("no_search"):
        assert outcome.reason == "forbidden matching tool call was observed"


REFUSED = [  # TestToolCallAssertionValidation: refused when the suite loads, in AgentClash's words
    ("unknown field", {"tool_name": "submit", "typo": True}, "typo: unknown field (did you mean 'type'?)"),
    (
        "invalid count range",
        {"tool_name": "submit", "min_count": 2, "max_count": 1},
        "Value error, min_count must be less than or equal to max_count",
    ),
    (
        "invalid arguments fragment",
        {"tool_name": "submit", "arguments_contain": ["answer"]},
        "Value error, arguments_contain must be a JSON object",
    ),
    (
        "invalid order mode",
        {"ordered_tools": ["search"], "order_mode": "before"},
        'Value error, order_mode must be "subsequence" or "exact"',
    ),
    (
        "must call true with zero count",
        {"tool_name": "submit", "must_call": True, "count": 0},
        "Value error, must_call cannot be true when count is 0",
    ),
    (
        "must call false with positive count",
        {"tool_name": "submit", "must_call": False, "count": 1},
        "Value error, must_call cannot be false when count is greater than 0",
    ),
    (
        "must call true with zero max count",
        {"tool_name": "submit", "must_call": True, "max_count": 0},
        "Value error, must_call cannot be true when max_count is 0",
    ),
    (
        "must call false with positive min count",
        {"tool_name": "submit", "must_call": False, "min_count": 1},
        "Value error, must_call cannot be false when min_count is greater than 0",
    ),
    (
        "wrong target",
        {"tool_name": "submit", "target": "final_output"},
        'Value error, target must be "tool_calls" for tool_call_assertion validators',
    ),
    (
        "expected_from rejected",
        {"tool_name": "submit", "expected_from": "case.expectations.expected_output"},
        "Value error, expected_from must be omitted for tool_call_assertion validators",
    ),
]


@pytest.mark.parametrize(
    ("case", "config", "message"), REFUSED, ids=[f"TestToolCallAssertionValidation/{c[0]}" for c in REFUSED]
)
def test_tool_call_assertion_refusals(case, config, message):
    with pytest.raises(BenchError) as caught:
        run_evaluator({"type": "tool_call_assertion", "target": "tool_calls", **config}, TRACE)
    assert str(caught.value).startswith(f"<test>: {message}")


PATHS = [  # TestExtractJSONPathValue / TestParseJSONPathBracket
    ("TestExtractJSONPathValue/negative_array_index_not_supported", "[1,2,3]", "$[-1]", None),
    ("TestExtractJSONPathValue/bracket_numeric_index", "[10,20,30]", "$[1]", 20),
    ("TestExtractJSONPathValue/bracket_double-quoted_property", '{"a b":1}', '$["a b"]', 1),
    ("TestExtractJSONPathValue/nested_dot_and_bracket", '{"a":[{"b":3}]}', "$.a[0].b", 3),
    ("TestExtractJSONPathValue/array_index_out_of_bounds", "[1]", "$[5]", None),
    ("TestExtractJSONPathValue/access_index_on_object", '{"a":1}', "$[0]", None),
    ("TestParseJSONPathBracket/unquoted_property_fallback", '{"key":"val"}', "$[key]", "val"),
]


@pytest.mark.parametrize(("case", "document", "path", "value"), PATHS, ids=[c[0] for c in PATHS])
def test_json_path(case, document, path, value):
    settings = {"type": "json_path_match", "path": path}
    outcome = run_evaluator({**settings, "value": value} if value is not None else settings, document)
    assert outcome.passed is (value is not None), outcome.reason
    if value is None:
        assert outcome.reason == f"{path} did not resolve to a value"


MATH = [  # TestValidateMathEquivalence, TestNormalizeMathExpression, engine_test math cases
    ("TestValidateMathEquivalence/fraction_decimal_equivalence", "0.5", "1/2", {}, True),
    ("TestValidateMathEquivalence/fraction_ratio_equivalence", "2/4", "1/2", {}, True),
    ("TestValidateMathEquivalence/latex_fraction_equivalence", r"\frac{1}{2}", "0.5", {}, True),
    ("TestValidateMathEquivalence/boxed_answer_equivalence", r"\boxed{42}", "42", {}, True),
    (
        "TestValidateMathEquivalence/extracts_answer_after_delimiter",
        "Reasoning... #### 42",
        "42",
        {"extract_answer": True, "answer_delimiter": "####"},
        True,
    ),
    ("TestValidateMathEquivalence/sqrt_equivalence", r"\sqrt{2}", "2^(1/2)", {}, True),
    ("TestValidateMathEquivalence/commutative_symbolic_equivalence", "x + 1", "1 + x", {}, True),
    ("TestValidateMathEquivalence/scientific_notation_and_percentage", "5e-1", "50%", {}, True),
    ("TestValidateMathEquivalence/different_answers_fail", "41", "42", {}, False),
    (
        "TestValidateMathEquivalence/numeric_mode_uses_tolerance",
        "0.3333334",
        "1/3",
        {"comparison_mode": "numeric", "tolerance": 0.0001},
        True,
    ),
    ("TestNormalizeMathExpression/unicode_sqrt", "√2", r"\sqrt{2}", {}, True),
    (
        "TestNormalizeMathExpression/boxed_frac_after_delimiter",
        r"The answer is $\boxed{\frac{1}{2}}$ #### \boxed{\frac{1}{2}}",
        "1/2",
        {"extract_answer": True},
        True,
    ),
    ("TestEvaluateRunAgent_MathEquivalenceHandlesLatexWrapper", r"$\boxed{\sqrt{2}}$", "2^(1/2)", {}, True),
]


@pytest.mark.parametrize(("case", "response", "expected", "config", "passed"), MATH, ids=[c[0] for c in MATH])
def test_math_equivalence(case, response, expected, config, passed):
    outcome = run_evaluator({"type": "math_equivalence", "value": expected, **config}, response)
    assert outcome.error is None
    assert outcome.passed is passed, outcome.reason


def test_math_invalid_mode_TestValidateMathEquivalence_InvalidConfig():
    with pytest.raises(BenchError) as caught:
        run_evaluator({"type": "math_equivalence", "value": "1", "comparison_mode": "approximate"}, "1")
    assert str(caught.value).startswith(
        "<test>: comparison_mode: Input should be 'symbolic' or 'numeric' (got 'approximate')"
    )


def test_tool_call_assertion_with_another_target_or_expected_from_is_refused_in_bench_form_too():
    # AgentClash's rule is about the validator type, whatever its settings
    with pytest.raises(BenchError) as caught:
        run_evaluator(
            {"type": "tool_call_assertion", "must_call": ["search"], "target": "final_output"}, TRACE
        )
    assert str(caught.value).startswith(
        '<test>: Value error, target must be "tool_calls" for tool_call_assertion validators'
    )


def test_math_equivalence_without_numeric_fallback_compares_decimals_exactly():
    # math_validators.go: symbolic comparison reads 0.3333334 as the exact fraction 3333334/10^7
    # (big.Rat), which is not 1/3; only the numeric fallback (on by default, tolerance 1e-6)
    # accepts it. math-verify alone rounds floats to 6 places and called them equal.
    settings = {"type": "math_equivalence", "value": "1/3"}
    strict = run_evaluator({**settings, "numeric_fallback": False}, "0.3333334")
    assert (strict.passed, strict.reason) == (False, "0.333333400000000 is not equivalent to 1/3")
    default = run_evaluator(settings, "0.3333334")
    assert (default.passed, default.details["mode"]) == (True, "numeric_fallback")
    exact = run_evaluator({"type": "math_equivalence", "value": "1/2", "numeric_fallback": False}, "0.5")
    assert (exact.passed, exact.details["mode"]) == (True, "symbolic")
