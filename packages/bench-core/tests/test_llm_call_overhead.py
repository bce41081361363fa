"""What each model call costs bench between the calls (benchmarks/README.md, the model-call rows)."""

from __future__ import annotations

import sys

import pytest

from bench.llm.judge import Judge, JudgeConfig


def test_a_judge_has_its_verdict_reader_imported_before_its_first_answer(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delitem(sys.modules, "json_repair", raising=False)

    class _Judge(Judge[JudgeConfig]):
        pass

    _Judge(JudgeConfig(model="openai/fake"))
    assert "json_repair" in sys.modules


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
