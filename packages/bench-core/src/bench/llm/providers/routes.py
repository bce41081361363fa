"""Which way a model call goes: straight to an OpenAI-compatible endpoint over HTTP, or litellm.

The direct path serves the providers whose chat request litellm sends in the OpenAI shape
(``PROVIDERS``): it resolves their base URL, key and extra headers as litellm does and sends the
body litellm sends. A call whose parameters litellm rewrites for its provider (``rewritten``:
the o-series and gpt-5 models, groq's JSON-schema and streamed JSON mode, together's tool and
format checks, reasoning_effort outside hosted_vllm/) goes through litellm, as does every call when
``llm.transport`` is ``litellm`` or ``BENCH_LLM_TRANSPORT=litellm``. Ollama (its own protocol)
always goes through litellm.

Azure OpenAI (``azure/<deployment>``) is sent as litellm's ``AsyncAzureOpenAI`` client sends it:
``{base}/openai/deployments/{deployment}/chat/completions?api-version=...`` (``AZURE_API_VERSION``,
else litellm's default) with the key in the ``api-key`` header. What litellm treats otherwise stays
on litellm (``serves``, ``rewritten``): deployments its name rules or price map send elsewhere
(o-series, gpt-5/6, ``responses/``, the Responses-only models), Entra ID / AD tokens
(``AZURE_AD_TOKEN``, ``AZURE_OPENAI_AD_TOKEN``, a username and password), the ``v1``/``latest``/
``preview`` API versions, a base that is already a deployment URL or a Cloudflare gateway, and the
parameters it checks or rewrites by API version, model or schema (``tool_choice``,
``response_format``, tool schemas with combinators or regex patterns, content-part messages).

Each route also names its key probe (``Route.probe``): an authenticated ``GET`` that answers 2xx
only to a key the provider accepts, so the first call's key is proven without waiting for its
completion (bench.llm.providers.calls, RELIABILITY C14). It is ``{base}/models``, the OpenAI convention
(OpenAI, Groq, Together, vLLM with ``--api-key``, LM Studio, proxies) and DeepSeek's ``/models`` at
the root of its ``/beta`` base; OpenRouter lists its models to anyone, so its probe is
``/api/v1/key``, which answers only to a valid key. Azure's is its resource's model list
(``GET {base}/openai/models?api-version=2024-10-21``, the documented GA version), which needs the
``api-key``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bench.llm.providers.prices import info, model_cost
from bench.vocabulary.errors import ConfigError

#: Settings values and the environment variable that forces one.
TRANSPORTS = ("auto", "litellm")
TRANSPORT_ENV = "BENCH_LLM_TRANSPORT"
# litellm's OpenAIOSeriesConfig / GPT-5 config rename or drop parameters for these.
_REWRITTEN = ("o1", "o3", "o4", "gpt-5")
_NO_KEY = (
    "Missing credentials. Please pass an `api_key`, `workload_identity`, `admin_api_key`, or set the "
    "`OPENAI_API_KEY` or `OPENAI_ADMIN_KEY` environment variable."
)


@dataclass(frozen=True)
class Provider:
    """How litellm reaches one OpenAI-protocol provider (its ``get_llm_provider`` and config)."""

    base_env: tuple[str, ...]
    default_base: str | None
    key_env: tuple[str, ...]
    #: Parameters litellm rewrites or checks for this provider: a call with one goes through litellm.
    rewritten: frozenset[str] = frozenset({"reasoning_effort"})
    default_key: str | None = None
    #: The key probe's path below the base URL (``/models`` answers only to a key it accepts).
    probe: str = "/models"
    #: The header that carries the key: ``Authorization`` (``Bearer KEY``) or Azure's ``api-key``.
    key_header: str = "Authorization"


PROVIDERS: Mapping[str, Provider] = {
    # litellm refuses reasoning_effort for a model its registry says cannot reason (gpt-4o-mini)
    # before sending anything, and passes it on for the others: it decides, per model.
    "openai": Provider(
        ("OPENAI_BASE_URL", "OPENAI_API_BASE"), "https://api.openai.com/v1", ("OPENAI_API_KEY",)
    ),
    "hosted_vllm": Provider(
        ("HOSTED_VLLM_API_BASE",), None, ("HOSTED_VLLM_API_KEY",), frozenset(), "fake-api-key"
    ),
    # GroqChatConfig sends max_completion_tokens as max_tokens.
    "groq": Provider(
        ("GROQ_API_BASE",),
        "https://api.groq.com/openai/v1",
        ("GROQ_API_KEY",),
        frozenset({"reasoning_effort", "max_completion_tokens"}),
    ),
    # OpenRouter's /models is public; /key describes the key it is sent, and refuses a bad one.
    "openrouter": Provider(
        ("OPENROUTER_API_BASE",),
        "https://openrouter.ai/api/v1",
        ("OPENROUTER_API_KEY", "OR_API_KEY"),
        probe="/key",
    ),
    # TogetherAIChatConfig drops or refuses tools and response_format by its model registry.
    "together_ai": Provider(
        ("TOGETHER_AI_API_BASE",),
        "https://api.together.ai/v1",
        ("TOGETHER_API_KEY", "TOGETHER_AI_API_KEY", "TOGETHERAI_API_KEY", "TOGETHER_AI_TOKEN"),
        frozenset({"reasoning_effort", "tools", "tool_choice", "response_format"}),
    ),
    # DeepSeekChatConfig turns reasoning_effort into ``thinking`` and rewrites replayed messages.
    "deepseek": Provider(("DEEPSEEK_API_BASE",), "https://api.deepseek.com/beta", ("DEEPSEEK_API_KEY",)),
    # litellm's _complete_azure: api_base or AZURE_API_BASE (the openai SDK falls back to
    # AZURE_OPENAI_ENDPOINT); AZURE_OPENAI_API_KEY before AZURE_API_KEY.
    "azure": Provider(
        ("AZURE_API_BASE", "AZURE_OPENAI_ENDPOINT"),
        None,
        ("AZURE_OPENAI_API_KEY", "AZURE_API_KEY"),
        probe="/openai/models?api-version=2024-10-21",
        key_header="api-key",
    ),
}
#: litellm.AZURE_DEFAULT_API_VERSION: the api-version litellm sends when AZURE_API_VERSION is unset.
AZURE_DEFAULT_API_VERSION = "2025-02-01-preview"
# Deployment names litellm sends through its o-series or GPT-5 configs (substrings, as it tests them).
_AZURE_REWRITTEN = ("o1", "o3", "o4", "o_series/", "gpt-5", "gpt-6", "gpt5_series")
# With one of these set the openai SDK (or litellm) authenticates with an Entra ID / AD token.
_AZURE_AD_ENV = ("AZURE_AD_TOKEN", "AZURE_OPENAI_AD_TOKEN", "AZURE_USERNAME")
# Tool schema keys litellm's OpenAI and Azure configs may rewrite (top-level combinators, non-Python
# regexes).
_SCHEMA_REWRITES = ('"allOf"', '"anyOf"', '"oneOf"', '"pattern', '"$ref"')


@dataclass(frozen=True)
class Route:
    """Where a direct call goes: the chat completions URL, the model name sent, the key, and
    what the provider's litellm config adds (headers, body fields)."""

    url: str
    model: str
    api_key: str | None
    headers: Mapping[str, str] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)
    #: The key probe's URL: an authenticated GET answering 2xx only to an accepted key.
    probe: str | None = None
    #: The header that carries the key (``Authorization: Bearer KEY``, or Azure's ``api-key: KEY``).
    key_header: str = "Authorization"


