"""The direct path for each OpenAI-protocol provider sends byte for byte what litellm sends
(URL path, auth and provider headers, JSON body), and a call litellm rewrites goes through
litellm."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

import bench.llm.providers.calls as calls_module
from bench.llm.client import LLMClient
from bench.llm.providers.credentials import _ONE_KEY, litellm_missing_keys
from bench.llm.providers.routes import (
    AZURE_DEFAULT_API_VERSION,
    PROVIDERS,
    TRANSPORT_ENV,
    is_direct,
    rewritten,
    route,
    serves,
)
from bench.llm.request import LLMRequest
from bench.llm.settings import LLMSettings
from bench.testing import FakeLLMServer, Reply

MODELS = [
    "openai/gpt-4o-mini",
    "hosted_vllm/llama",
    "groq/llama-3.1-8b-instant",
    "openrouter/openai/gpt-4o-mini",
    "together_ai/meta-llama/Llama-3-8b",
    "deepseek/deepseek-chat",
    "azure/my-gpt-4o-deployment",
]
KEYS = {
    "OPENAI_API_KEY": "sk-openai",
    "GROQ_API_KEY": "gsk-groq",
    "OPENROUTER_API_KEY": "sk-or",
    "TOGETHERAI_API_KEY": "tg-key",
    "DEEPSEEK_API_KEY": "sk-ds",
    "AZURE_API_KEY": "az-key",
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
AZURE_VARIABLES = ("AZURE_API_BASE", "AZURE_API_VERSION", "AZURE_API_KEY")
AZURE_AD = ("AZURE_AD_TOKEN", "AZURE_OPENAI_AD_TOKEN", "AZURE_USERNAME")
HEADERS = ("authorization", "api-key", "content-type", "http-referer", "x-title")


def _sent(
    model: str,
    shape: tuple,
    transport: str,
    monkeypatch: pytest.MonkeyPatch,
    *,
    base_env: str | None = None,
    api_key_env: str | None = None,
) -> tuple:
    """The one request ``model`` sends for ``shape`` on ``transport``: path, headers, body. With
    ``base_env``, the server's URL comes from that variable, not ``api_base``."""
    name, params, stream, messages = shape
    monkeypatch.setenv(TRANSPORT_ENV, transport)
    with FakeLLMServer() as server:
        server.default = lambda body: Reply("ok", prompt_tokens=3, completion_tokens=2)
        client = LLMClient(LLMSettings(cache=False, max_attempts=1))
        if base_env:
            monkeypatch.setenv(base_env, server.url)
        request = LLMRequest(
            model,
            messages or [{"role": "system", "content": "s"}, {"role": "user", "content": name}],
            dict(params),
            api_base=None if base_env else server.url,
            api_key_env=api_key_env,
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
    azure = (
        "AZURE_OPENAI_API_KEY",
        "AZURE_API_VERSION",
        "AZURE_API_BASE",
        "AZURE_OPENAI_ENDPOINT",
        *AZURE_AD,
    )
    for name in ("OR_SITE_URL", "OR_APP_NAME", *azure):
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

    monkeypatch.setattr(calls_module, "load_litellm", no_litellm)
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


@pytest.mark.usefixtures("_keys")
def test_litellm_strips_a_regex_python_cannot_compile_from_openai_tools(monkeypatch):
    # Why openai/ sends tools with patterns (and combinators) through litellm.
    tool = {
        "type": "function",
        "function": {
            "name": "f",
            "parameters": {"type": "object", "properties": {"w": {"type": "string", "pattern": "\\p{L}+"}}},
        },
    }
    assert rewritten("openai/gpt-4o-mini", {"tools": [tool]}, False)
    shape = ("regex", {"tools": [tool]}, False, None)
    sent = _sent("openai/gpt-4o-mini", shape, "auto", monkeypatch)[2]
    assert sent["tools"][0]["function"]["parameters"]["properties"]["w"] == {"type": "string"}
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "q", "cache_control": {"type": "ephemeral"}}]}
    ]
    assert rewritten("openai/gpt-4o-mini", {}, False, messages)
    assert not rewritten("openai/gpt-4o-mini", {"tools": TOOLS}, False, [{"role": "user", "content": "q"}])


