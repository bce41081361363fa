"""AI Eval's judged and agent checks: verdicts derived by hand from runner.go's rules.

runner.go ``evaluateTrial``: with ``score_threshold`` > 0 a check passes at score >= threshold;
without one, the evaluator's own default applies (hallucination 0.9, faithfulness 0.8,
relevancy 0.8, task_completion 0.6, precision: always passes, tool_selection: every tool used).
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

import bench
from bench import ConfigError
from bench.testing import Reply, judge_verdict, load_suite

PROMPT = "name: p\ntemplate: 'Say {{.word}}'\nvariables: [{name: word, required: true}]\n"
MODEL = "openai/fake-judge"
ANSWER = "The answer."


def project(tmp_path: Path, cases: str, answers: dict[str, Any] | None = None) -> Path:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "prompts" / "p.yaml").write_text(PROMPT)
    path = tmp_path / "tests" / "suite.yaml"
    path.write_text("suite: s\nprompt: p\ncases:\n" + textwrap.dedent(cases))
    if answers is not None:
        lines = [json.dumps({"id": key, "response": value}) for key, value in answers.items()]
        (tmp_path / "tests" / "answers.jsonl").write_text("\n".join(lines) + "\n")
    return path


def judged_run(bench_fake_llm, path: Path, **verdict: Any) -> dict[str, tuple[bool, float]]:
    """Run against the fake model, which answers the case and, as the judge, gives ``verdict``."""
    judge = judge_verdict(**verdict)

    def respond(body: dict[str, Any]) -> Reply:
        first = str(body["messages"][0].get("content") or "")
        return Reply(ANSWER) if first.startswith("Say ") else judge(body)

    bench_fake_llm.default = respond
    outcome = bench.run(path, target={"type": "litellm", "model": MODEL}, runs_dir=path.parent / "runs")
    return verdicts(outcome)


def verdicts(outcome: Any) -> dict[str, tuple[bool, float]]:
    out = {}
    for task in outcome.report.tasks():
        assert task["error"] is None, task["error"]
        out[task["id"]] = (task["passed"], round(task["score"], 3))
    return out


def test_hallucination_passes_at_0_9_or_the_threshold(bench_fake_llm, tmp_path: Path):
    path = project(
        tmp_path,
        """
        - {id: default, input: {word: x}, evaluators: [{type: hallucination, ground_truth: "It is Tuesday."}]}
        - id: lower
          input: {word: x}
          evaluators: [{type: hallucination, ground_truth: "It is Tuesday.", score_threshold: 0.8}]
        """,
    )
    # The judge scores 0.85: default 0.85 < 0.9 fails; lower 0.85 >= 0.8 passes; score 0.85 both.
    assert judged_run(bench_fake_llm, path, score=0.85) == {"default": (False, 0.85), "lower": (True, 0.85)}
    # The judge prompt carries the ground truth (the two cases' identical judge calls may share
    # one cached reply, and the tasks run concurrently: any request order).
    assert any("It is Tuesday." in str(r.body["messages"]) for r in bench_fake_llm.requests)


def test_faithfulness_passes_at_0_8_or_the_threshold(bench_fake_llm, tmp_path: Path):
    path = project(
        tmp_path,
        """
        - {id: default, input: {word: x}, evaluators: [{type: faithfulness, context: "Returns in 30 days."}]}
        - id: lower
          input: {word: x}
          evaluators: [{type: faithfulness, context: "Returns in 30 days.", score_threshold: 0.7}]
        """,
    )
    claims = [{"claim": f"c{i}", "supported": i < 3, "reason": "r"} for i in range(4)]
    # 3 of 4 claims supported: 0.75; default 0.75 < 0.8 fails; lower 0.75 >= 0.7 passes.
    assert judged_run(bench_fake_llm, path, claims=claims) == {
        "default": (False, 0.75),
        "lower": (True, 0.75),
    }


def test_relevancy_passes_at_0_8_or_the_threshold(bench_fake_llm, tmp_path: Path):
    path = project(
        tmp_path,
        """
        - {id: default, input: {word: x}, evaluators: [{type: relevancy, question: "What is it?"}]}
        - {id: lower, input: {word: x}, evaluators: [{type: relevancy, question: "What is it?", score_threshold: 0.6}]}
        """,
    )
    # The judge scores 0.7: default 0.7 < 0.8 fails; lower 0.7 >= 0.6 passes.
    assert judged_run(bench_fake_llm, path, score=0.7) == {"default": (False, 0.7), "lower": (True, 0.7)}


def test_precision_always_passes_without_a_threshold(bench_fake_llm, tmp_path: Path):
    path = project(
        tmp_path,
        """
        - {id: default, input: {word: x}, evaluators: [{type: precision, context: "Hours: 9am.", question: "Returns?"}]}
        - id: strict
          input: {word: x}
          evaluators: [{type: precision, context: "Hours: 9am.", question: "Returns?", score_threshold: 0.5}]
        """,
    )
    # The one chunk is judged irrelevant: score 0. precision.go passes without a threshold
    # (default: passed, score 0); strict: 0 < 0.5 fails.
    chunks = [{"relevant": False, "reason": "hours"}]
    assert judged_run(bench_fake_llm, path, chunks=chunks) == {"default": (True, 0.0), "strict": (False, 0.0)}


def test_task_completion_passes_at_0_6_and_weighs_the_criteria_in_one_score(bench_fake_llm, tmp_path: Path):
    path = project(
        tmp_path,
        """
        - id: default
          input: {word: x}
          evaluators: [{type: task_completion, task: "Summarise", criteria_list: [Short, Neutral]}]
        - {id: strict, input: {word: x}, evaluators: [{type: task_completion, task: "Summarise", score_threshold: 0.7}]}
        """,
    )
    # The judge scores 0.6: default 0.6 >= 0.6 passes; strict 0.6 < 0.7 fails.
    assert judged_run(bench_fake_llm, path, score=0.6) == {"default": (True, 0.6), "strict": (False, 0.6)}
    # The criteria reach the judge inside the task, not as bench's per-criterion verdicts.
    prompts = ["\n".join(str(m.get("content")) for m in r.body["messages"]) for r in bench_fake_llm.requests]
    assert sum("Summarise\n\nCriteria:\n- Short\n- Neutral" in p for p in prompts) == 1


def test_tool_selection_needs_every_expected_tool_or_the_threshold(tmp_path: Path):
    path = project(
        tmp_path,
        """
        - {id: default, input: {word: x}, evaluators: [{type: tool_selection, expected_tools: [search, calc]}]}
        - id: half
          input: {word: x}
          evaluators: [{type: tool_selection, expected_tools: [search, calc], score_threshold: 0.5}]
        """,
        {
            "default": {"output": "done", "tool_calls": [{"name": "search", "arguments": {}}]},
            "half": {"output": "done", "tool_calls": [{"name": "search", "arguments": {}}]},
        },
    )
    outcome = bench.run(
        path, target={"type": "recorded", "file": "answers.jsonl"}, runs_dir=path.parent / "runs"
    )
    # search called, calc not: 1 of 2 = 0.5; default needs both (fails); half: 0.5 >= 0.5 passes.
    assert verdicts(outcome) == {"default": (False, 0.5), "half": (True, 0.5)}


def test_efficiency_budgets_default_to_the_cases_steps_and_1000_tokens(tmp_path: Path):
    path = project(
        tmp_path,
        """
        - {id: default, input: {word: x}, evaluators: [{type: efficiency}]}
        - {id: lenient, input: {word: x}, evaluators: [{type: efficiency, score_threshold: 0.9}]}
        - {id: roomy, input: {word: x}, max_steps: 2, evaluators: [{type: efficiency, max_tokens: 2000}]}
        """,
        {
            key: {"output": "done", "usage": {"input_tokens": 900, "output_tokens": 300}}
            for key in ("default", "lenient", "roomy")
        },
    )
    outcome = bench.run(
        path, target={"type": "recorded", "file": "answers.jsonl"}, runs_dir=path.parent / "runs"
    )
    # One call: 1 step <= 5 (or the case's 2) scores 1; 1200 tokens > 1000 scores 1000/1200 = 0.833;
    # mean (1 + 0.833) / 2 = 0.917, failing (a budget exceeded) unless 0.917 >= 0.9 (lenient).
    # roomy: 1200 <= 2000: both budgets met, score 1.
    assert verdicts(outcome) == {"default": (False, 0.917), "lenient": (True, 0.917), "roomy": (True, 1.0)}


def test_efficiency_with_tool_mocks_is_refused(tmp_path: Path):
    path = project(
        tmp_path,
        "- id: a\n  input: {word: x}\n  tool_mocks: [{name: search, response: found}]\n"
        "  evaluators: [{type: efficiency}]\n",
    )
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    assert caught.value.message == (
        "cases[0] (a): evaluators[0] (efficiency): AI Eval counts the steps and tokens of its mocked tool "
        "loop by its own rules, which bench's efficiency check does not reproduce yet"
    )


def test_tool_selection_without_expected_tools_is_refused(tmp_path: Path):
    path = project(tmp_path, "- {id: a, input: {word: x}, evaluators: [{type: tool_selection}]}\n")
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    assert caught.value.message == (
        "cases[0] (a): evaluators[0] (tool_selection): no expected_tools; AI Eval then passes only a "
        "trial that calls no tool, which bench's tool_selection cannot check"
    )
