"""The litellm target's mocked tools: a real model server scripting tool calls, mocks answering them."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bench.llm.mock_tools import MockToolbox, fill_template, matches
from bench.testing import Reply, load_suite, run_suite, write_suite
from bench.vocabulary.errors import InvalidSuite
from bench.vocabulary.models import ToolMock


def script(*turns: Reply) -> Any:
    """Answer the n-th model call of a task with the n-th turn."""

    def respond(body: dict[str, Any]) -> Reply:
        done = sum(1 for m in body["messages"] if m["role"] == "assistant")
        return turns[min(done, len(turns) - 1)]

    return respond


def call(name: str, **arguments: Any) -> Reply:
    return Reply(
        content=None, tool_calls=[{"name": name, "arguments": arguments}], finish_reason="tool_calls"
    )


def tool_results(bench_fake_llm) -> list[str]:
    return [m["content"] for m in bench_fake_llm.requests[-1].body["messages"] if m["role"] == "tool"]


def suite_text(mocks: str, max_steps: str = "") -> str:
    return f"""
target:
  type: litellm
  model: openai/fake
  {max_steps}
  tools:
    - name: get_weather
      description: The weather in a city.
      input_schema: {{type: object, properties: {{city: {{type: string}}}}}}
  tool_mocks:
{mocks}
tasks:
  - id: weather
    prompt: "Weather in Paris?"
    evaluate: [{{type: contains, value: sunny}}]
