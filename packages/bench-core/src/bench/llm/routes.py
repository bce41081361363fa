"""Which way a model call goes: straight to an OpenAI-compatible endpoint over HTTP, or litellm.

The direct path serves the providers whose chat request litellm sends in the OpenAI shape
(``PROVIDERS``): it resolves their base URL, key and extra headers as litellm does and sends the
body litellm sends. A call whose parameters litellm rewrites for its provider (``rewritten``:
the o-series and gpt-5 models, groq's JSON-schema and streamed JSON mode, together's tool and
format checks, reasoning_effort outside hosted_vllm/) goes through litellm, as does every call when
``llm.transport`` is ``litellm`` or ``BENCH_LLM_TRANSPORT=litellm``. Azure (deployment URLs,
``api-version``, the ``api-key`` header) and Ollama (its own protocol) always go through litellm.

Each route also names its key probe (``Route.probe``): an authenticated ``GET`` that answers 2xx
only to a key the provider accepts, so the first call's key is proven without waiting for its
completion (bench.llm.client, RELIABILITY C14). It is ``{base}/models``, the OpenAI convention
(OpenAI, Groq, Together, vLLM with ``--api-key``, LM Studio, proxies) and DeepSeek's ``/models`` at
the root of its ``/beta`` base; OpenRouter lists its models to anyone, so its probe is
``/api/v1/key``, which answers only to a valid key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bench.errors import ConfigError

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
}


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
    return provider in PROVIDERS


def rewritten(model: str, params: Mapping[str, Any], stream: bool) -> bool:
    """Whether litellm changes this call of a direct ``model`` in a way the direct path does not
    reproduce (the call then goes through litellm)."""
    provider = model.split("/", 1)[0]
    if any(p in params for p in PROVIDERS[provider].rewritten):
        return True
    if provider == "groq" and "response_format" in params:
        # GroqChatConfig fakes a stream with response_format, and turns a JSON schema into a
        # forced tool call for models without native structured outputs.
        return stream or (params["response_format"] or {}).get("type") != "json_object"
    return False


def _first(names: tuple[str, ...]) -> str | None:
    return next((value for name in names if (value := os.environ.get(name))), None)


def has_key(model: str, api_key: str | None) -> bool:
    """Whether a direct call to ``model`` finds a key (else litellm makes it and says what is wrong;
    openai/ and hosted_vllm/ answer that themselves)."""
    provider = model.split("/", 1)[0]
    if provider in ("openai", "hosted_vllm"):
        return True
    return bool(api_key or _first(PROVIDERS[provider].key_env))


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
