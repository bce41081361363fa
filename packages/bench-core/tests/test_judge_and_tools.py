"""The core's judge settings, tool loop, tool-call parser and directory walker."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from bench.llm.client import LLMRequest, LLMResult, ModelCallError
from bench.llm.tool_calling import tool_loop
from bench.vocabulary.models import ToolCall, Usage
from bench.vocabulary.tool_calls import decode_arguments, parse_tool_call
from bench.workspace.tools import Workbench
from bench.workspace.walk import walk

# Every test here runs on both paths of the LLM client (the root conftest.py).
pytestmark = pytest.mark.usefixtures("llm_transport")


class Scripted:
    """An LLM client answering with the given results in turn, recording the requests."""

    def __init__(self, *results: LLMResult | Exception) -> None:
        self.results = list(results)
        self.requests: list[list[dict[str, Any]]] = []

    async def complete(self, request: LLMRequest) -> LLMResult:
        self.requests.append(list(request.messages))
        result = self.results.pop(0)
        if isinstance(result, Exception):
            raise result
        return result


def calls(*names: str) -> LLMResult:
    made = [ToolCall(name=n, arguments={"path": "."}, id=None) for n in names]
    raw = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": None, "function": {"name": n}} for n in names],
    }
    return LLMResult("m", None, made, "tool_calls", Usage(input_tokens=2, output_tokens=1), raw_message=raw)


def answer(text: str) -> LLMResult:
    return LLMResult(
        "m", text, [], "stop", Usage(input_tokens=3), raw_message={"role": "assistant", "content": text}
    )


def run(llm: Scripted, tmp_path: Path, **limits: Any) -> Any:
    import asyncio

    request = LLMRequest(model="m", messages=[{"role": "user", "content": "look"}])
    bench = Workbench(tmp_path, allowed=("list_dir",))
    return asyncio.run(tool_loop(llm, request, bench, **limits))  # type: ignore[arg-type]


def test_the_tool_loop_runs_calls_until_the_model_answers(tmp_path):
    (tmp_path / "a.txt").write_text("x")
    llm = Scripted(calls("list_dir", "list_dir"), answer("done"))
    outcome = run(llm, tmp_path, id_prefix="judge")
    assert outcome.final.text == "done"
    assert [c.name for c in outcome.calls] == ["list_dir", "list_dir"]
    tools = [m for m in outcome.messages if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ["judge_0_0", "judge_0_1"]
    assert "a.txt" in tools[0]["content"]
    assert len(llm.requests[1]) == 4  # the question, the calls, two results
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (5, 1)


def test_the_tool_loop_stops_at_its_turn_and_call_limits(tmp_path):
    outcome = run(Scripted(calls("list_dir"), calls("list_dir"), answer("x")), tmp_path, max_turns=2)
    assert outcome.final is None
    assert len(outcome.calls) == 2
    # the limit on calls is checked before each request; a batch is run whole
    outcome = run(Scripted(calls("list_dir", "list_dir"), answer("x")), tmp_path, max_calls=1)
    assert (outcome.final, len(outcome.calls)) == (None, 2)


def test_a_failed_model_call_in_the_tool_loop_says_at_which_turn(tmp_path):
    llm = Scripted(calls("list_dir"), ModelCallError("boom", model="m"))
    with pytest.raises(RuntimeError, match=r"^turn 2: boom$"):
        run(llm, tmp_path, on_error=lambda turn, exc: RuntimeError(f"turn {turn}: {exc}"))


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            {"id": "c1", "function": {"name": "f", "arguments": '{"a": 1}'}},
            ToolCall(name="f", arguments={"a": 1}, id="c1"),
        ),
        ({"name": "f", "arguments": {"a": 1}}, ToolCall(name="f", arguments={"a": 1})),
        ({"id": 7, "function": {"name": "f", "arguments": ""}}, ToolCall(name="f", arguments={}, id="7")),
        ({"function": {"name": "f", "arguments": "{not json"}}, ToolCall(name="f", arguments="{not json")),
        ({"function": {"arguments": "{}"}}, None),
        ("not a call", None),
    ],
)
def test_one_parser_reads_tool_calls(raw, expected):
    assert parse_tool_call(raw) == expected


def test_the_parser_can_keep_arguments_as_written():
    call = parse_tool_call({"function": {"name": "f", "arguments": '{"a": 1}'}}, decode=False)
    assert call == ToolCall(name="f", arguments='{"a": 1}')
    assert decode_arguments(None) == {}


@pytest.mark.parametrize(("raw", "expected"), [("", {}), ("  \n", {}), ('{"a": 1}', {"a": 1}), ("{a", "{a")])
def test_arguments_decode_whitespace_as_none_and_keep_text_that_is_not_json(raw, expected):
    assert decode_arguments(raw) == expected


@pytest.mark.parametrize(
    ("arguments", "text"),
    [
        ("  \n", "a.txt"),  # only whitespace: no arguments, so the default folder
        ("{a", "error: the arguments are not JSON: {a"),
        ('"a"', "error: the arguments must be a JSON object"),
    ],
)
def test_the_workbench_reads_arguments_with_the_one_parser(tmp_path, arguments, text):
    import asyncio

    (tmp_path / "a.txt").write_text("x")
    done = asyncio.run(Workbench(tmp_path, allowed=("list_dir",)).call("list_dir", arguments))
    assert done.text == text


def test_the_walker_lists_depth_first_without_following_links(tmp_path):
    (tmp_path / "b" / "skip").mkdir(parents=True)
    (tmp_path / "b" / "skip" / "hidden.txt").write_text("x")
    (tmp_path / "b" / "c.txt").write_text("x")
    (tmp_path / "a.txt").write_text("x")
    os.symlink(tmp_path / "b", tmp_path / "link")
    seen = [
        os.path.relpath(e.path, tmp_path)
        for e in walk(str(tmp_path), descend=lambda e: e.name != "skip", ordered=True)
    ]
    assert seen == ["a.txt", "b", "link", "b/c.txt", "b/skip"]


def test_framed_opens_the_system_message_with_the_judges_own_text():
    from bench.llm.judge import framed
    from bench.llm.verdict import data_rule, delimit

    system, user = framed("Is {response} {how}?", {"response": "r", "how": "kind"}, ("response",), "Judge.\n")
    block, tag = delimit("r", "response")
    assert system == {"role": "system", "content": f"Judge.\n{data_rule(tag)}"}
    assert user == {"role": "user", "content": f"Is {block} kind?"}
