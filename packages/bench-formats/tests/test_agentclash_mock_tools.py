"""AgentClash mock tools (tools.custom, implementation.type: mock) run as the litellm target's mocks."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import bench
from bench.testing import Reply, write_suite
from bench_formats.agentclash import AgentClashLoader

from .test_agentclash_pack import PACK

TOOLS = """\
tools:
  custom:
    - name: lookup
      description: Look a capital up.
      parameters: {type: object, properties: {country: {type: string}}}
      implementation:
        type: mock
        strategy: lookup
        lookup_key: country
        responses: {France: {capital: Paris}, "*": {capital: unknown}}
    - name: fixed
      implementation: {type: mock, response: {ok: true, b: 1}}
    - name: shell
      implementation: {primitive: exec, args: {cmd: "ls"}}
"""


def pack(tmp_path: Path) -> Path:
    text = PACK.replace("SCORECARD", "{dimensions: [correctness]}")
    text = text.replace("execution_mode: prompt_eval", "execution_mode: native")
    return write_suite(tmp_path, text + textwrap.dedent(TOOLS), name="pack.yaml")


def model(body: dict[str, Any]) -> Reply:
    results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
    if not results:
        calls = [
            {"name": "lookup", "arguments": {"country": "France"}},
            {"name": "lookup", "arguments": {"country": "Peru"}},
            {"name": "fixed", "arguments": {}},
        ]
        return Reply(None, calls, "tool_calls")
    return Reply("Paris")


def test_mock_tools_become_task_tools_and_mocks(tmp_path: Path):
    loader = AgentClashLoader()
    task = loader.load(pack(tmp_path)).data["tasks"][0]
    assert [t["name"] for t in task["tools"]] == ["lookup", "fixed"]
    assert task["tools"][1]["parameters"] == {"type": "object", "additionalProperties": False}
    assert task["tool_mocks"] == [
        {"name": "lookup", "match": {"country": "France"}, "response": '{"capital":"Paris"}'},
        {"name": "lookup", "response": '{"capital":"unknown"}'},
        {"name": "fixed", "response": '{"b":1,"ok":true}'},  # Go's json.Marshal sorts keys
    ]
    assert (
        "tools are not given to the target (shell): bench runs only mock tools with a static or lookup strategy"
        in loader.warnings
    )


def test_the_model_gets_the_mocks_answers(tmp_path: Path, bench_fake_llm):
    bench_fake_llm.default = model
    path = pack(tmp_path)
    outcome = bench.run(
        path, target={"type": "litellm", "model": "openai/fake"}, runs_dir=tmp_path / "runs", cache=False
    )
    task = next(iter(outcome.report.tasks()))
    assert task["response"] == "Paris"
    results = [m["content"] for m in bench_fake_llm.requests[-1].body["messages"] if m["role"] == "tool"]
    assert results == ['{"capital":"Paris"}', '{"capital":"unknown"}', '{"b":1,"ok":true}']
    assert [c["name"] for c in task["tool_calls"]] == ["lookup", "lookup", "fixed"]
