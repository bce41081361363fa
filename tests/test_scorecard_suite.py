"""Scorecards, judge_mode and the evaluation_spec rules through whole suites."""

from __future__ import annotations

import json


def test_a_scorecard_decides_each_task_and_shows_why(bench_cli, bench_suite_file, tmp_path):
    path = bench_suite_file(
        """
        runtime_limits: {max_duration_ms: 5000}
        scorecard:
          strategy: hybrid
          pass_threshold: 0.6
          normalization: {latency: {target_ms: 1000}}
          dimensions:
            - {key: correctness, gate: true, pass_threshold: 1.0}
            - latency
        tasks:
          - id: fast
            response: {output: "Paris", usage: {latency_ms: 800}}
            evaluate: {expected: Paris}
          - id: slow
            response: {output: "Paris", usage: {latency_ms: 4500}}
            evaluate: {expected: Paris}
          - id: wrong-but-fast
            response: {output: "Lyon", usage: {latency_ms: 100}}
            evaluate: {expected: Paris}
        """
    )
    result = bench_cli("run", path, "-o", "out.json")
    assert result.exit_code == 1
    tasks = {t["id"]: t for t in json.loads((tmp_path / "out.json").read_text())["tasks"]}
    assert tasks["fast"]["passed"]
    slow = tasks["slow"]["scorecard"]
    assert slow["passed"] is False
    assert slow["reason"] == "hybrid: the other dimensions' weighted score 0.125 is below 0.6"
    latency = slow["dimensions"][1]
    assert (latency["raw"], latency["score"], latency["weight"], latency["gate"]) == (4500, 0.125, 1.0, False)
    assert slow["metrics"]["run_total_latency_ms"] == 4500
    wrong = tasks["wrong-but-fast"]
    assert (wrong["passed"], wrong["score"]) == (False, 0.0)
    assert wrong["scorecard"]["reason"].startswith('hybrid: gate "correctness" scored 0')


