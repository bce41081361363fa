"""AgentClash mock tools (tools.custom, implementation.type: mock) run as the litellm target's mocks."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import bench
from bench.testing import Reply, write_suite
from bench_formats.agentclash.loader import AgentClashLoader

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
    - name: weather
      parameters: {type: object, properties: {city: {type: string}}}
      implementation:
        type: mock
        template: {city: "${city}", report: "sunny in ${city}", asked: "${parameters}", other: "${nope}"}
"""
PRIMITIVE = """\
    - name: shell
      implementation: {primitive: exec, args: {cmd: "ls"}}
"""


def pack(tmp_path: Path, tools: str = TOOLS) -> Path:
    text = PACK.replace("SCORECARD", "{dimensions: [correctness]}")
    text = text.replace("execution_mode: prompt_eval", "execution_mode: native")
    return write_suite(tmp_path, text + textwrap.dedent(tools), name="pack.yaml")


def model(body: dict[str, Any]) -> Reply:
    results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
    if not results:
        calls = [
            {"name": "lookup", "arguments": {"country": "France"}},
            {"name": "lookup", "arguments": {"country": "Peru"}},
            {"name": "fixed", "arguments": {}},
            {"name": "weather", "arguments": {"city": "Lima"}},
        ]
        return Reply(None, calls, "tool_calls")
    return Reply("Paris")


def test_mock_tools_become_task_tools_and_mocks(tmp_path: Path):
    loader = AgentClashLoader()
    task = loader.load(pack(tmp_path)).data["tasks"][0]
    assert [t["name"] for t in task["tools"]] == ["lookup", "fixed", "weather"]
    assert task["tools"][1]["parameters"] == {"type": "object", "additionalProperties": False}
    assert task["tool_mocks"] == [
        {"name": "lookup", "match": {"country": "France"}, "response": '{"capital":"Paris"}'},
        {"name": "lookup", "response": '{"capital":"unknown"}'},
        {"name": "fixed", "response": '{"b":1,"ok":true}'},  # Go's json.Marshal sorts keys
        {
            "name": "weather",
            "template": {
                "city": "${city}",
                "report": "sunny in ${city}",
                "asked": "${parameters}",
                "other": "${nope}",
            },
        },
    ]
    assert "response" not in task


def test_the_model_gets_the_mocks_answers(tmp_path: Path, bench_fake_llm):
    bench_fake_llm.default = model
    path = pack(tmp_path)
    outcome = bench.run(
        path, target={"type": "litellm", "model": "openai/fake"}, runs_dir=tmp_path / "runs", cache=False
    )
    task = next(iter(outcome.report.tasks()))
    assert task["response"] == "Paris"
    results = [m["content"] for m in bench_fake_llm.requests[-1].body["messages"] if m["role"] == "tool"]
    # echo (mock_tools.go executeEcho, template.go substituteTemplate): a reference to no argument
    # stays as written, ${parameters} alone is all the arguments
    echo = '{"asked":{"city":"Lima"},"city":"Lima","other":"${nope}","report":"sunny in Lima"}'
    assert results == ['{"capital":"Paris"}', '{"capital":"unknown"}', '{"b":1,"ok":true}', echo]
    assert [c["name"] for c in task["tool_calls"]] == ["lookup", "lookup", "fixed", "weather"]


def test_a_tool_backed_by_a_primitive_makes_every_case_an_error(tmp_path: Path, bench_fake_llm):
    path = pack(tmp_path, TOOLS + PRIMITIVE)
    outcome = bench.run(path, target={"type": "litellm", "model": "openai/fake"}, runs_dir=tmp_path / "runs")
    task = next(iter(outcome.report.tasks()))
    assert task["status"] == "error"
    assert task["error"] == (
        "tools bench cannot give the target: shell (AgentClash runs them through its sandbox's "
        "primitives; bench runs mock tools only)"
    )
    assert bench_fake_llm.requests == []  # no case ran without its tools
