"""promptfoo's deterministic assertions and a test's verdict (docs/formats/promptfoo.md), through the
``promptfoo`` evaluator type. Expected verdicts are worked out by hand from promptfoo's rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench import ConfigError, Response
from bench.testing import run_evaluator, run_suite, write_suite


def check(asserts: list[dict[str, Any]], output: str | Response, **settings: Any) -> Any:
    return run_evaluator({"type": "promptfoo", "assert": asserts, **settings}, output)


WEIGHTED = [{"type": "equals", "value": "Hello world", "weight": 2}, {"type": "contains", "value": "world"}]


# --- docs/formats/promptfoo.md, measured on promptfoo 0.121.20 ---------------------------------


def test_weighted_assertions_fail_without_threshold() -> None:
    # equals fails (0·2), contains passes (1·1): 1/3 = 0.333; a failure and no threshold: fail.
    out = check(WEIGHTED, "Goodbye world")
    assert (out.passed, round(out.score, 3)) == (False, 0.333)
    assert out.reason == 'Expected output "Goodbye world" to equal "Hello world"'


def test_weighted_assertions_threshold_half_fails() -> None:
    # 0.333 < 0.5: fail, whatever the assertions' own verdicts.
    out = check(WEIGHTED, "Goodbye world", threshold=0.5)
    assert (out.passed, round(out.score, 3)) == (False, 0.333)
    assert out.reason.endswith("(score 0.333, at least 0.5 needed)")


def test_weighted_assertions_threshold_low_passes() -> None:
    # 0.333 >= 0.2: pass although equals failed.
    out = check(WEIGHTED, "Goodbye world", threshold=0.2)
    assert (out.passed, round(out.score, 3)) == (True, 0.333)


def test_threshold_zero_counts() -> None:
    # score 0 >= 0: pass (0.121.20 honours 0; eb8d7af's `if (threshold)` ignored it).
    out = check([{"type": "equals", "value": "x"}], "y", threshold=0)
    assert (out.passed, out.score) == (True, 0.0)


def test_weight_zero_forces_pass_with_score_zero() -> None:
    # the failing equals is forced to pass; Σw = 0, so the score is 0.
    out = check([{"type": "equals", "value": "x", "weight": 0}], "y")
    assert (out.passed, out.score) == (True, 0.0)


def test_assert_set_counts_as_one_weighted_assertion() -> None:
    # set: children 1 and 0 → 0.5 ≥ set threshold 0.5 → the set passes with 0.5, weight 3;
    # the failing equals (w 1) → (0.5·3 + 0·1) / 4 = 0.375, and a failure → fail.
    asserts = [
        {
            "type": "assert-set",
            "threshold": 0.5,
            "weight": 3,
            "assert": [{"type": "contains", "value": "a"}, {"type": "contains", "value": "z"}],
        },
        {"type": "equals", "value": "nope"},
    ]
    out = check(asserts, "abc")
    assert (out.passed, out.score) == (False, 0.375)
    assert out.details["assertions"][1]["type"] == "assert-set"
    assert out.details["assertions"][1]["pass"] is True
    assert out.details["assertions"][1]["reason"] == "Aggregate score 0.50 ≥ 0.5 threshold"


def test_assert_set_without_threshold_needs_every_child() -> None:
    # children 1 and 0 → set fails with 0.5; the test's only assertion: 0.5, fail.
    asserts = [
        {
            "type": "assert-set",
            "assert": [{"type": "contains", "value": "a"}, {"type": "contains", "value": "z"}],
        }
    ]
    out = check(asserts, "abc")
    assert (out.passed, out.score) == (False, 0.5)
    assert out.reason == 'Expected output to contain "z"'


@pytest.mark.parametrize(
    ("assertion", "output", "passed"),
    [
        (
            {"type": "levenshtein", "value": "hello world", "threshold": 2},
            "hallo werld",
            True,
        ),  # distance 2 ≤ 2
        (
            {"type": "levenshtein", "value": "hello world"},
            "abc",
            False,
        ),  # no letter shared: 3 substitutions + 8 insertions = 11 > 5
        # `not-` inverts (0.121.20 levenshtein.ts: `pass = distance <= threshold !== inverse`):
        # distance 2 ≤ 2, so not-levenshtein fails; distance 7 > 5 (default), so it passes.
        ({"type": "not-levenshtein", "value": "hello world", "threshold": 2}, "hallo werld", False),
        ({"type": "not-levenshtein", "value": "abc"}, "abcdefghij", True),
        # threshold 0 is kept (`?? 5`, not `|| 5`): distance 1 > 0
        ({"type": "levenshtein", "value": "abc", "threshold": 0}, "abd", False),
        ({"type": "contains-all", "value": ["a", "c"]}, "a b", False),  # c missing: 0, not 0.5
        ({"type": "icontains-any", "value": "X, B"}, "a b", True),  # "b" found ignoring case
        ({"type": "equals", "value": {"a": 1}}, '{"a": 1}', True),  # deep-equal to JSON.parse(output)
    ],
)
def test_measured_cases(assertion: dict[str, Any], output: str, passed: bool) -> None:
    out = check([assertion], output)
    assert (out.passed, out.score) == (passed, 1.0 if passed else 0.0)


def test_levenshtein_reason() -> None:
    out = check([{"type": "levenshtein", "value": "hello world"}], "abc")
    assert out.reason == "Levenshtein distance 11 is greater than threshold 5"


def test_not_levenshtein_reason() -> None:
    out = check([{"type": "not-levenshtein", "value": "hello world", "threshold": 2}], "hallo werld")
    assert out.reason == "Levenshtein distance 2 is less than or equal to threshold 2"


def test_metric_is_the_weighted_mean_of_its_assertions() -> None:
    # M = (1·1 + 0·3) / 4 = 0.25 (eb8d7af summed: 1).
    asserts = [
        {"type": "contains", "value": "a", "metric": "M"},
        {"type": "contains", "value": "z", "weight": 3, "metric": "M"},
    ]
    out = check(asserts, "abc")
    assert out.details["named_scores"] == {"M": 0.25}
    assert (out.passed, out.score) == (False, 0.25)


# --- every deterministic type ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("assertion", "output", "passed"),
    [
        ({"type": "equals", "value": "Hello"}, "Hello", True),
        ({"type": "equals", "value": "Hello"}, "Hello ", False),  # no trim
        ({"type": "equals", "value": "hello"}, "Hello", False),  # case-sensitive
        ({"type": "equals", "value": 42}, "42", True),  # String(42)
        ({"type": "equals", "value": {"a": 1}}, "not json", False),
        ({"type": "not-equals", "value": {"a": 1}}, "not json", True),
        ({"type": "equals", "value": [1, True]}, "[1, 1]", False),  # true is not 1
        ({"type": "contains", "value": "wor"}, "Hello world", True),
        ({"type": "contains", "value": 4}, "2 + 2 = 4", True),
        ({"type": "icontains", "value": "WORLD"}, "Hello world", True),
        ({"type": "not-contains", "value": "error"}, "all good", True),
        ({"type": "not-icontains", "value": "ERROR"}, "an error", False),
        ({"type": "contains-any", "value": ["x", "world"]}, "Hello world", True),
        ({"type": "contains-any", "value": '"a, b", c'}, "has a, b", True),  # the quoted item whole
        ({"type": "contains-any", "value": '"a, b", c'}, "has a b", False),
        ({"type": "contains-any", "value": "x, y"}, "Hello", False),
        ({"type": "not-contains-any", "value": "x, y"}, "Hello", True),
        ({"type": "contains-all", "value": "Hello, world"}, "Hello world", True),
        ({"type": "icontains-all", "value": ["HELLO", "WORLD"]}, "Hello world", True),
        ({"type": "not-contains-all", "value": ["Hello", "x"]}, "Hello world", True),
        ({"type": "starts-with", "value": "Hel"}, "Hello", True),
        ({"type": "starts-with", "value": "ello"}, "Hello", False),
        ({"type": "not-starts-with", "value": "ello"}, "Hello", True),
        ({"type": "regex", "value": "\\d{3}"}, "call 555 now", True),  # anywhere, not anchored
        ({"type": "regex", "value": "^\\d+$"}, "123\n", False),  # JavaScript's $ is the very end
        ({"type": "regex", "value": "^\\w+$"}, "café", False),  # \w is ASCII in JavaScript
        ({"type": "regex", "value": "(?<y>\\d{2})-\\k<y>"}, "12-12", True),  # named groups
        ({"type": "regex", "value": "a\\/b"}, "a/b", True),
        ({"type": "not-regex", "value": "^foo"}, "bar", True),
        ({"type": "is-json"}, '{"a": 1}', True),
        ({"type": "is-json"}, "{a: 1}", False),
        ({"type": "not-is-json"}, "plain", True),
        ({"type": "is-json", "value": {"type": "object", "required": ["a"]}}, '{"a": 1}', True),
        ({"type": "is-json", "value": "type: object\nrequired: [b]"}, '{"a": 1}', False),  # YAML schema
        ({"type": "contains-json"}, 'Here: {"a": 1} done', True),
        ({"type": "contains-json"}, "no json here", False),
        ({"type": "contains-json", "value": {"required": ["a"]}}, 'x {"b": 2} y {"a": 1}', True),
        ({"type": "contains-json", "value": {"required": ["c"]}}, 'x {"b": 2} y {"a": 1}', False),
        ({"type": "not-contains-json"}, "no json", True),
        ({"type": "is-sql"}, "SELECT id FROM users", True),
        ({"type": "is-sql"}, "SELECT id FROM", False),
        ({"type": "is-sql"}, "hello world", False),
        ({"type": "not-is-sql"}, "hello world", True),
        ({"type": "is-sql", "value": {"databaseType": "PostgreSQL"}}, "SELECT 1", True),
        (
            {"type": "is-sql", "value": {"allowedTables": ["select::null::users"]}},
            "SELECT id FROM users",
            True,
        ),
        (
            {"type": "is-sql", "value": {"allowedTables": ["select::null::users"]}},
            "SELECT id FROM orders",
            False,
        ),
        ({"type": "is-sql", "value": {"allowedColumns": ["select::null::id"]}}, "SELECT id FROM users", True),
        (
            {"type": "is-sql", "value": {"allowedColumns": ["select::null::id"]}},
            "SELECT name FROM users",
            False,
        ),
        ({"type": "levenshtein", "value": "kitten", "threshold": 3}, "sitting", True),  # distance 3
    ],
)
def test_deterministic_types(assertion: dict[str, Any], output: str, passed: bool) -> None:
    out = check([assertion], output)
    assert out.error is None
    assert (out.passed, out.score) == (passed, 1.0 if passed else 0.0), out.reason


@pytest.mark.parametrize(
    ("assertion", "reason"),
    [
        ({"type": "contains", "value": "x"}, 'Expected output to contain "x"'),
        ({"type": "not-contains", "value": "a"}, 'Expected output to not contain "a"'),
        ({"type": "contains-any", "value": ["x", "y"]}, 'Expected output to contain one of "x, y"'),
        (
            {"type": "contains-all", "value": ["a", "x"]},
            "Expected output to contain all of [a, x]. Missing: [x]",
        ),
        ({"type": "starts-with", "value": "x"}, 'Expected output to start with "x"'),
        ({"type": "regex", "value": "x+"}, 'Expected output to match regex "x+"'),
        (
            {"type": "regex", "value": "("},
            "Invalid regex pattern: missing ), unterminated subpattern at position 0",
        ),
        ({"type": "is-json"}, "Expected output to be valid JSON"),
        ({"type": "contains-json"}, "Expected output to contain valid JSON"),
        ({"type": "is-sql"}, "SQL statement does not conform to the provided MySQL database syntax."),
    ],
)
def test_failure_reasons(assertion: dict[str, Any], reason: str) -> None:
    out = check([assertion], "abc")
    assert (out.passed, out.reason) == (False, reason)


def test_is_json_schema_failure_names_the_error() -> None:
    out = check([{"type": "is-json", "value": {"required": ["b"]}}], '{"a": 1}')
    assert (
        out.reason == "JSON does not conform to the provided schema. Errors: data 'b' is a required property"
    )


def test_invalid_schema_fails() -> None:
    out = check([{"type": "is-json", "value": {"type": "nonsense"}}], "{}")
    assert out.passed is False
    assert out.reason.startswith("Invalid JSON schema: 'nonsense' is not valid")


def test_sql_whitelist_reason() -> None:
    out = check(
        [{"type": "is-sql", "value": {"allowedTables": ["select::null::users"]}}], "SELECT id FROM orders"
    )
    assert out.reason == (
        "SQL validation failed: authority = 'select::null::orders' is required in table whiteList "
        "to execute SQL = 'SELECT id FROM orders'."
    )


def test_cost_echo_counts_zero() -> None:
    # bench's echo reports no cost; promptfoo's echo reports 0: 0 <= 0.001 passes.
    assert check([{"type": "cost", "threshold": 0.001}], "hi").passed is True
    out = check([{"type": "cost", "threshold": 0.001}], Response(output="hi", usage={"cost_usd": 0.02}))
    # promptfoo writes the cost with toPrecision(2): 0.02 -> "0.020"
    assert (out.passed, out.reason) == (False, "Cost 0.020 is greater than threshold 0.001")
    out = check([{"type": "not-cost", "threshold": 0.05}], Response(output="hi", usage={"cost_usd": 0.02}))
    assert (out.passed, out.reason) == (False, "Cost 0.020 is less than or equal to threshold 0.05")


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.0, "0.0"), (0.02, "0.020"), (0.00123, "0.0012"), (1.5e-7, "1.5e-7"), (123.0, "1.2e+2"), (5.0, "5.0")],
)
def test_cost_is_written_as_javascripts_to_precision(value: float, text: str) -> None:
    from bench_formats.promptfoo.checks.metrics import to_precision

    assert to_precision(value, 2) == text


def test_latency() -> None:
    fast = Response(output="hi", usage={"latency_ms": 120})
    assert check([{"type": "latency", "threshold": 500}], fast).passed is True
    out = check([{"type": "latency", "threshold": 100}], fast)
    assert (out.passed, out.reason) == (False, "Latency 120ms is greater than threshold 100ms")
    assert check([{"type": "not-latency", "threshold": 100}], fast).passed is True
    out = check([{"type": "not-latency", "threshold": 500}], fast)
    assert (out.passed, out.reason) == (False, "Latency 120ms is less than or equal to threshold 500ms")


def test_latency_of_a_recorded_response_is_zero() -> None:
    # promptfoo 0.121.20 times a providerOutput too (Date.now() - start: 0 ms): 0 <= 100 passes,
    # and 0 > 0 is false, so threshold 0 passes as well; not-latency (0 > 100) fails.
    assert check([{"type": "latency", "threshold": 100}], "hi").passed is True
    assert check([{"type": "latency", "threshold": 0}], "hi").passed is True
    out = check([{"type": "not-latency", "threshold": 100}], "hi")
    assert (out.passed, out.reason) == (False, "Latency 0ms is less than or equal to threshold 100ms")


def test_latency_and_cost_need_a_threshold() -> None:
    out = check([{"type": "latency"}], "hi")
    assert out.error == "latency: Latency assertion must have a threshold in milliseconds"
    out = check([{"type": "cost", "metric": "spend"}], "hi")
    assert out.error == "cost: Cost assertion must have a threshold"


def test_latency_of_a_called_target_is_measured(tmp_path: Path) -> None:
    # the echo target answers at once: a few ms at most, well under 60 s
    suite = write_suite(
        tmp_path,
        """
        target: {type: echo}
        tasks:
          - id: t
            prompt: hi
            evaluate: {type: promptfoo, assert: [{type: latency, threshold: 60000}]}
        """,
    )
    (task,) = run_suite(suite, runs_dir=tmp_path / "runs").report.tasks()
    assert (task["status"], task["score"]) == ("passed", 1.0)


# --- the verdict -----------------------------------------------------------------------------


def test_no_assertions_pass_with_score_one() -> None:
    out = check([], "anything")
    assert (out.passed, out.score, out.reason) == (True, 1.0, "No assertions")


def test_reason_is_the_last_failing_assertion() -> None:
    # promptfoo overwrites failedReason at each failure.
    out = check([{"type": "contains", "value": "x"}, {"type": "contains", "value": "y"}], "abc")
    assert out.reason == 'Expected output to contain "y"'


def test_all_passed_reason_and_details() -> None:
    out = check(
        [{"type": "contains", "value": "a", "metric": "m"}, {"type": "icontains", "value": "B", "weight": 2}],
        "abc",
    )
    assert (out.passed, out.score, out.reason) == (True, 1.0, "All assertions passed")
    assert out.details["assertions"] == [
        {
            "type": "contains",
            "pass": True,
            "score": 1.0,
            "reason": "Assertion passed",
            "weight": 1.0,
            "metric": "m",
        },
        {
            "type": "icontains",
            "pass": True,
            "score": 1.0,
            "reason": "Assertion passed",
            "weight": 2.0,
            "metric": None,
        },
    ]
    assert out.details["named_scores"] == {"m": 1.0}


def test_metric_inside_a_set_reaches_the_test() -> None:
    # set children: contains a (M, 1) and contains z (M, 0) → M = 0.5 inside the set; the set's
    # weight 2 scales both sides, so the test's M stays 0.5.
    asserts = [
        {
            "type": "assert-set",
            "weight": 2,
            "assert": [
                {"type": "contains", "value": "a", "metric": "M"},
                {"type": "contains", "value": "z", "metric": "M"},
            ],
        }
    ]
    assert check(asserts, "abc").details["named_scores"] == {"M": 0.5}


# --- errors, apart from failures -------------------------------------------------------------


def test_missing_file_is_an_error() -> None:
    out = check(
        [{"type": "contains", "value": "file://missing.txt", "error": "File does not exist: missing.txt"}],
        "x",
    )
    assert (out.passed, out.error) == (False, "File does not exist: missing.txt")


def test_unknown_type_is_refused_when_the_suite_loads() -> None:
    # promptfoo itself only errors when the row runs ("Unknown assertion type: sounds-like")
    with pytest.raises(ConfigError) as caught:
        check([{"type": "sounds-like", "value": "x"}], "x")
    assert "Value error, assert[0]: unknown assertion type 'sounds-like' (got " in str(caught.value)


def test_a_check_that_cannot_run_here_is_named_with_its_reason() -> None:
    out = check([{"type": "classifier", "value": "coherent"}], "x")
    assert out.error == (  # promptfoo's getAndCheckProvider, then what bench can ask
        "classifier: No provider of type classification found for 'classification check' (give a "
        "huggingface:text-classification:MODEL, huggingface:token-classification:MODEL or Python "
        "file://x.py provider)"
    )


def test_invalid_value_is_an_error() -> None:
    out = check([{"type": "contains", "value": ""}], "x")
    assert out.error == 'contains: "contains" assertion type must have a string or number value'


def test_error_and_failure_split_in_a_run(tmp_path: Path) -> None:
    suite = write_suite(
        tmp_path,
        """
        name: split
        tasks:
          - id: fails
            response: "abc"
            evaluate: {type: promptfoo, assert: [{type: contains, value: z}]}
          - id: errors
            response: "abc"
            evaluate: {type: promptfoo, assert: [{type: equals, value: "file://gone.txt", error: "File does not exist: gone.txt"}]}
          - id: passes
            response: "abc"
            evaluate: {type: promptfoo, assert: []}
        """,
    )
    statuses = {t["id"]: t["status"] for t in run_suite(suite).report.tasks()}
    assert statuses == {"fails": "failed", "errors": "error", "passes": "passed"}


# --- checks bench does not run: the row is an error naming them, never a pass -----------------


def test_a_ruby_check_makes_the_row_an_error_naming_it() -> None:
    # was a pass over the other checks (contains "a"), with the ruby check only listed as skipped
    asserts = [
        {"type": "ruby", "value": "output.length > 100"},
        {"type": "contains", "value": "a"},
    ]
    out = check(asserts, "abc")
    assert out.error == "ruby: did not run: bench does not run Ruby assertions"


def test_a_webhook_check_in_an_assert_set_makes_the_row_an_error() -> None:
    asserts = [
        {"type": "contains", "value": "a"},
        {"type": "assert-set", "assert": [{"type": "not-webhook", "value": "http://127.0.0.1:9/x"}]},
    ]
    out = check(asserts, "abc")
    assert out.error == "not-webhook: did not run: bench does not run webhook assertions"


def test_every_check_that_did_not_run_is_named() -> None:
    asserts = [{"type": "ruby", "value": "true"}, {"type": "pi"}, {"type": "contains", "value": "a"}]
    out = check(asserts, "abc")
    assert out.error == (
        "ruby: did not run: bench does not run Ruby assertions; "
        "pi: did not run: promptfoo asks Pi Labs' remote scoring API (withpi.ai, WITHPI_API_KEY), "
        "which bench does not call"
    )


def test_a_row_with_a_check_that_did_not_run_counts_as_an_error_in_the_run(tmp_path: Path) -> None:
    suite = write_suite(
        tmp_path,
        """
        name: not-run
        tasks:
          - id: ruby
            response: abc
            evaluate:
              type: promptfoo
              assert:
                - {type: contains, value: a}
                - {type: ruby, value: "true"}
        """,
    )
    result = run_suite(suite)
    assert [t["status"] for t in result.report.tasks()] == ["error"]
    assert result.report.summary.errors == 1


# --- the test threshold (test_threshold: promptfoo's rule and reason, any number) --------------


@pytest.mark.parametrize(
    ("threshold", "passed", "reason"),
    [
        # (0·2 + 1·1) / 3 = 0.333: below 0.5 fails, above 0.2 passes, toFixed(2) -> "0.33"
        (0.5, False, "Aggregate score 0.33 < 0.5 threshold"),
        (0.2, True, "Aggregate score 0.33 ≥ 0.2 threshold"),
        (0, True, "Aggregate score 0.33 ≥ 0 threshold"),
        # promptfoo takes any number: 0.333 ≥ 1.5 never holds, 0.333 ≥ -1 always does
        (1.5, False, "Aggregate score 0.33 < 1.5 threshold"),
        (-1, True, "Aggregate score 0.33 ≥ -1 threshold"),
    ],
)
def test_test_threshold_gives_promptfoos_verdict_and_reason(
    threshold: float, passed: bool, reason: str
) -> None:
    out = check(WEIGHTED, "Goodbye world", test_threshold=threshold)
    assert (out.passed, round(out.score, 3), out.reason) == (passed, 0.333, reason)


def test_test_threshold_score_is_written_with_to_fixed() -> None:
    # 1/8 = 0.125 exactly: toFixed(2) rounds half up -> "0.13" (Python's :.2f gives 0.12)
    asserts = [{"type": "contains", "value": "a"}, {"type": "contains", "value": "z", "weight": 7}]
    out = check(asserts, "abc", test_threshold=1)
    assert out.reason == "Aggregate score 0.13 < 1 threshold"


def test_a_threshold_out_of_range_loads_and_gives_promptfoos_verdict(tmp_path: Path) -> None:
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        "prompts: ['{{x}}']\nproviders: [echo]\ntests:\n"
        "  - {description: above, vars: {x: a}, threshold: 1.5, assert: [{type: contains, value: a}]}\n"
        "  - {description: below, vars: {x: a}, threshold: -0.5, assert: [{type: contains, value: z}]}\n"
    )
    tasks = list(run_suite(config, runs_dir=tmp_path / "runs").report.tasks())
    # above: 1 < 1.5 -> fail; below: 0 ≥ -0.5 -> pass although contains "z" failed
    assert [(t["status"], t["score"]) for t in tasks] == [("failed", 1.0), ("passed", 0.0)]
    assert [t["evaluators"][0]["reason"] for t in tasks] == [
        "Aggregate score 1.00 < 1.5 threshold",
        "Aggregate score 0.00 ≥ -0.5 threshold",
    ]
