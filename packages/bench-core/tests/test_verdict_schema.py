"""A judge's verdict schema is built once per class, and every request gets its own copy."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pydantic import BaseModel

from bench.llm import verdict
from bench.llm.request import LLMRequest, LLMResult
from bench.vocabulary.models import Usage


class Verdict(BaseModel):
    reason: str
    passed: bool


class _Recording:
    """Stands in for LLMClient: records each request, answers with a valid verdict."""

    def __init__(self) -> None:
        self.requests: list[LLMRequest] = []

    async def complete(self, request: LLMRequest) -> LLMResult:
        self.requests.append(request)
        return LLMResult(request.model, '{"reason": "fine", "passed": true}', [], "stop", Usage())


def _ask(llm: Any, mode: str) -> Verdict:
    found, _ = asyncio.run(
        verdict.ask_verdict(llm, Verdict, [{"role": "user", "content": "judge"}], model="openai/x", mode=mode)
    )
    return found


def test_the_schema_is_built_once_and_each_tool_request_gets_a_fresh_copy(monkeypatch):
    verdict._schema_text.cache_clear()
    built = []
    original = Verdict.model_json_schema.__func__  # type: ignore[attr-defined]

    def counting(cls: type[BaseModel], *args: Any, **kwargs: Any) -> dict[str, Any]:
        built.append(cls)
        result: dict[str, Any] = original(cls, *args, **kwargs)
        return result

    monkeypatch.setattr(Verdict, "model_json_schema", classmethod(counting))
    llm = _Recording()
    assert _ask(llm, "tool") == Verdict(reason="fine", passed=True)
    _ask(llm, "tool")
    _ask(llm, "json")
    assert built == [Verdict]
    first, second = (r.params["tools"][0]["function"]["parameters"] for r in llm.requests[:2])
    assert first == second == original(Verdict)
    assert first is not second  # a request that changed its copy could not change the next one
    shape = llm.requests[2].messages[-1]["content"]
    expected = json.dumps(original(Verdict))
    assert shape == f"Answer with only a JSON object matching this JSON Schema:\n{expected}"
