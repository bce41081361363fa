"""tool_selection, efficiency, trajectory matching and the behavioural signals, by hand."""

from __future__ import annotations

import json

import pytest

from bench import Response
from bench.llm import Usage
from bench.testing import run_evaluator


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"name": name, "arguments": arguments}


def calls(*names: str) -> Response:
    return Response(output="done", tool_calls=[call(n) for n in names])


def trail(*steps: tuple[str, str]) -> Response:
    """An agent trajectory: (tool, result) pairs, then a final answer."""
    messages: list[dict[str, object]] = [{"role": "user", "content": "do it"}]
    for i, (name, result) in enumerate(steps):
        function = {"name": name, "arguments": json.dumps({"n": i})}
        messages.append(
            {"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "function": function}]}
        )
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": result})
    messages.append({"role": "assistant", "content": "done"})
    return Response.model_validate({"output": "done", "messages": messages})


@pytest.mark.parametrize(
    ("mode", "actual", "passed", "score"),
    [
        ("exact", ["read", "write", "run"], True, 1.0),
        ("exact", ["read", "run", "write"], False, 1 / 3),
        ("exact", ["read", "write", "run", "run"], False, 3 / 4),
        ("in_order", ["read", "list", "write", "list", "run"], True, 1.0),
        ("in_order", ["write", "read", "run"], False, 1 / 3),  # read found, then write never after it
        ("any_order", ["run", "read", "write"], True, 1.0),
        ("any_order", ["run", "read", "write", "list"], False, 3 / 4),
        ("superset", ["list", "run", "read", "write"], True, 1.0),
        ("superset", ["read", "write"], False, 2 / 3),
        ("subset", ["read", "run"], True, 1.0),
        ("subset", ["read", "list"], False, 1 / 2),
        ("in-order", ["read", "write", "run"], True, 1.0),  # the dashed spelling
    ],
)
def test_trajectory_modes(mode, actual, passed, score):
    outcome = run_evaluator(
        {"type": "trajectory", "mode": mode, "expected": ["read", "write", "run"]}, calls(*actual)
    )
    assert (outcome.passed, outcome.score) == (passed, pytest.approx(score)), outcome.reason


def test_trajectory_expected_arguments_must_be_included():
    response = Response(
        output="ok", tool_calls=[call("write", path="a.py", content="x"), call("run", command="pytest")]
    )
    good = {
        "type": "trajectory",
        "mode": "exact",
        "expected": [{"name": "write", "arguments": {"path": "a.py"}}, "run"],
    }
    assert run_evaluator(good, response).passed
    wrong = {
        "type": "trajectory",
        "mode": "exact",
        "expected": [{"name": "write", "arguments": {"path": "b.py"}}, "run"],
    }
    outcome = run_evaluator(wrong, response)
    assert not outcome.passed
    assert outcome.reason == "trajectory does not match (exact): write → run"


def test_trajectory_bad_mode_names_the_choices(bench_cli, bench_suite_file):
    path = bench_suite_file(
        "tasks:\n  - id: a\n    response: x\n    evaluate: {type: trajectory, mode: sorted, expected: [a]}\n"
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert (
        "tasks[0].evaluate.mode: Input should be 'exact', 'in_order', 'any_order', 'subset' or 'superset'"
        in (result.stderr)
    )


def test_tool_selection_recall_and_jaccard():
    response = calls("search", "search", "browse")
    recall = run_evaluator({"type": "tool_selection", "expected_tools": ["search", "calculate"]}, response)
    assert (recall.passed, recall.score, recall.reason) == (
        False,
        0.5,
        "used 1 of 2 expected tools; missing: calculate",
    )
    strict = {"type": "tool_selection", "expected_tools": ["search"], "allow_other_tools": False}
    outcome = run_evaluator(strict, response)
    assert (outcome.score, outcome.reason) == (0.5, "used 1 of 1 expected tools; unexpected: browse")
    threshold = {"type": "tool_selection", "expected_tools": ["search", "calculate"], "score_threshold": 0.5}
    assert run_evaluator(threshold, response).passed


def test_efficiency_budgets():
    response = trail(("a", "ok"), ("b", "ok"), ("c", "ok"))  # 4 assistant turns
    response.usage = Usage(input_tokens=3000, output_tokens=1000)
    outcome = run_evaluator({"type": "efficiency", "max_steps": 2, "max_tokens": 8000}, response)
    assert (outcome.passed, outcome.score) == (False, pytest.approx((2 / 4 + 1) / 2))
    assert outcome.reason == "4 steps of 2 allowed; 4000 tokens of 8000 allowed"
    unknown = run_evaluator({"type": "efficiency", "max_tokens": 10}, calls("a"))
    assert unknown.error == "efficiency: max_tokens needs the response's token usage, which is unknown"


def test_efficiency_needs_a_budget(bench_cli, bench_suite_file):
    path = bench_suite_file("tasks:\n  - id: a\n    response: x\n    evaluate: {type: efficiency}\n")
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert "give max_steps, max_tokens or both" in result.stderr


def test_recovery_behavior():
    recovered = trail(("run", "exit code 1\nFAILED"), ("edit", "ok"), ("run", "exit code 0\npassed"))
    outcome = run_evaluator({"type": "recovery_behavior"}, recovered)
    assert (outcome.passed, outcome.score, outcome.reason) == (
        True,
        1.0,
        "recovered from 1 of 1 failed calls",
    )
    stuck = trail(
        ("run", "Error: no such file"), ("read", "Traceback (most recent call last):\n..."), ("read", "ok")
    )
    outcome = run_evaluator({"type": "recovery_behavior", "pass_threshold": 0.6}, stuck)
    assert (outcome.passed, outcome.score) == (False, 0.5)  # read recovered, run never did
    clean = run_evaluator({"type": "recovery_behavior"}, trail(("read", "ok")))
    assert (clean.score, clean.reason) == (1.0, "no tool call failed")


def test_error_cascade():
    chain = trail(("a", "error: x"), ("b", "error: y"), ("c", "error: z"), ("d", "ok"), ("e", "error: w"))
    outcome = run_evaluator({"type": "error_cascade"}, chain)
    assert outcome.score == pytest.approx(1 - 2 / 4)
    assert outcome.reason == "2 of 4 failed calls followed another failure (longest chain 3)"
    assert outcome.details["longest_chain"] == 3


def test_exploration_efficiency():
    messages = Response(
        output="done",
        tool_calls=[
            call("read_file", path="a"),
            call("read_file", path="a"),
            call("list_dir"),
            call("write_file"),
        ],
    )
    outcome = run_evaluator({"type": "exploration_efficiency"}, messages)
    assert outcome.score == pytest.approx(2 / 3)  # the second read of a repeats the first
    assert outcome.reason == "1 of 3 exploring calls repeated an earlier one"
    custom = run_evaluator({"type": "exploration_efficiency", "exploration_tools": ["write_file"]}, messages)
    assert custom.score == 1.0


def diff(*paths: str, escapes: list[dict[str, str]] | None = None) -> Response:
    files = [{"path": p, "status": "modified", "added": 1, "removed": 0} for p in paths]
    return Response(output="ok", artifacts={"diff": {"files": files}, "escapes": escapes or []})


def test_scope_adherence():
    settings = {
        "type": "scope_adherence",
        "allowed_paths": ["src/*", "*.md"],
        "forbidden_paths": ["src/secret*"],
    }
    outcome = run_evaluator(settings, diff("src/a.py", "README.md", "src/secret.key", "setup.py"))
    assert outcome.score == 0.5
    assert outcome.reason == "2 of 4 changed files in scope; out of scope: src/secret.key, setup.py"
    escaped = diff("src/a.py", escapes=[{"path": "../x", "kind": "written outside the workspace"}])
    outcome = run_evaluator(settings, escaped)
    assert (outcome.passed, outcome.score, outcome.reason) == (
        False,
        0.0,
        "the agent wrote outside its workspace: ../x",
    )
    assert run_evaluator({"type": "scope_adherence"}, "no workspace").error == (
        "scope_adherence needs the workspace diff: give the task a repo:"
    )
