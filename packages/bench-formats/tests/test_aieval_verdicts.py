"""AI Eval suites run with recorded answers: verdicts and scores derived by hand from runner.go's rules."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import bench
from bench.testing import load_suite

PROMPT = """\
name: code_review
version: "1.0"
description: Review a diff
template: |
  You are a strict code reviewer.
  Review the following diff (language={{.language}}):

  {{.diff}}
variables:
  - name: language
    required: false
    default: go
  - name: diff
    required: true
"""


def project(tmp_path: Path, suite: str, answers: dict[str, Any], prompt: str = PROMPT) -> Path:
    """An AI Eval project: prompts/, tests/ and recorded answers beside the suite."""
    (tmp_path / "prompts").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "prompts" / "code_review.yaml").write_text(prompt)
    path = tmp_path / "tests" / "suite.yaml"
    path.write_text(textwrap.dedent(suite))
    lines = [json.dumps({"id": key, "response": value}) for key, value in answers.items()]
    (tmp_path / "tests" / "answers.jsonl").write_text("\n".join(lines) + "\n")
    return path


def run(path: Path) -> dict[str, dict[str, Any]]:
    outcome = bench.run(
        path, target={"type": "recorded", "file": "answers.jsonl"}, runs_dir=path.parent / "runs"
    )
    return {f"{t['id']}@{t['repeat']}": t for t in outcome.report.tasks()}


def checks(task: dict[str, Any]) -> dict[str, tuple[bool, float]]:
    return {e["name"]: (e["passed"], round(e["score"], 3)) for e in task["evaluators"]}


def test_expected_block_checks_score_as_ai_eval(tmp_path: Path):
    path = project(
        tmp_path,
        """
        suite: review
        prompt: code_review
        cases:
          - id: all_found
            input: {diff: "+ return a + b"}
            expected:
              contains: [overflow, test]
              not_contains: [LGTM]
              regex: ["(?i)overflow", "^Possible"]
          - id: partly
            input: {diff: "+ x"}
            expected:
              contains: [overflow, test, bug]
              not_contains: [LGTM, nit]
          - id: exact
            input: {diff: "+ y"}
            expected: {exact_match: "ok"}
        """,
        {
            "all_found": "Possible overflow; add a test.",
            "partly": "overflow: LGTM",
            "exact": "ok ",
        },
    )
    results = run(path)
    # all_found: contains 2/2 = 1, not_contains 1/1 absent = 1, regex 2/2 = 1; mean 1.
    assert checks(results["all_found@0"]) == {
        "expected.contains": (True, 1.0),
        "expected.not_contains": (True, 1.0),
        "expected.regex": (True, 1.0),
    }
    assert results["all_found@0"]["passed"] is True
    assert round(results["all_found@0"]["score"], 3) == 1.0
    # partly: contains found 1 of 3 = 0.333 (fails); not_contains absent 1 of 2 = 0.5 (fails);
    # trial score = (0.333 + 0.5) / 2 = 0.417.
    assert checks(results["partly@0"]) == {
        "expected.contains": (False, 0.333),
        "expected.not_contains": (False, 0.5),
    }
    assert results["partly@0"]["passed"] is False
    assert round(results["partly@0"]["score"], 3) == 0.417
    # exact: "ok " != "ok": score 0.
    assert checks(results["exact@0"]) == {"expected.exact_match": (False, 0.0)}


def test_score_threshold_replaces_the_checks_pass(tmp_path: Path):
    path = project(
        tmp_path,
        """
        suite: review
        prompt: code_review
        cases:
          - id: half
            input: {diff: "+ x"}
            expected:
              contains: [overflow, test]
            evaluators:
              - {type: contains, score_threshold: 0.5}
          - id: below
            input: {diff: "+ x"}
            expected:
              contains: [overflow, test, bug]
            evaluators:
              - {type: contains, score_threshold: 0.5}
        """,
        {"half": "overflow", "below": "overflow"},
    )
    results = run(path)
    # half: found 1/2 = 0.5 >= 0.5: passes (the entry claims expected.contains: no second check).
    assert checks(results["half@0"]) == {"contains": (True, 0.5)}
    assert results["half@0"]["passed"] is True
    # below: found 1/3 = 0.333 < 0.5: fails.
    assert checks(results["below@0"]) == {"contains": (False, 0.333)}
    assert results["below@0"]["passed"] is False


def test_a_dropped_expected_key_leaves_contains_empty_and_passing(tmp_path: Path):
    # AI Eval's own omo example writes `{type: contains, expected: "develop"}`: yaml.Unmarshal drops
    # `expected`, the runner gives contains the case's expected.contains ([]): passed, score 1.
    path = project(
        tmp_path,
        """
        suite: review
        prompt: code_review
        cases:
          - id: routes_to_develop
            input: {diff: "+ x"}
            evaluators:
              - type: contains
                expected: "develop"
              - type: regex
                pattern: 'codeagent-wrapper\\s+--agent'
        """,
        {"routes_to_develop": "I will do it myself."},
    )
    plan = load_suite(path, target={"type": "recorded", "file": "answers.jsonl"})
    assert plan.template_warnings == [
        f"{path}: cases[0] (routes_to_develop).evaluators[0] (contains): unknown key 'expected' dropped "
        "(AI Eval ignores it)",
        f"{path}: cases[0] (routes_to_develop).evaluators[1] (regex): unknown key 'pattern' dropped "
        "(AI Eval ignores it)",
        f"{path}: cases[0] (routes_to_develop): evaluators[0] (contains) checks the case's expected.contains, "
        'which is empty: it passes with score 1 ("no expected substrings"), as in AI Eval',
        f"{path}: cases[0] (routes_to_develop): evaluators[1] (regex) checks the case's expected.regex, "
        'which is empty: it passes with score 1 ("no patterns to match"), as in AI Eval',
    ]
    results = run(path)
    assert checks(results["routes_to_develop@0"]) == {"contains": (True, 1.0), "regex": (True, 1.0)}
    assert results["routes_to_develop@0"]["passed"] is True


def test_tool_calls_expectations_and_the_tool_call_threshold(tmp_path: Path):
    path = project(
        tmp_path,
        """
        suite: review
        prompt: code_review
        cases:
          - id: ordered
            input: {diff: "+ x"}
            expected:
              tool_calls:
                - {name: git, args_match: {cmd: log}, order: 1, required: true}
                - {name: blame, required: false}
          - id: threshold
            input: {diff: "+ x"}
            expected:
              tool_calls:
                - {name: git, required: true}
                - {name: blame, required: true}
            evaluators:
              - {type: tool_call, score_threshold: 0.5}
        """,
        {
            "ordered": {"output": "done", "tool_calls": [{"name": "git", "arguments": {"cmd": "log"}}]},
            "threshold": {"output": "done", "tool_calls": [{"name": "git", "arguments": {}}]},
        },
    )
    results = run(path)
    # ordered: git at 1 matches, blame (not required) is missing: 1/2 = 0.5, passes (no required missing).
    assert checks(results["ordered@0"]) == {"expected.tool_calls": (True, 0.5)}
    # threshold: blame is required and missing, but score 1/2 = 0.5 >= 0.5 replaces the pass.
    assert checks(results["threshold@0"]) == {"expected.tool_calls": (True, 0.5)}


def test_a_render_error_is_the_cases_error(tmp_path: Path):
    path = project(
        tmp_path,
        """
        suite: review
        prompt: code_review
        cases:
          - id: no_diff
            input: {language: rust}
            expected: {contains: [x]}
        """,
        {},
    )
    results = run(path)
    assert results["no_diff@0"]["status"] == "error"
    assert results["no_diff@0"]["error"] == 'prompt: missing required variable "diff"'


def test_trials_run_as_repeats(tmp_path: Path):
    path = project(
        tmp_path,
        """
        suite: review
        prompt: code_review
        cases:
          - id: thrice
            trials: 3
            input: {diff: "+ x"}
            expected: {contains: [ok]}
        """,
        {"thrice": "ok"},
    )
    plan = load_suite(path, target={"type": "recorded", "file": "answers.jsonl"})
    # No configs/config.yaml: the threshold is 1 (a case passes when every check of its trial does).
    assert plan.pass_at_k == {"thrice": 1.0}
    outcome = bench.run(
        path, target={"type": "recorded", "file": "answers.jsonl"}, runs_dir=tmp_path / "runs"
    )
    results = {f"{t['id']}@{t['repeat']}": t for t in outcome.report.tasks()}
    assert sorted(results) == ["thrice@0", "thrice@1", "thrice@2"]
    # p = 3/3, k = 3: pass@k = 1 - 0^3 = 1 >= 1
    assert outcome.report.extra["pass_at_k"]["tasks"]["thrice"] == {
        "runs": 3,
        "passed_runs": 3,
        "pass_at_k": 1.0,
        "threshold": 1.0,
        "passed": True,
    }
    assert outcome.report.passed


def test_contains_and_regex_see_the_tool_calls_not_contains_does_not(tmp_path: Path):
    path = project(
        tmp_path,
        """
        suite: review
        prompt: code_review
        cases:
          - id: routed
            input: {diff: "+ x"}
            expected:
              contains: [develop]
              regex: ["--agent|\\"agent\\": \\"develop\\""]
              not_contains: [develop]
        """,
        {
            "routed": {
                "output": "Routing.",
                "tool_calls": [{"name": "codeagent", "arguments": {"agent": "develop"}}],
            }
        },
    )
    results = run(path)
    # contains and regex search "## Response Text\nRouting.\n\n## Tool Calls Made\n...\"agent\": \"develop\"...":
    # found 1/1 and matched 1/1; not_contains searches "Routing." only: absent 1/1. Mean 1.
    assert checks(results["routed@0"]) == {
        "expected.contains": (True, 1.0),
        "expected.not_contains": (True, 1.0),
        "expected.regex": (True, 1.0),
    }