def sent_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages without their null fields (an assistant's ``content`` beside tool calls), as
    litellm sends them (``validate_and_fix_openai_messages``)."""
    if all(None not in m.values() for m in messages):
        return messages
    return [{k: v for k, v in m.items() if v is not None} for m in messages]


def transport(setting: str = "auto") -> str:
    """``litellm`` when the environment or the suite forces it, else ``auto``."""
    forced = os.environ.get(TRANSPORT_ENV, "").strip().lower()
    if forced and forced not in TRANSPORTS:
        raise ConfigError(f"{TRANSPORT_ENV}={forced!r}: expected one of {', '.join(TRANSPORTS)}")
    return forced or setting


def is_direct(model: str, setting: str = "auto") -> bool:
    """Whether calls to ``model`` take the direct HTTP path (no litellm), unless ``rewritten``."""
    if transport(setting) == "litellm" or "/" not in model:
        return False
    provider, name = model.split("/", 1)
    if provider == "openai":
        return not name.startswith(_REWRITTEN)
    if provider == "azure":
        return _azure_chat(name)
    return provider in PROVIDERS


def _azure_chat(deployment: str) -> bool:
    """Whether litellm sends ``azure/<deployment>`` through its plain Azure chat config: not its
    o-series or GPT-5 configs (chosen by substrings of the name), nor the Responses API
    (``responses/``, or a price-map row whose mode is not chat, such as codex-mini), nor its openai
    route (the names of Cohere and Mistral chat models, served by Azure AI)."""
    if deployment.startswith("responses/") or any(m in deployment for m in _AZURE_REWRITTEN):
        return False
    # get_llm_provider sends a Cohere or Mistral model's name (price-map rows) to its openai route.
    table = model_cost()
    if (table.get(deployment) or {}).get("litellm_provider") == "cohere_chat" or (
        table.get("mistral/" + deployment) or {}
    ).get("litellm_provider") == "mistral":
        return False
    row = info("azure/" + deployment)
    return row is None or row.get("mode", "chat") == "chat"


def azure_api_version() -> str:
    """The ``api-version`` litellm sends to Azure: ``AZURE_API_VERSION``, else its default."""
    return os.environ.get("AZURE_API_VERSION") or AZURE_DEFAULT_API_VERSION


def rewritten(
    model: str, params: Mapping[str, Any], stream: bool, messages: list[dict[str, Any]] | None = None
) -> bool:
    """Whether litellm changes this call of a direct ``model`` in a way the direct path does not
    reproduce (the call then goes through litellm)."""
    provider = model.split("/", 1)[0]
    if any(p in params for p in PROVIDERS[provider].rewritten):
        return True
    if provider == "groq" and "response_format" in params:
        # GroqChatConfig fakes a stream with response_format, and turns a JSON schema into a
        # forced tool call for models without native structured outputs.
        return stream or (params["response_format"] or {}).get("type") != "json_object"
    if provider == "azure":
        return _azure_rewritten(model.split("/", 1)[1], params, messages or [])
    if provider == "openai":
        # OpenAIGPTConfig strips tool schemas of regexes Python cannot compile (and flattens
        # top-level combinators for api.openai.com), and cache_control for api.openai.com.
        return _tools_rewritten(params) or any(map(_cache_control, messages or ()))
    return False


def _cache_control(message: dict[str, Any]) -> bool:
    """Whether a message or one of its content parts carries ``cache_control`` (looked up, not
    serialised: this runs on every call)."""
    content = message.get("content")
    parts = content if isinstance(content, list) else ()
    return "cache_control" in message or any(isinstance(p, dict) and "cache_control" in p for p in parts)


def _tools_rewritten(params: Mapping[str, Any]) -> bool:
    return "tools" in params and any(key in json.dumps(params["tools"]) for key in _SCHEMA_REWRITES)


def _azure_rewritten(deployment: str, params: Mapping[str, Any], messages: list[dict[str, Any]]) -> bool:
    """What AzureOpenAIConfig checks or changes: ``tool_choice`` on API versions before 2024-06
    (refused, or ``required`` refused) or without tools (dropped); ``response_format`` before
    2024-08 or for gpt-3.5 (dropped, or a JSON schema made a tool call); tool schemas it flattens or
    strips of regexes; content parts and ``function_call`` in messages (rewritten)."""
    version = azure_api_version()
    if "tool_choice" in params and (version < "2024-06" or not params.get("tools")):
        return True
    if "response_format" in params and (
        version < "2024-08"
        or "gpt-3.5" in re.sub(r"(\d)-(\d)", r"\1.\2", deployment)
        or "gpt-35" in deployment
    ):
        return True
    if _tools_rewritten(params):
        return True
    return any(not isinstance(m.get("content"), (str, type(None))) or "function_call" in m for m in messages)


def _first(names: tuple[str, ...]) -> str | None:
    return next((value for name in names if (value := os.environ.get(name))), None)


def serves(model: str, api_base: str | None, api_key: str | None) -> bool:
    """Whether a direct call to ``model`` finds a key (else litellm makes it and says what is wrong;
    openai/ and hosted_vllm/ answer that themselves) and, for Azure, an endpoint and an
    authentication litellm sends as the direct path does."""
    provider = model.split("/", 1)[0]
    if provider in ("openai", "hosted_vllm"):
        return True
    if not (api_key or _first(PROVIDERS[provider].key_env)):
        return False
    if provider != "azure":
        return True
    base = api_base or _first(PROVIDERS["azure"].base_env)
    return bool(
        base
        and "/openai/deployments" not in base  # a deployment URL: the SDK's base_url, not an endpoint
        and "gateway.ai.cloudflare.com" not in base  # litellm builds its own client for those
        and re.fullmatch(r"\d{4}-\d{2}-\d{2}(-preview)?", azure_api_version())  # v1/latest: OpenAI client
        and not _first(_AZURE_AD_ENV)
    )


def route(model: str, api_base: str | None, api_key: str | None) -> Route:
    """The endpoint and key of a direct call, resolved as litellm resolves them."""
    provider, name = model.split("/", 1)
    config = PROVIDERS[provider]
    base = api_base or _first(config.base_env) or config.default_base
    if not base:
        raise ValueError(f"{model}: {provider} needs api_base (or {config.base_env[0]})")
    key = api_key or _first(config.key_env) or config.default_key
    if not key and provider == "openai":  # the OpenAI client's refusal, which litellm passes on
        raise ValueError(_NO_KEY)  # (fatal: failures._NO_KEY)
    headers: dict[str, str] = {}
    extra: dict[str, Any] = {}
    if provider == "openrouter":  # litellm's _complete_openrouter and OpenrouterConfig
        headers = {
            "HTTP-Referer": os.environ.get("OR_SITE_URL") or "https://litellm.ai",
            "X-Title": os.environ.get("OR_APP_NAME") or "liteLLM",
        }
        extra = {"usage": {"include": True}}
    base = base.rstrip("/")
    if provider == "azure":  # the openai SDK's AzureOpenAI: {endpoint}/openai/deployments/{model}/...
        url = f"{base}/openai/deployments/{name}/chat/completions?api-version={azure_api_version()}"
        return Route(url, name, key, probe=base + config.probe, key_header=config.key_header)
    url = (
        base if base.endswith("/chat/completions") and provider == "deepseek" else base + "/chat/completions"
    )
    return Route(url, name, key, headers, extra, _probe_url(provider, url.removesuffix("/chat/completions")))


def _probe_url(provider: str, base: str) -> str:
    """The key probe's URL below ``base`` (DeepSeek's /beta serves completions only: its models
    are listed at the root, as under /v1)."""
    if provider == "deepseek":
        base = base.removesuffix("/beta")
    return base + PROVIDERS[provider].probe