def test_litellm_refuses_reasoning_effort_for_an_openai_model_that_cannot_reason(monkeypatch):
    # Why openai/ sends reasoning_effort through litellm: for gpt-4o-mini it fails before sending
    # anything, which a direct call would not; for a model it does not know it sends it unchanged.
    from bench.vocabulary.errors import ModelCallError

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
    from bench.llm.providers.litellm_import import load_litellm

    for name in {
        *KEYS,
        *_ONE_KEY.values(),
        *AZURE_VARIABLES,
        "OR_API_KEY",
        "TOGETHER_API_KEY",
        "HOSTED_VLLM_API_KEY",
    }:
        monkeypatch.delenv(name, raising=False)
    if set_key:
        for name in {*_ONE_KEY.values(), *AZURE_VARIABLES}:
            monkeypatch.setenv(name, "k")
    found = load_litellm().validate_environment(model=model)
    expected = [n for n in found.get("missing_keys") or [] if not n.endswith("_API_BASE")]
    assert litellm_missing_keys(model) == expected
    if model.startswith("azure/") and not set_key:
        assert expected == ["AZURE_API_VERSION", "AZURE_API_KEY"]  # litellm names both (and the base)
    else:
        assert expected == ([] if set_key or model.startswith("hosted_vllm/") else [expected[0]])


@pytest.mark.parametrize("unset", AZURE_VARIABLES)
def test_azure_needs_all_three_of_litellms_variables(unset, monkeypatch):
    # litellm.validate_environment counts Azure's variables as set only when all three are
    # present (set, even empty), and then names all three: bench says so without importing it.
    from bench.llm.providers.litellm_import import load_litellm

    for name in AZURE_VARIABLES:
        monkeypatch.setenv(name, "")
    monkeypatch.delenv(unset)
    found = load_litellm().validate_environment(model="azure/d")
    assert found["missing_keys"] == ["AZURE_API_BASE", "AZURE_API_VERSION", "AZURE_API_KEY"]
    assert litellm_missing_keys("azure/d") == ["AZURE_API_VERSION", "AZURE_API_KEY"]
    monkeypatch.setenv(unset, "")
    assert load_litellm().validate_environment(model="azure/d")["missing_keys"] == []
    assert litellm_missing_keys("azure/d") == []


def _refused(model: str, reason: str) -> tuple[str, FakeLLMServer]:
    """The error of one call to ``model`` that the fake server refuses with a 401, and the server."""
    from bench.testing.server import Fault
    from bench.vocabulary.errors import ModelCallError

    with FakeLLMServer(latency_s=0.1) as server:  # slow enough for the key probe to be sent first
        server.add(Fault(401, message=reason))
        client = LLMClient(LLMSettings(cache=False))

        async def go() -> str:
            try:
                await client.complete(
                    LLMRequest(model, [{"role": "user", "content": "q"}], {}, api_base=server.url)
                )
            except ModelCallError as exc:
                return str(exc)
            finally:
                await client.aclose()
            raise AssertionError("the call did not fail")

        return asyncio.run(go()), server


def test_c14_a_refused_together_key_names_the_variable_it_was_read_from(monkeypatch):
    # together_ai's key has four names; the direct path read TOGETHER_AI_API_KEY, so the error
    # names that one, not "the key litellm found".
    for name in PROVIDERS["together_ai"].key_env:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TOGETHER_AI_API_KEY", "sk-together-canary")
    message, server = _refused("together_ai/m", "Invalid API key provided")
    assert server.count() == 1
    assert message == (
        "401 from together_ai/m after 1 attempt: Invalid API key provided "
        "(the key in TOGETHER_AI_API_KEY was refused)"
    )


AZURE = "azure/my-gpt-4o-deployment"
PLAIN = SHAPES[0]