def test_scorecard_errors_name_the_field(bench_cli, bench_suite_file):
    path = bench_suite_file(
        """
        scorecard:
          strategy: binary
          pass_threshold: 0.8
          dimensions: [correctness]
        tasks:
          - {id: a, response: x, evaluate: {expected: x}}
        """
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert "scorecard.pass_threshold: binary strategy derives pass/fail from its gates" in result.stderr
    assert (
        "scorecard.dimensions[0].pass_threshold: every dimension of a binary scorecard needs" in result.stderr
    )


def test_invalid_enum_lists_the_valid_values(bench_cli, bench_suite_file):
    path = bench_suite_file(
        """
        judge_mode: llm
        scorecard: {strategy: average, dimensions: [correctness]}
        tasks:
          - {id: a, response: x, evaluate: {expected: x}}
        """
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert "judge_mode: Input should be 'deterministic', 'llm_judge' or 'hybrid' (got 'llm')" in result.stderr
    assert (
        "scorecard.strategy: Input should be 'weighted', 'binary' or 'hybrid' (got 'average')"
        in result.stderr
    )


def test_strict_decoding_rejects_unknown_keys(bench_cli, bench_suite_file):
    path = bench_suite_file(
        """
        scorecard: {dimensions: [{key: correctness, wieght: 2}]}
        tasks:
          - {id: a, response: x, evaluate: {expected: x}}
        """
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert "scorecard.dimensions[0].wieght: unknown field (did you mean 'weight'?)" in result.stderr


def test_dimension_references_must_exist_on_each_task(bench_cli, bench_suite_file):
    path = bench_suite_file(
        """
        scorecard:
          dimensions: [{key: safety, source: validators, validators: [no-pii]}]
        tasks:
          - {id: a, response: x, evaluate: {name: no_pii, type: not_contains, value: "@"}}
        """
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert (
        "scorecard.dimensions[0].validators: dimension 'safety' names evaluator 'no-pii', not one of this task's (did you mean 'no_pii'?)"
        in result.stderr
    )


def test_judge_mode_deterministic_refuses_judges(bench_cli, bench_suite_file):
    path = bench_suite_file(
        """
        judge_mode: deterministic
        tasks:
          - id: a
            response: x
            evaluate: {prompt: "Is {response} good?", model: openai/gpt-4o-mini}
        """
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert "judge_mode is deterministic, but evaluator 'llm_judge' (llm_judge) calls a model" in result.stderr


def test_judge_mode_llm_judge_needs_a_judge(bench_cli, bench_suite_file):
    path = bench_suite_file(
        "judge_mode: llm_judge\ntasks:\n  - {id: a, response: x, evaluate: {expected: x}}\n"
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert "tasks[0]: judge_mode is llm_judge, but this task has no LLM judge" in result.stderr


def test_keys_are_unique_across_evaluators_and_metrics(bench_cli, bench_suite_file):
    path = bench_suite_file(
        """
        evaluators:
          speed: {expected: x}
        metrics:
          - {key: speed, collector: run_total_latency_ms}
        tasks:
          - {id: a, response: x, evaluate: speed}
        """
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert "metrics[0].key: metric key 'speed' is also an evaluator's name" in result.stderr


def test_duplicate_validator_keys_in_a_task_are_refused(bench_cli, bench_suite_file):
    path = bench_suite_file(
        """
        tasks:
          - id: a
            response: x
            evaluators:
              - {key: check, type: contains, value: x}
              - {key: check, type: not_contains, value: y}
        """
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert "tasks[0].evaluators[1].key: key 'check' is used twice in this task" in result.stderr


def test_declared_metric_feeds_a_metric_dimension(tmp_path):
    from bench.testing import run_suite, write_suite

    suite = write_suite(
        tmp_path,
        """
        metrics:
          - {key: tokens, type: numeric, collector: run_total_tokens, unit: tokens}
        scorecard:
          dimensions:
            - correctness
            - {key: thrift, source: metric, metric: tokens, better_direction: lower,
               normalization: {target: 100, max: 300}}
        tasks:
          - id: a
            response: {output: "x", usage: {total_tokens: 200}}
            evaluate: {expected: x}
        """,
    )
    (task,) = list(run_suite(suite).report.tasks())
    rows = {r["key"]: r for r in task["scorecard"]["dimensions"]}
    assert (rows["thrift"]["raw"], rows["thrift"]["score"]) == (200, 0.5)
    assert task["score"] == 0.75


def test_run_tool_call_count_counts_the_responses_tool_calls(bench_cli, bench_suite_file, tmp_path):
    path = bench_suite_file(
        """
        metrics:
          - {key: calls, type: numeric, collector: run_tool_call_count}
        scorecard:
          dimensions:
            - {key: frugal, source: metric, metric: calls, better_direction: lower,
               normalization: {target: 1, max: 3}}
        tasks:
          - id: two
            response: {output: done, tool_calls: [{name: a, arguments: {}}, {name: b, arguments: {}}]}
            evaluate: {expected: done}
        """
    )
    bench_cli("run", path, "-q", "-o", "out.json")
    tasks = {t["id"]: t for t in json.loads((tmp_path / "out.json").read_text())["tasks"]}
    # two calls: lower is better from target 1 to max 3: 1 - (2 - 1) / (3 - 1) = 0.5
    assert tasks["two"]["scorecard"]["metrics"]["run_tool_call_count"] == 2.0
    assert tasks["two"]["scorecard"]["dimensions"][0]["score"] == 0.5


def test_a_scorecards_signals_are_every_types_whatever_the_process_imported(tmp_path):
    """A Ray worker builds its own registry: the signals a plan records must not depend on which
    types the loading process happened to import before (the local run's did, the worker's not)."""
    from bench.testing import build_registry, load_suite

    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "target: {type: echo}\n"
        "scorecard: {strategy: weighted, dimensions: [correctness]}\n"
        "tasks: [{id: a, prompt: hi, evaluate: {type: contains, value: hi}}]\n"
    )
    fresh = load_suite(suite, build_registry()).signals
    warmed = build_registry()
    assert warmed.evaluators.get("scope_adherence") is not None  # imports bench-agent's signals
    assert load_suite(suite, warmed).signals == fresh
    assert fresh["scope_adherence"] == "behavioral_scope_score"
