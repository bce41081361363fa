"""The direct path for each OpenAI-protocol provider sends byte for byte what litellm sends
(URL path, auth and provider headers, JSON body), and a call litellm rewrites goes through
litellm (issue 16)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

import bench.llm.client as client_module
from bench.llm.client import LLMClient
from bench.llm.credentials import _ONE_KEY, litellm_missing_keys
from bench.llm.request import LLMRequest
from bench.llm.routes import PROVIDERS, TRANSPORT_ENV, is_direct, rewritten, route
from bench.llm.settings import LLMSettings
from bench.testing.server import FakeLLMServer, Reply

MODELS = [
    "openai/gpt-4o-mini",
    "hosted_vllm/llama",
    "groq/llama-3.1-8b-instant",
    "openrouter/openai/gpt-4o-mini",
    "together_ai/meta-llama/Llama-3-8b",
    "deepseek/deepseek-chat",
]
KEYS = {
    "OPENAI_API_KEY": "sk-openai",
    "GROQ_API_KEY": "gsk-groq",
    "OPENROUTER_API_KEY": "sk-or",
    "TOGETHERAI_API_KEY": "tg-key",
    "DEEPSEEK_API_KEY": "sk-ds",
}
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
TOOL_LOOP = [
    {"role": "system", "content": "s"},
    {"role": "user", "content": "call f"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "42"},
]
# (name, params, stream, messages): the request shapes bench sends.
SHAPES: list[tuple[str, dict[str, Any], bool, list[dict[str, Any]] | None]] = [
    ("plain", {"temperature": 0.0, "max_tokens": 9, "seed": 1}, False, None),
    ("json", {"response_format": {"type": "json_object"}}, False, None),
    ("tools", {"tools": TOOLS, "tool_choice": {"type": "function", "function": {"name": "f"}}}, False, None),
    ("tool_loop", {"tools": TOOLS, "tool_choice": "auto"}, False, TOOL_LOOP),
    ("stream", {"stop": ["x"], "top_p": 0.5}, True, None),
    ("json_stream", {"response_format": {"type": "json_object"}}, True, None),
    ("n", {"n": 2, "presence_penalty": 0.1, "frequency_penalty": 0.2}, False, None),
    ("completion_tokens", {"max_completion_tokens": 5}, False, None),
    ("reasoning", {"reasoning_effort": "low"}, False, None),
]
HEADERS = ("authorization", "content-type", "http-referer", "x-title")


def _sent(model: str, shape: tuple, transport: str, monkeypatch: pytest.MonkeyPatch) -> tuple:
    """The one request ``model`` sends for ``shape`` on ``transport``: path, headers, body."""
    name, params, stream, messages = shape
    monkeypatch.setenv(TRANSPORT_ENV, transport)
    with FakeLLMServer() as server:
        server.default = lambda body: Reply("ok", prompt_tokens=3, completion_tokens=2)
        client = LLMClient(LLMSettings(cache=False, max_attempts=1))
        request = LLMRequest(
            model,
            messages or [{"role": "system", "content": "s"}, {"role": "user", "content": name}],
            dict(params),
            api_base=server.url,
            stream=stream,
        )

        async def go() -> None:
            # litellm's groq route fails on a reply without service_tier, after sending the request.
            with contextlib.suppress(Exception):
                await client.complete(request)
            await client.aclose()

        asyncio.run(go())
        assert len(server.requests) == 1, server.requests
        sent = server.requests[0]
    return sent.path, {h: sent.headers.get(h) for h in HEADERS}, sent.body


@pytest.fixture
def _keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    for name in ("OR_SITE_URL", "OR_APP_NAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # litellm counts a streamed reply's tokens with a tokenizer


@pytest.mark.usefixtures("_keys")
@pytest.mark.parametrize("shape", SHAPES, ids=[s[0] for s in SHAPES])
@pytest.mark.parametrize("model", MODELS)
def test_the_direct_path_sends_what_litellm_sends(model, shape, monkeypatch):
    _, params, stream, _ = shape
    if rewritten(model, params, stream):
        pytest.skip("litellm rewrites this call for its provider: it goes through litellm")
    assert is_direct(model)
    litellm_sent = _sent(model, shape, "litellm", monkeypatch)

    def no_litellm() -> None:
        raise AssertionError("the direct path used litellm")

    monkeypatch.setattr(client_module, "load_litellm", no_litellm)
    assert _sent(model, shape, "auto", monkeypatch) == litellm_sent


def test_every_provider_is_compared():
    assert {m.split("/", 1)[0] for m in MODELS} == set(PROVIDERS)


@pytest.mark.parametrize(
    ("model", "params", "stream"),
    [
        ("groq/llama-3.1-8b-instant", {"response_format": {"type": "json_schema", "json_schema": {}}}, False),
        ("groq/llama-3.1-8b-instant", {"response_format": {"type": "json_object"}}, True),
        ("together_ai/m", {"tools": TOOLS}, False),
        ("together_ai/m", {"response_format": {"type": "json_object"}}, False),
        ("deepseek/deepseek-chat", {"reasoning_effort": "low"}, False),
        ("openrouter/openai/gpt-4o-mini", {"reasoning_effort": "max"}, False),
        ("groq/llama-3.1-8b-instant", {"reasoning_effort": "low"}, False),
        ("groq/llama-3.1-8b-instant", {"max_completion_tokens": 5}, False),
        ("openai/gpt-4o-mini", {"reasoning_effort": "low"}, False),
    ],
)
def test_calls_litellm_rewrites_go_through_litellm(model, params, stream):
    assert is_direct(model)
    assert rewritten(model, params, stream)


@pytest.mark.usefixtures("_keys")
def test_litellm_really_rewrites_what_goes_through_it(monkeypatch):
    # The reason for the rules above: litellm turns groq's JSON schema into a forced tool call,
    # and deepseek's reasoning_effort into ``thinking``.
    schema = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    shape = ("schema", {"response_format": schema}, False, None)
    body = _sent("groq/llama-3.1-8b-instant", shape, "auto", monkeypatch)[2]
    assert "response_format" not in body
    assert body["tool_choice"] == {"type": "function", "function": {"name": "json_tool_call"}}
    shape = ("effort", {"max_completion_tokens": 5, "reasoning_effort": "low"}, False, None)
    assert _sent("deepseek/deepseek-chat", shape, "auto", monkeypatch)[2]["thinking"] == {"type": "enabled"}


def test_litellm_refuses_reasoning_effort_for_an_openai_model_that_cannot_reason(monkeypatch):
    # Why openai/ sends reasoning_effort through litellm: for gpt-4o-mini it fails before sending
    # anything, which a direct call would not; for a model it does not know it sends it unchanged.
    from bench.errors import ModelCallError

    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    with FakeLLMServer() as server:
        client = LLMClient(LLMSettings(cache=False, max_attempts=1))

        async def go(model: str) -> str:
            request = LLMRequest(model, [{"role": "user", "content": "q"}], {"reasoning_effort": "low"})
            request.api_base = server.url
            try:
                return (await client.complete(request)).text
            except ModelCallError as exc:
                return str(exc)

        refused = asyncio.run(go("openai/gpt-4o-mini"))
        answered = asyncio.run(go("openai/served-model"))
        asyncio.run(client.aclose())
        bodies = [r.body for r in server.requests]
    assert "openai does not support parameters: ['reasoning_effort'], for model=gpt-4o-mini" in refused
    assert answered == "echo: q"
    assert bodies == [
        {"model": "served-model", "messages": [{"role": "user", "content": "q"}], "reasoning_effort": "low"}
    ]


@pytest.mark.parametrize(
    ("model", "env", "url"),
    [
        ("groq/m", {}, "https://api.groq.com/openai/v1/chat/completions"),
        ("groq/m", {"GROQ_API_BASE": "http://g/v1/"}, "http://g/v1/chat/completions"),
        ("openrouter/a/b", {}, "https://openrouter.ai/api/v1/chat/completions"),
        ("together_ai/a/b", {}, "https://api.together.ai/v1/chat/completions"),
        ("together_ai/a/b", {"TOGETHER_AI_API_BASE": "http://t"}, "http://t/chat/completions"),
        ("deepseek/deepseek-chat", {}, "https://api.deepseek.com/beta/chat/completions"),
        (
            "deepseek/deepseek-chat",
            {"DEEPSEEK_API_BASE": "http://d/chat/completions"},
            "http://d/chat/completions",
        ),
    ],
)
def test_default_bases_and_their_variables_are_litellms(model, env, url, monkeypatch):
    for config in PROVIDERS.values():
        for name in config.base_env:
            monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert route(model, None, "k").url == url


def test_openrouter_keys_and_headers_come_from_litellms_variables(monkeypatch):
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    monkeypatch.setenv("OR_API_KEY", "or-key")
    monkeypatch.setenv("OR_SITE_URL", "https://example.org")
    monkeypatch.setenv("OR_APP_NAME", "bench")
    sent = route("openrouter/a/b", None, None)
    assert (sent.api_key, dict(sent.headers)) == (
        "or-key",
        {"HTTP-Referer": "https://example.org", "X-Title": "bench"},
    )


@pytest.mark.parametrize("model", [*MODELS, "anthropic/claude-3-5-haiku-20241022"])
@pytest.mark.parametrize("set_key", [False, True])
def test_missing_keys_are_litellms_without_importing_it(model, set_key, monkeypatch):
    from bench.llm.loader import load_litellm

    for name in {*KEYS, *_ONE_KEY.values(), "OR_API_KEY", "TOGETHER_API_KEY", "HOSTED_VLLM_API_KEY"}:
        monkeypatch.delenv(name, raising=False)
    if set_key:
        for name in _ONE_KEY.values():
            monkeypatch.setenv(name, "k")
    found = load_litellm().validate_environment(model=model)
    expected = [n for n in found.get("missing_keys") or [] if not n.endswith("_API_BASE")]
    assert litellm_missing_keys(model) == expected
    assert expected == ([] if set_key or model.startswith("hosted_vllm/") else [expected[0]])


def test_c14_a_refused_together_key_names_the_variable_it_was_read_from(monkeypatch):
    # together_ai's key has four names; the direct path read TOGETHER_AI_API_KEY, so the error
    # names that one, not "the key litellm found".
    from bench.errors import ModelCallError
    from bench.testing.server import Fault

    for name in PROVIDERS["together_ai"].key_env:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TOGETHER_AI_API_KEY", "sk-together-canary")
    with FakeLLMServer() as server:
        server.add(Fault(401, message="Invalid API key provided"))
        client = LLMClient(LLMSettings(cache=False))

        async def go() -> str:
            try:
                await client.complete(
                    LLMRequest("together_ai/m", [{"role": "user", "content": "q"}], {}, api_base=server.url)
                )
            except ModelCallError as exc:
                return str(exc)
            finally:
                await client.aclose()
            raise AssertionError("the call did not fail")

        message = asyncio.run(go())
        assert server.count() == 1
    assert message == (
        "401 from together_ai/m after 1 attempt: Invalid API key provided "
        "(the key in TOGETHER_AI_API_KEY was refused)"
    )