def _direct_only(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_litellm() -> None:
        raise AssertionError("the direct path used litellm")

    monkeypatch.setattr(calls_module, "load_litellm", no_litellm)


def test_azures_default_api_version_is_litellms():
    from bench.llm.providers.litellm_import import load_litellm

    assert load_litellm().AZURE_DEFAULT_API_VERSION == AZURE_DEFAULT_API_VERSION


@pytest.mark.usefixtures("_keys")
@pytest.mark.parametrize(
    ("env", "base_env", "api_key_env"),
    [
        ({"AZURE_API_VERSION": "2024-10-21"}, None, None),
        ({"AZURE_OPENAI_API_KEY": "az-openai-key"}, None, None),  # litellm reads it before AZURE_API_KEY
        ({}, "AZURE_API_BASE", None),
        ({}, "AZURE_OPENAI_ENDPOINT", None),  # the openai SDK's own fallback
        ({"MY_AZURE_KEY": "az-mine"}, None, "MY_AZURE_KEY"),
    ],
)
def test_azure_reads_litellms_variables(env, base_env, api_key_env, monkeypatch):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    litellm_sent = _sent(AZURE, PLAIN, "litellm", monkeypatch, base_env=base_env, api_key_env=api_key_env)
    _direct_only(monkeypatch)
    direct_sent = _sent(AZURE, PLAIN, "auto", monkeypatch, base_env=base_env, api_key_env=api_key_env)
    assert direct_sent == litellm_sent
    key = env.get("MY_AZURE_KEY") or env.get("AZURE_OPENAI_API_KEY") or KEYS["AZURE_API_KEY"]
    version = env.get("AZURE_API_VERSION") or AZURE_DEFAULT_API_VERSION
    assert (
        direct_sent[0]
        == f"/v1/openai/deployments/my-gpt-4o-deployment/chat/completions?api-version={version}"
    )
    assert (direct_sent[1]["api-key"], direct_sent[1]["authorization"]) == (key, None)


def test_azure_route_builds_the_deployment_url(monkeypatch):
    for name in ("AZURE_API_VERSION", "AZURE_API_BASE", "AZURE_OPENAI_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    sent = route("azure/dep", "https://r.openai.azure.com/", "k")
    assert sent.url == (
        f"https://r.openai.azure.com/openai/deployments/dep/chat/completions?api-version={AZURE_DEFAULT_API_VERSION}"
    )
    assert (sent.model, sent.api_key, sent.key_header, dict(sent.headers), dict(sent.extra)) == (
        "dep",
        "k",
        "api-key",
        {},
        {},
    )


@pytest.mark.parametrize(
    ("model", "params", "messages", "version"),
    [
        (AZURE, {"tool_choice": "auto"}, None, None),  # no tools: litellm drops tool_choice
        (AZURE, {"tools": TOOLS, "tool_choice": "required"}, None, "2024-05-01-preview"),  # refused
        (AZURE, {"tools": TOOLS, "tool_choice": "auto"}, None, "2023-07-01-preview"),  # refused
        (AZURE, {"response_format": {"type": "json_object"}}, None, "2024-02-01"),  # dropped
        ("azure/gpt-35-turbo", {"response_format": {"type": "json_object"}}, None, None),  # dropped
        ("azure/gpt-3-5-turbo-0125", {"response_format": {"type": "json_object"}}, None, None),
        (
            AZURE,
            {"tools": [{"type": "function", "function": {"name": "f", "parameters": {"anyOf": []}}}]},
            None,
            None,
        ),
        (
            AZURE,
            {"tools": [{"type": "function", "function": {"name": "f", "parameters": {"pattern": "x"}}}]},
            None,
            None,
        ),
        (AZURE, {}, [{"role": "user", "content": [{"type": "image_url", "image_url": "http://i"}]}], None),
        (AZURE, {}, [{"role": "assistant", "content": None, "function_call": {"name": "f"}}], None),
        (AZURE, {"reasoning_effort": "low"}, None, None),  # not a parameter of its chat config
    ],
)
def test_azure_calls_litellm_checks_or_rewrites_go_through_litellm(
    model, params, messages, version, monkeypatch
):
    monkeypatch.delenv("AZURE_API_VERSION", raising=False)
    if version:
        monkeypatch.setenv("AZURE_API_VERSION", version)
    assert is_direct(model)
    assert rewritten(model, params, False, messages)


def test_azure_sends_every_shape_but_reasoning_directly(monkeypatch):
    monkeypatch.delenv("AZURE_API_VERSION", raising=False)
    shapes = {
        name for name, params, stream, messages in SHAPES if not rewritten(AZURE, params, stream, messages)
    }
    assert shapes == {s[0] for s in SHAPES} - {"reasoning"}
    required = {"tools": TOOLS, "tool_choice": "required"}
    assert not rewritten(AZURE, required, False, None)  # refused only before 2024-06


@pytest.mark.usefixtures("_keys")
def test_litellm_really_rewrites_what_azure_sends_through_it(monkeypatch):
    # The reasons for the rules above, seen in litellm's requests.
    tool_choice_alone = ("alone", {"tool_choice": "auto"}, False, None)
    assert "tool_choice" not in _sent(AZURE, tool_choice_alone, "auto", monkeypatch)[2]
    union = {"type": "object", "anyOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]}
    tools = [{"type": "function", "function": {"name": "f", "parameters": union}}]
    sent_tools = _sent(AZURE, ("union", {"tools": tools}, False, None), "auto", monkeypatch)[2]["tools"]
    assert sent_tools != tools
    image = [{"role": "user", "content": [{"type": "image_url", "image_url": "http://i/x.png"}]}]
    sent = _sent(AZURE, ("image", {}, False, image), "auto", monkeypatch)[2]["messages"]
    assert sent[0]["content"][0]["image_url"] == {"url": "http://i/x.png"}
    monkeypatch.setenv("AZURE_API_VERSION", "2024-02-01")
    schema = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    body = _sent(AZURE, ("schema", {"response_format": schema}, False, None), "auto", monkeypatch)[2]
    assert "response_format" not in body
    assert body["tool_choice"] == {"type": "function", "function": {"name": "json_tool_call"}}


@pytest.mark.parametrize(
    ("model", "direct"),
    [
        ("azure/gpt-4o", True),
        ("azure/my-deployment", True),
        ("azure/prod-o3-mini", False),  # litellm's o-series config: "o3" anywhere in the name
        ("azure/gpt-5-mini", False),
        ("azure/gpt-5-chat", False),
        ("azure/gpt5_series/my-deployment", False),
        ("azure/responses/my-deployment", False),
        ("azure/codex-mini", False),  # its price-map row says the Responses API
        ("azure/mistral-large-latest", False),  # litellm sends these to its openai route
        ("azure/command-r-plus-08-2024", False),
    ],
)
def test_which_azure_deployments_take_the_direct_path(model, direct):
    assert is_direct(model) is direct


@pytest.mark.parametrize(
    ("env", "api_base"),
    [
        ({"AZURE_OPENAI_AD_TOKEN": "ad"}, "https://r.openai.azure.com"),  # Entra ID: the SDK sends a Bearer
        ({"AZURE_AD_TOKEN": "ad"}, "https://r.openai.azure.com"),
        ({"AZURE_USERNAME": "u"}, "https://r.openai.azure.com"),
        ({"AZURE_API_VERSION": "v1"}, "https://r.openai.azure.com"),  # litellm's OpenAI client, /openai/v1
        ({"AZURE_API_VERSION": "latest"}, "https://r.openai.azure.com"),
        ({}, "https://r.openai.azure.com/openai/deployments/d"),  # already a deployment URL
        ({}, "https://gateway.ai.cloudflare.com/v1/a/g/azure-openai/r"),
        ({}, None),  # no endpoint: litellm and the openai SDK say what is missing
    ],
)
def test_azure_keeps_what_the_direct_path_does_not_send_on_litellm(env, api_base, monkeypatch):
    for name in ("AZURE_API_BASE", "AZURE_OPENAI_ENDPOINT", "AZURE_API_VERSION", *AZURE_AD):
        monkeypatch.delenv(name, raising=False)
    assert serves(AZURE, "https://r.openai.azure.com", "k")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert not serves(AZURE, api_base, "k")


@pytest.mark.usefixtures("_keys")
def test_an_azure_ad_token_goes_through_litellm_which_sends_it_as_a_bearer(monkeypatch):
    monkeypatch.setenv("AZURE_OPENAI_AD_TOKEN", "ad-token")
    headers = _sent(AZURE, PLAIN, "auto", monkeypatch)[1]
    assert (headers["authorization"], headers["api-key"]) == ("Bearer ad-token", None)


@pytest.mark.parametrize("variable", ["AZURE_API_KEY", "AZURE_OPENAI_API_KEY"])
def test_c14_a_refused_azure_key_names_the_variable_it_was_read_from(variable, monkeypatch):
    for name in (*PROVIDERS["azure"].key_env, "AZURE_API_VERSION", *AZURE_AD):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, "az-canary-key")
    message, server = _refused(AZURE, "Access denied due to invalid subscription key")
    assert len(server.requests) == 1
    assert server.requests[0].headers["api-key"] == "az-canary-key"  # sent on the direct path
    assert server.probes() == 1
    assert message == (
        f"401 from {AZURE} after 1 attempt: Access denied due to invalid subscription key "
        f"(the key in {variable} was refused)"
    )
