"""is_json, json_schema and json_path_match, including RELIABILITY D07-D10."""

from __future__ import annotations

import json
import time

import pytest

from bench import BenchError
from bench.testing import run_evaluator

PERSON = {
    "$defs": {"email": {"type": "string", "format": "email"}},
    "type": "object",
    "required": ["name", "email"],
    "properties": {"name": {"type": "string"}, "email": {"$ref": "#/$defs/email"}},
}


@pytest.mark.parametrize(
    ("response", "passed", "reason"),
    [
        ('{"a": 1}', True, "valid JSON (dict)"),
        ("[1, 2]", True, "valid JSON (list)"),
        (
            "{'a': 1}",
            False,
            "not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
    ],
)
def test_is_json(response, passed, reason):
    outcome = run_evaluator({"type": "is_json"}, response)
    assert outcome.error is None
    assert (outcome.passed, outcome.reason) == (passed, reason)


def test_d09_json_nested_deeper_than_256_levels_fails_with_its_reason():
    outcome = run_evaluator({"type": "is_json"}, "[" * 5000 + "]" * 5000)
    assert outcome.error is None
    assert (outcome.passed, outcome.reason) == (False, "nesting deeper than 256 levels")


@pytest.mark.parametrize(
    ("response", "reason"),
    [
        ('{"a": NaN}', "NaN is not valid JSON"),
        ('{"a": Infinity}', "Infinity is not valid JSON"),
        ("1" * 5000, "number too long (more than 4,300 digits)"),
    ],
)
def test_d10_nan_infinity_and_5000_digit_numbers_are_not_json(response, reason):
    outcome = run_evaluator({"type": "is_json"}, response)
    assert outcome.error is None
    assert (outcome.passed, outcome.reason) == (False, reason)


def test_is_json_accepts_fences_only_when_asked():
    fenced = '```json\n{"a": 1}\n```'
    assert not run_evaluator({"type": "is_json"}, fenced).passed
    assert run_evaluator({"type": "is_json", "strip_fences": True}, fenced).passed


def test_json_schema_follows_local_ref_and_checks_format():
    good = json.dumps({"name": "Ada", "email": "ada@example.com"})
    assert run_evaluator({"type": "json_schema", "schema": PERSON}, good).passed
    bad = run_evaluator(
        {"type": "json_schema", "schema": PERSON}, json.dumps({"name": "Ada", "email": "nope"})
    )
    assert not bad.passed
    assert bad.reason == "email: 'nope' is not a 'email'"


def test_json_schema_lists_every_violation():
    outcome = run_evaluator({"type": "json_schema", "schema": PERSON}, json.dumps({"name": 3}))
    assert outcome.details["errors"] == [
        "(root): 'email' is a required property",
        "name: 3 is not of type 'string'",
    ]
    assert outcome.details["draft"] == "Draft202012"


def test_json_schema_uses_the_draft_the_schema_names():
    # Draft 4 spells an exclusive maximum as a boolean; 2020-12 would reject this schema.
    schema = {"$schema": "http://json-schema.org/draft-04/schema#", "maximum": 10, "exclusiveMaximum": True}
    assert not run_evaluator({"type": "json_schema", "schema": schema}, "10").passed
    assert run_evaluator({"type": "json_schema", "schema": schema}, "9").passed


def test_d08_invalid_schema_and_remote_ref_fail_at_load_time():
    with pytest.raises(BenchError, match="invalid JSON Schema at type: 'strin' is not valid"):
        run_evaluator({"type": "json_schema", "schema": {"type": "strin"}}, "1")
    remote = {"$ref": "https://example.com/schema.json"}
    with pytest.raises(BenchError, match=r"remote \$ref 'https://example\.com/schema\.json' is refused"):
        run_evaluator({"type": "json_schema", "schema": remote}, "1")


def test_d07_schema_patterns_cannot_hang_the_run():
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string", "pattern": "^(a|aa)+$"}},
        "patternProperties": {"^(x+x+)+y$": {"type": "integer"}},
        "additionalProperties": False,
    }
    response = json.dumps({"a": "a" * 40 + "!"})  # `re` would need minutes here (J6)
    started = time.perf_counter()
    outcome = run_evaluator({"type": "json_schema", "schema": schema}, response)
    assert time.perf_counter() - started < 1.0
    assert not outcome.passed
    assert "does not match '^(a|aa)+$'" in outcome.reason
    extra = run_evaluator({"type": "json_schema", "schema": schema}, json.dumps({"a": "aa", "zz": 1}))
    assert extra.reason == "(root): additional properties are not allowed ('zz' unexpected)"


def test_json_schema_from_the_ai_eval_block(tmp_path):
    from bench.testing import run_suite, write_suite

    suite = write_suite(
        tmp_path,
        """
        tasks:
          - id: ok
            response: '{"name": "Ada", "age": 36}'
            expected:
              json_schema:
                type: object
                required: [name, age]
                properties: {name: {type: string}, age: {type: integer}}
          - id: bad
            response: '{"name": "Ada", "age": "36"}'
            expected:
              json_schema: {type: object, properties: {age: {type: integer}}}
        """,
    )
    report = run_suite(suite).report
    results = {t["id"]: t for t in report.tasks()}
    assert results["ok"]["passed"]
    assert results["bad"]["evaluators"][0]["reason"] == "age: '36' is not of type 'integer'"
    assert results["bad"]["evaluators"][0]["name"] == "expected.json_schema"


DOC = json.dumps({"user": {"name": "Ada", "age": 36, "langs": ["en", "fr"]}, "items": [{"id": 7}]})


@pytest.mark.parametrize(
    ("settings", "passed"),
    [
        ({"path": "$.user.name", "value": "Ada"}, True),
        ({"path": "$.user.name", "value": "Bob"}, False),
        ({"path": "$.user.age", "value": 36.0}, True),  # numbers compare by value
        ({"path": "$.user.age", "comparator": "greater_than", "value": 18}, True),
        ({"path": "$.user.age", "comparator": "less_than", "value": 18}, False),
        ({"path": "$.user.langs", "comparator": "contains", "value": "fr"}, True),
        ({"path": "$.user.name", "comparator": "contains", "value": "Ad"}, True),
        ({"path": "$.items[0].id", "value": 7}, True),
        ({"path": "$.user.email"}, False),  # exists, by default without a value
        ({"path": "$.user"}, True),
        ({"path": "$.items[*].id", "value": [7]}, True),
    ],
)
def test_json_path_match(settings, passed):
    outcome = run_evaluator({"type": "json_path_match", **settings}, DOC)
    assert outcome.error is None, outcome.error
    assert outcome.passed is passed, outcome.reason


def test_json_path_match_takes_agentclash_expectations_from_evidence():
    expectation = 'literal:{"path": "$.user.age", "comparator": "greater_than", "value": 30}'
    assert run_evaluator({"type": "json_path_match", "expected_from": expectation}, DOC).passed
    assert run_evaluator({"type": "json_path_match", "expected_from": "literal:$.items"}, DOC).passed


def test_json_path_match_errors():
    with pytest.raises(BenchError, match="invalid JSONPath"):
        run_evaluator({"type": "json_path_match", "path": "$.[", "value": 1}, DOC)
    outcome = run_evaluator(
        {"type": "json_path_match", "path": "$.user.name", "comparator": "greater_than", "value": 1}, DOC
    )
    assert outcome.error == "the value at the path is not numeric: '\"Ada\"'"
    assert run_evaluator({"type": "json_path_match", "path": "$.a"}, "not json").reason.startswith(
        "the response is not JSON"
    )
