"""What each model call costs bench between the calls (benchmarks/README.md, the model-call rows)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from pydantic import BaseModel

from bench.evaluator import Result, Sample
from bench.llm import verdict
from bench.llm.client import LLMClient
from bench.llm.judge import Judge, JudgeConfig, Vote
from bench.llm.request import LLMRequest, LLMResult
from bench.vocabulary.errors import EvaluatorError
from bench.vocabulary.models import Response, Task, Usage
from bench.vocabulary.templates import MissingPlaceholder, render, render_repeated


def test_a_judge_has_its_verdict_reader_imported_before_its_first_answer(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delitem(sys.modules, "json_repair", raising=False)

    class _Judge(Judge[JudgeConfig]):
        pass

    _Judge(JudgeConfig(model="openai/fake"))
    assert "json_repair" in sys.modules


class _Verdict(BaseModel):
    reason: str
    passed: bool


class _OneJudge(Judge[JudgeConfig]):
    name = "one_judge"
    Verdict = _Verdict
    template = "Judge: {response}"

    def vote(self, sample: Sample, verdict: Any, model: str) -> Vote:
        return Vote(verdict.passed, float(verdict.passed), verdict.reason)


def _answering(
    text: str, seen: list[LLMRequest] | None = None
) -> Callable[[LLMRequest], Awaitable[LLMResult]]:
    """A stand-in for ``LLMClient.complete`` that answers ``text`` and notes the calling task."""

    async def complete(request: LLMRequest) -> LLMResult:
        if seen is not None:
            seen.append(request)
        _calling_tasks.append(asyncio.current_task())
        return LLMResult(request.model, text, [], "stop", Usage())

    return complete


_calling_tasks: list[asyncio.Task[Any] | None] = []


def _sample(llm: LLMClient) -> Sample:
    return Sample(Task(id="t", prompt="q"), Response(output="Paris"), "Paris", llm=llm)


def test_a_judge_asked_once_calls_its_model_in_the_evaluating_task():
    """One model asked once needs no task of its own (each cost the loop a scheduling per call)."""
    llm = LLMClient()
    llm.complete = _answering('{"reason": "fine", "passed": true}')  # type: ignore[method-assign]
    judge = _OneJudge(JudgeConfig(model="openai/x", structured="json"))
    _calling_tasks.clear()

    async def evaluate() -> tuple[Result, asyncio.Task[Any] | None]:
        return await judge.evaluate(_sample(llm)), asyncio.current_task()

    result, evaluating = asyncio.run(evaluate())
    assert (result.passed, result.reason) == (True, "fine")
    assert _calling_tasks == [evaluating]


def test_a_judge_asked_once_reports_an_unexpected_failure_as_its_error():
    async def failing(request: LLMRequest) -> LLMResult:
        raise RuntimeError("socket closed")

    llm = LLMClient()
    llm.complete = failing  # type: ignore[method-assign]
    judge = _OneJudge(JudgeConfig(model="openai/x", structured="json"))
    with pytest.raises(EvaluatorError) as raised:
        asyncio.run(judge.evaluate(_sample(llm)))
    assert str(raised.value) == "one_judge: RuntimeError: socket closed"


def test_a_valid_json_verdict_is_read_without_json_repair(monkeypatch: pytest.MonkeyPatch):
    import json_repair

    repaired: list[str] = []
    original = json_repair.repair_json

    def counting(text: str, **kwargs: Any) -> Any:
        repaired.append(text)
        return original(text, **kwargs)

    monkeypatch.setattr(json_repair, "repair_json", counting)
    llm = LLMClient()
    for answer in (
        '{"reason": "fine", "passed": true}',
        '```json\n{"reason": "fenced", "passed": false,}\n```',
    ):
        llm.complete = _answering(answer)  # type: ignore[method-assign]
        found, _raw = asyncio.run(
            verdict.ask_verdict(
                llm, _Verdict, [{"role": "user", "content": "judge"}], model="openai/x", mode="json"
            )
        )
        assert found in (_Verdict(reason="fine", passed=True), _Verdict(reason="fenced", passed=False))
    assert repaired == ['```json\n{"reason": "fenced", "passed": false,}\n```']  # only the broken one


def test_a_judge_builds_its_verdict_schema_when_it_is_made_not_at_its_first_call():
    verdict._schema_text.cache_clear()
    _OneJudge(JudgeConfig(model="openai/x"))
    assert verdict._schema_text.cache_info().currsize == 1
    llm = LLMClient()
    seen: list[LLMRequest] = []
    llm.complete = _answering('{"reason": "fine", "passed": true}', seen)  # type: ignore[method-assign]
    asyncio.run(
        verdict.ask_verdict(
            llm, _Verdict, [{"role": "user", "content": "judge"}], model="openai/x", mode="json"
        )
    )
    assert verdict._schema_text.cache_info().misses == 1  # the call found it built
    assert seen[0].messages[-1]["content"].endswith(json.dumps(_Verdict.model_json_schema()))


def test_whether_a_judge_model_takes_tools_is_asked_once_per_model(monkeypatch: pytest.MonkeyPatch):
    looked_up: list[str] = []
    original = verdict.info

    def counting(model: str) -> dict[str, Any] | None:
        looked_up.append(model)
        return original(model)

    monkeypatch.setattr(verdict, "info", counting)
    model = "openai/gpt-4o-mini-asked-once"
    assert [verdict.supports_tools(model) for _ in range(3)] == [False] * 3
    assert looked_up == [model]


@pytest.mark.parametrize(
    "template",
    [
        "no placeholder",
        "{response}",
        "Judge {response} against {expected}.{response}",
        "{{response}} is written as is; {response} is filled",
        "{a.b} and {a.c.d} and {{x.y}} and {missing.{response}}",
        'JSON stays: {"k": 1} {response}{expected}',
    ],
)
def test_a_judge_template_filled_again_and_again_reads_as_render_does(template: str):
    values = {"response": "{expected} stays as written", "expected": "Paris", "a": {"b": 1, "c": {"d": [1]}}}
    assert [render_repeated(template, values) for _ in range(2)] == [render(template, values)] * 2


def test_a_judge_template_names_the_value_it_misses_as_render_does():
    with pytest.raises(MissingPlaceholder) as raised:
        render_repeated("{response} then {a.x}", {"response": "r", "a": {"b": 1}})
    assert raised.value.name == "a.x"


def test_a_call_without_a_cache_computes_no_cache_key(monkeypatch: pytest.MonkeyPatch):
    import asyncio

    from bench.llm import client as client_module
    from bench.llm.client import LLMClient
    from bench.llm.request import LLMRequest
    from bench.llm.settings import LLMSettings
    from bench.testing import FakeLLMServer, Reply

    keyed: list[object] = []
    monkeypatch.setattr(client_module, "cache_key", lambda value: keyed.append(value) or "key")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeLLMServer() as server:
        server.default = lambda body: Reply("ok")
        llm = LLMClient(LLMSettings(cache=False))

        async def call() -> str | None:
            try:
                result = await llm.complete(
                    LLMRequest("openai/fake", [{"role": "user", "content": "hi"}], api_base=server.url)
                )
            finally:
                await llm.aclose()
            return result.text

        assert asyncio.run(call()) == "ok"
    assert keyed == []