"""


def run_text(tmp_path, text: str) -> dict[str, Any]:
    path = write_suite(tmp_path, text)
    return next(iter(run_suite(path, cache=False).report.tasks()))


def test_a_mocked_tool_answers_the_model_which_then_answers(tmp_path, bench_fake_llm):
    bench_fake_llm.default = script(call("get_weather", city="Paris"), Reply("It is sunny in Paris."))
    task = run_text(tmp_path, suite_text('    - {name: get_weather, response: "sunny, 21C"}'))
    assert task["status"] == "passed", task
    assert task["response"] == "It is sunny in Paris."
    assert task["tool_calls"] == [
        {"name": "get_weather", "arguments": {"city": "Paris"}, "id": task["tool_calls"][0]["id"]}
    ]
    assert tool_results(bench_fake_llm) == ["sunny, 21C"]
    first = bench_fake_llm.requests[0].body
    assert first["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "The weather in a city.",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]
    assert bench_fake_llm.count() == 2
    assert task["usage"]["input_tokens"] == 20  # two model calls of 10 prompt tokens each


def test_match_picks_the_mock_whose_arguments_the_call_has(tmp_path, bench_fake_llm):
    bench_fake_llm.default = script(
        Reply(
            content=None,
            tool_calls=[
                {"name": "get_weather", "arguments": {"city": "Oslo", "days": 1}},
                {"name": "get_weather", "arguments": {"city": "Paris", "days": 1.0}},
            ],
            finish_reason="tool_calls",
        ),
        Reply("sunny"),
    )
    mocks = """    - {name: get_weather, match: {city: Paris, days: 1}, response: sunny}
    - {name: get_weather, match: {city: Rome}, response: hot}
    - {name: get_weather, response: {sky: snow, temp: -3}}"""
    task = run_text(tmp_path, suite_text(mocks))
    # Oslo matches no match: the unconditional mock answers (a mapping, as compact JSON).
    assert tool_results(bench_fake_llm) == ['{"sky":"snow","temp":-3}', "sunny"]
    assert [c["arguments"]["city"] for c in task["tool_calls"]] == ["Oslo", "Paris"]


def test_an_error_mock_returns_its_error_text(tmp_path, bench_fake_llm):
    bench_fake_llm.default = script(call("get_weather", city="Paris"), Reply("The service is down."))
    task = run_text(
        tmp_path, suite_text('    - {name: get_weather, error: "service unavailable", response: sunny}')
    )
    assert tool_results(bench_fake_llm) == ["service unavailable"]
    assert task["status"] == "failed"  # the model's answer lacks "sunny"; the task ran
    assert task["error"] is None


def test_a_call_no_mock_answers_gets_a_note_and_the_loop_goes_on(tmp_path, bench_fake_llm):
    bench_fake_llm.default = script(call("get_time", zone="UTC"), Reply("sunny anyway"))
    task = run_text(tmp_path, suite_text("    - {name: get_weather, match: {city: Paris}, response: sunny}"))
    assert tool_results(bench_fake_llm) == ['no tool mock for "get_time"']
    assert task["status"] == "passed"


def test_reaching_max_steps_is_an_error_with_the_last_turn_s_text(tmp_path, bench_fake_llm):
    bench_fake_llm.default = Reply(
        content="checking", tool_calls=[{"name": "get_weather", "arguments": {}}], finish_reason="tool_calls"
    )
    task = run_text(tmp_path, suite_text("    - {name: get_weather, response: sunny}", "max_steps: 3"))
    assert task["status"] == "error"
    assert task["error"] == "max steps (3) reached: the model still called tools"
    assert task["response"] == "checking"
    assert len(task["tool_calls"]) == 3
    assert bench_fake_llm.count() == 3


def test_a_task_s_own_mocks_and_max_steps_come_first(tmp_path, bench_fake_llm):
    bench_fake_llm.default = script(call("get_weather", city="Paris"), call("get_weather"), Reply("sunny"))
    text = suite_text("    - {name: get_weather, response: target's}").replace(
        '    prompt: "Weather in Paris?"',
        '    prompt: "Weather in Paris?"\n    max_steps: 2\n    tool_mocks: [{name: get_weather, match: {city: Paris}, response: task\'s}]',
    )
    task = run_text(tmp_path, text)
    # turn 1: the task's mock (its match holds); turn 2: no city, the target's; no turn 3
    assert tool_results(bench_fake_llm) == ["task's"]
    assert bench_fake_llm.count() == 2
    assert task["error"] == "max steps (2) reached: the model still called tools"
    assert [c["arguments"] for c in task["tool_calls"]] == [{"city": "Paris"}, {}]


def test_without_mocks_the_model_is_called_once_and_its_calls_recorded(tmp_path, bench_fake_llm):
    bench_fake_llm.default = call("get_weather", city="Paris")
    text = suite_text("").replace("  tool_mocks:\n", "")
    task = run_text(tmp_path, text)
    assert bench_fake_llm.count() == 1
    assert [c["name"] for c in task["tool_calls"]] == ["get_weather"]
    assert task["error"] is None


def test_mocks_without_tools_are_refused(tmp_path):
    path = write_suite(
        tmp_path,
        """
        target: {type: litellm, model: openai/fake, tool_mocks: [{name: t, response: x}]}
        tasks: [{id: a, prompt: hi}]
        """,
    )
    with pytest.raises(InvalidSuite) as raised:
        load_suite(path)
    assert str(raised.value) == (
        f"{path}:1:1: target: Value error, tool_mocks need tools: list the tools the model is offered "
        "under 'tools' (got {'model': 'openai/fake', 'tool_mocks': [{'name': 't', 're...)"
    )


def test_a_task_with_mocks_and_a_target_without_tools_is_an_error(tmp_path, bench_fake_llm):
    path = write_suite(
        tmp_path,
        """
        target: {type: litellm, model: openai/fake}
        tasks: [{id: a, prompt: hi, tool_mocks: [{name: t, response: x}], evaluate: [{type: contains, value: x}]}]
        """,
    )
    task = next(iter(run_suite(path, cache=False).report.tasks()))
    assert task["error"] == "the task has tool_mocks but the target offers no tools (its 'tools:')"
    assert bench_fake_llm.count() == 0


@pytest.mark.parametrize(
    ("match", "actual", "expected"),
    [
        ({"a": 1}, {"a": 1.0, "b": 2}, True),  # numbers by value, extra keys allowed
        ({"a": {"b": "x"}}, {"a": {"b": "x", "c": 1}}, True),
        ({"a": [1, 2]}, {"a": [1, 2, 3]}, False),  # lists: same length
        ({"a": None}, {"a": None}, True),
        ({"a": None}, {}, False),  # a key must be there
        ({"a": "1"}, {"a": 1}, False),
        ({"a": True}, {"a": 1}, False),
        ({"a": 1}, "not json", False),
    ],
)
def test_match_rules(match, actual, expected):
    assert matches(match, actual) is expected


def test_arguments_that_are_not_json_match_no_match():
    box = MockToolbox([ToolMock(name="t", match={"q": "x"}, response="a")])
    assert asyncio.run(box.call("t", "{not json")).text == 'no tool mock for "t"'
    assert asyncio.run(box.call("t", '{"q": "x"}')).text == "a"


def test_a_task_s_own_tools_are_offered_with_its_mocks(tmp_path, bench_fake_llm):
    bench_fake_llm.default = script(call("lookup", q="x"), Reply("42"))
    path = write_suite(
        tmp_path,
        """
        target: {type: litellm, model: openai/fake}
        tasks:
          - id: a
            prompt: hi
            tools: [{name: lookup, parameters: {type: object}}]
            tool_mocks: [{name: lookup, response: {answer: 42}}]
            evaluate: [{type: contains, value: "42"}]
        """,
    )
    task = next(iter(run_suite(path, cache=False).report.tasks()))
    assert task["status"] == "passed"
    assert bench_fake_llm.requests[0].body["tools"] == [
        {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object"}}}
    ]
    assert tool_results(bench_fake_llm) == ['{"answer":42}']


def test_the_docs_example_runs(tmp_path, bench_fake_llm):
    import re
    from pathlib import Path

    docs = (Path(__file__).parents[3] / "docs" / "suites.md").read_text()
    example = re.search(r"### Mocked tools\n.*?```yaml\n(.*?)```", docs, re.S).group(1)
    bench_fake_llm.default = script(
        call("get_weather", city="Paris"), call("get_weather", city="Lima"), Reply("It is sunny.")
    )
    path = write_suite(tmp_path, example.replace("openai/gpt-4o-mini", "openai/fake"))
    task = next(iter(run_suite(path, cache=False).report.tasks()))
    assert task["status"] == "passed"
    assert tool_results(bench_fake_llm) == ["sunny, 21C", '{"city":"Lima","sky":"cloudy"}']


ARGUMENTS = {"city": "Lima", "days": 2, "filters": {"tags": ["a b/c"]}}


@pytest.mark.parametrize(
    ("template", "answer"),
    [
        ("${city}", "Lima"),
        ("weather in ${city} for ${days} days", "weather in Lima for 2 days"),
        ("${filters.tags}", '["a b/c"]'),  # anything but text as compact JSON
        ("${json:city}", '"Lima"'),
        ("${query:filters.tags}", "%5B%22a+b%2Fc%22%5D"),
        ("${path:filters.tags}", "%5B%22a%20b%2Fc%22%5D"),
        ("${missing} ${filters.nope} ${secrets.key}", "${missing} ${filters.nope} ${secrets.key}"),
        ("${parameters}", ARGUMENTS),
        ({"a": ["${city}", 3, None]}, {"a": ["Lima", 3, None]}),
        ({"a": "${city}", "b": "${unclosed"}, {"a": "${city}", "b": "${unclosed"}),  # left unfilled
    ],
)
def test_a_template_is_filled_with_the_calls_arguments(template, answer):
    assert fill_template(template, ARGUMENTS) == answer


def test_a_template_mock_answers_its_filled_template_as_sorted_json():
    box = MockToolbox([ToolMock(name="weather", template={"z": "${city}", "a": "${days}"})])
    result = asyncio.run(box.call("weather", '{"city": "Lima", "days": 2}'))
    assert result.text == '{"a":"2","z":"Lima"}'
    assert not result.failed
