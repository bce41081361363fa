"""AI Eval's task-level ``expected:`` block and typed ``evaluators:`` list (seed 004)."""

from __future__ import annotations

from bench.testing import run_suite, write_suite


def results(tmp_path, text):
    report = run_suite(write_suite(tmp_path, text)).report
    return {t["id"]: t for t in report.tasks()}


def test_every_assertion_of_the_block_must_pass(tmp_path):
    found = results(
        tmp_path,
        """
        tasks:
          - id: all-good
            response: "2024-01-31: hello world"
            expected:
              contains: ["hello", "world"]
              not_contains: ["I can't"]
              regex: ["^\\\\d{4}-\\\\d{2}-\\\\d{2}"]
          - id: one-bad
            response: "hello there"
            expected:
              contains: ["hello", "world"]
              not_contains: ["there"]
          - id: exact
            response: "Hello, world!"
            expected: {exact_match: "Hello, world!"}
        """,
    )
    assert found["all-good"]["passed"]
    assert [e["name"] for e in found["all-good"]["evaluators"]] == [
        "expected.contains",
        "expected.not_contains",
        "expected.regex",
    ]
    bad = {e["name"]: e for e in found["one-bad"]["evaluators"]}
    assert not found["one-bad"]["passed"]
    assert bad["expected.contains"]["reason"] == "not found: 'world'"
    assert bad["expected.not_contains"]["reason"] == "found forbidden 'there'"
    assert found["exact"]["passed"]


def test_typed_evaluators_take_their_values_from_the_block(tmp_path):
    found = results(
        tmp_path,
        """
        tasks:
          - id: tools
            response:
              tool_calls: [{name: search, arguments: {query: "golang"}}]
            expected:
              tool_calls:
                - {name: search, args_match: {query: "regex:^go"}}
                - {name: summarize, required: false}
              exact_match: "ignored?"
            evaluators:
              - {type: tool_call, score_threshold: 0.5}
              - {type: exact}
        """,
    )
    evaluators = {e["name"]: e for e in found["tools"]["evaluators"]}
    # tool_call judged the block's tool_calls with its threshold; no second default check was added
    assert set(evaluators) == {"tool_calls", "exact_match"}
    assert evaluators["tool_calls"]["passed"]
    assert evaluators["tool_calls"]["score"] == 0.5
    assert not evaluators["exact_match"]["passed"]  # exact took expected.exact_match


def test_block_and_evaluators_must_all_pass_with_evaluate_entries_too(tmp_path):
    found = results(
        tmp_path,
        """
        tasks:
          - id: mixed
            response: "Paris is the capital."
            evaluate: {expected: "Paris"}
            expected: {contains: ["capital"]}
            evaluators:
              - {type: icontains, value: "PARIS"}
        """,
    )
    assert found["mixed"]["passed"]
    assert len(found["mixed"]["evaluators"]) == 3


def test_block_errors(bench_cli, bench_suite_file):
    unknown = bench_suite_file("tasks:\n  - {id: a, response: x, expected: {contain: [x]}}\n")
    result = bench_cli("validate", unknown)
    assert result.exit_code == 2
    assert (
        "tasks[0].expected.contain: unknown assertion 'contain' (did you mean 'contains'?)" in result.stderr
    )
    scalar = bench_suite_file("tasks:\n  - {id: a, response: x, expected: Paris}\n", name="scalar.yaml")
    result = bench_cli("validate", scalar)
    assert result.exit_code == 2
    assert "tasks[0].expected: a task's 'expected:' is AI Eval's block of assertions" in result.stderr
    missing = bench_suite_file(
        "tasks:\n  - {id: a, response: x, evaluators: [{type: exact}]}\n", name="missing.yaml"
    )
    result = bench_cli("validate", missing)
    assert result.exit_code == 2
    assert (
        "'exact' takes its values from the task's expected.exact_match, which is not given" in result.stderr
    )
    bad_regex = bench_suite_file(
        "tasks:\n  - {id: a, response: x, expected: {regex: ['(oops']}}\n", name="re.yaml"
    )
    result = bench_cli("validate", bad_regex)
    assert result.exit_code == 2
    assert "invalid regex '(oops'" in result.stderr
