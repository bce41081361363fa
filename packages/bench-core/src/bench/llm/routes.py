"""Which way a model call goes: straight to an OpenAI-compatible endpoint over HTTP, or litellm.

The direct path is taken for the providers whose chat request litellm sends unchanged (its plain
OpenAI route): ``openai/`` (not the o-series and gpt-5 models, whose parameters litellm rewrites)
and ``hosted_vllm/``. Every other provider (Azure's deployment URLs, Ollama's own protocol,
groq/openrouter/together/deepseek with their per-provider request rewrites) goes through litellm,
as does every call when ``llm.transport`` is ``litellm`` or ``BENCH_LLM_TRANSPORT=litellm``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

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
class Route:
    """Where a direct call goes: the chat completions URL, the model name sent, the key."""

    url: str
    model: str
    api_key: str | None


def transport(setting: str = "auto") -> str:
    """``litellm`` when the environment or the suite forces it, else ``auto``."""
    forced = os.environ.get(TRANSPORT_ENV, "").strip().lower()
    if forced and forced not in TRANSPORTS:
        raise ConfigError(f"{TRANSPORT_ENV}={forced!r}: expected one of {', '.join(TRANSPORTS)}")
    return forced or setting


def is_direct(model: str, setting: str = "auto") -> bool:
    """Whether calls to ``model`` take the direct HTTP path (no litellm)."""
    if transport(setting) == "litellm" or "/" not in model:
        return False
    provider, name = model.split("/", 1)
    if provider == "hosted_vllm":
        return True
    return provider == "openai" and not name.startswith(_REWRITTEN)


def route(model: str, api_base: str | None, api_key: str | None) -> Route:
    """The endpoint and key of a direct call, resolved as litellm resolves them."""
    provider, name = model.split("/", 1)
    key: str | None
    if provider == "hosted_vllm":
        vllm = api_base or os.environ.get("HOSTED_VLLM_API_BASE")
        if not vllm:
            raise ValueError(f"{model}: hosted_vllm needs api_base (or HOSTED_VLLM_API_BASE)")
        base, key = vllm, api_key or os.environ.get("HOSTED_VLLM_API_KEY") or "fake-api-key"
    else:
        base = (
            api_base
            or os.environ.get("OPENAI_BASE_URL")
            or os.environ.get("OPENAI_API_BASE")
            or "https://api.openai.com/v1"
        )
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:  # the OpenAI client's refusal, which litellm passes on (fatal: failures._NO_KEY)
            raise ValueError(_NO_KEY)
    return Route(base.rstrip("/") + "/chat/completions", name, key)
