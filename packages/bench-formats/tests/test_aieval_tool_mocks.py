"""AI Eval's tool_mocks run as the litellm target's mocked tool loop, against the fake model server."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import bench
from bench.testing import Reply
from bench_formats.aieval.loader import AIEvalLoader

PROMPT = """\
name: helper
template: "Question: {{.q}}"
tools:
  - name: search
    description: Search the docs.
    input_schema: {type: object, properties: {q: {type: string}}}
"""

SUITE = """\
suite: helper
prompt: helper
cases:
  - id: answers
    input: {q: bench}
    tool_mocks:
      - {name: search, match: {q: other}, response: wrong page}
      - {name: search, match: {q: bench}, response: bench is an eval tool}
      - {name: search, error: rate limited}
    expected:
      contains: [eval tool]
      tool_calls:
        - {name: search, args_match: {q: bench}, required: true}
  - id: loops
    input: {q: forever}
    max_steps: 2
    tool_mocks:
      - {name: search, response: nothing}
    expected: {contains: [done]}
  - id: no_mocks
    input: {q: once}
    expected:
      tool_calls:
        - {name: search, required: true}
"""


def project(tmp_path: Path, base_url: str) -> Path:
    for folder in ("prompts", "tests", "configs"):
        (tmp_path / folder).mkdir()
    (tmp_path / "prompts" / "helper.yaml").write_text(PROMPT)
    (tmp_path / "configs" / "config.yaml").write_text(
        textwrap.dedent(
            f"""\
            llm:
              default_provider: openai
              providers:
                openai: {{model: fake, base_url: '{base_url}'}}
            evaluation: {{trials: 1, threshold: 1}}
            """
        )
    )
    path = tmp_path / "tests" / "suite.yaml"
    path.write_text(SUITE)
    return path


def model(body: dict[str, Any]) -> Reply:
    """The scripted model: looks ``bench`` up then answers; calls search forever on ``forever``."""
    question = body["messages"][0]["content"]
    results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
    if "forever" in question:
        return Reply("still looking", [{"name": "search", "arguments": {"q": "more"}}], "tool_calls")
    if "once" in question:
        return Reply(None, [{"name": "search", "arguments": {"q": "x"}}], "tool_calls")
    if not results:
        return Reply(None, [{"name": "search", "arguments": {"q": "bench"}}], "tool_calls")
    return Reply(f"Found: {results[-1]}")


def test_the_loader_gives_each_case_its_mocks_and_max_steps(tmp_path: Path):
    loader = AIEvalLoader()
    tasks = loader.load(project(tmp_path, "http://127.0.0.1:9/v1")).data["tasks"]
    assert tasks[0]["tool_mocks"] == [
        {"name": "search", "response": "wrong page", "match": {"q": "other"}},
        {"name": "search", "response": "bench is an eval tool", "match": {"q": "bench"}},
        {"name": "search", "response": "", "error": "rate limited"},
    ]
    assert (tasks[0]["max_steps"], tasks[1]["max_steps"]) == (5, 2)  # runner.go: 0 means 5
    assert "tool_mocks" not in tasks[2]
    assert loader.warnings == []


def test_mocked_tools_answer_and_verdicts_are_ai_eval_s(tmp_path: Path, bench_fake_llm):
    bench_fake_llm.default = model
    path = project(tmp_path, bench_fake_llm.url)
    outcome = bench.run(path, runs_dir=tmp_path / "runs", cache=False)
    tasks = {t["id"]: t for t in outcome.report.tasks()}
    answers = tasks["answers"]
    # the second mock answers q=bench: "Found: bench is an eval tool" contains "eval tool" (1/1),
    # and the one search call has q=bench (1/1 expected calls): both pass, score 1.
    assert answers["response"] == "Found: bench is an eval tool"
    assert [(e["passed"], e["score"]) for e in answers["evaluators"]] == [(True, 1.0), (True, 1.0)]
    assert answers["passed"] is True
    # loops: two turns both calling search; AI Eval's trial fails with the loop's error.
    loops = tasks["loops"]
    assert loops["status"] == "error"
    assert loops["error"] == "max steps (2) reached: the model still called tools"
    assert loops["response"] == "still looking"
    # no_mocks: one request with the tools, its call recorded (1/1 expected calls), no loop.
    assert tasks["no_mocks"]["passed"] is True
    assert [c["name"] for c in tasks["no_mocks"]["tool_calls"]] == ["search"]
    assert bench_fake_llm.count() == 2 + 2 + 1
