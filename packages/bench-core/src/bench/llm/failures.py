"""What a failed model call means: retry or not, the provider's reason, what the user should fix."""

from __future__ import annotations

import asyncio
import os
import random
import re
import time
from collections.abc import Callable

from bench.llm.providers.routes import PROVIDERS
from bench.vocabulary.errors import ModelCallError
from bench.vocabulary.redact import excerpt

_RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504, 529}
# Quota and billing errors come as 429s but never clear up by waiting (RELIABILITY L3, C03).
_FATAL_CODES = ("insufficient_quota", "billing_hard_limit", "exceeded your current quota")
# The OpenAI client refuses to send a request without a key (a model with an api_base and no key
# passes bench's start-up check); litellm reports that as a 500, which no retry can fix.
_NO_KEY = ("Missing credentials. Please pass an `api_key`", "api_key client option must be set")


class StreamCut(ConnectionError):
    """A stream ended without a finish_reason (RELIABILITY L8): retried; ``partial`` is its text."""

    def __init__(self, partial: str) -> None:
        super().__init__("the stream ended without a finish_reason")
        self.partial = partial


class QueueTimeout(ModelCallError):
    """No call slot came free within ``llm.queue_timeout``; no request was sent."""


def provider_name(model: str, api_base: str | None) -> str:
    """``openai`` or ``openai@http://host/v1``: never the query or user info of ``api_base`` (N09)."""
    name = model.split("/", 1)[0] if "/" in model else "openai"
    return f"{name}@{public_url(api_base)}" if api_base else name


def public_url(url: str) -> str:
    """``url`` without its query, fragment and ``user:password@`` (where keys are sometimes put)."""
    base = url.split("?", 1)[0].split("#", 1)[0]
    scheme, sep, rest = base.partition("://")
    if sep:
        host, slash, path = rest.partition("/")
        base = f"{scheme}://{host.rpartition('@')[2]}{slash}{path}"
    return base


# litellm's own variables for the providers whose key is one variable (litellm.validate_environment).
_KEY_VARIABLES = {
    p: f"{p.upper()}_API_KEY"
    for p in ("openai", "anthropic", "azure", "cohere", "deepseek", "gemini", "groq", "mistral", "openrouter")
}


def auth_hint(model: str, api_key_env: str | None) -> str:
    """What to fix after a 401/403: the variable that holds the key, never its value (C14)."""
    provider = model.split("/", 1)[0] if "/" in model else "openai"
    variable = api_key_env or _set_variable(provider) or _KEY_VARIABLES.get(provider)
    if variable:
        return f"the key in {variable} was refused"
    return f"the key litellm found for {provider} was refused; set api_key_env to name its variable"


def _set_variable(provider: str) -> str | None:
    """The variable a direct provider's key was read from: the first of its names that is set
    (together_ai has four), as the direct path and litellm read them."""
    known = PROVIDERS.get(provider)
    return next((name for name in known.key_env if os.environ.get(name)), None) if known else None


def retry_after(exc: BaseException) -> float | None:
    headers = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
    if not headers:
        return None
    try:
        if headers.get("retry-after-ms"):
            return float(headers["retry-after-ms"]) / 1000
        value = headers.get("retry-after")
    except (TypeError, ValueError):
        return None
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def retry_wait(
    attempt: int,
    retry_after: float | None,
    max_wait: float,
    uniform: Callable[[float, float], float] = random.uniform,
) -> float:
    """Seconds to wait after failed attempt ``attempt``: the provider's ``Retry-After`` plus a
    jitter drawn from an exponential window (1 s, 2 s, 4 s...), at most ``max_wait``.

    The jitter goes on top of ``Retry-After`` so tasks rate-limited together, told the same
    wait, do not come back as one wave (G04)."""
    jitter = uniform(0, min(max_wait, 2 ** (attempt - 1)))
    return min(max_wait, (retry_after or 0.0) + jitter)


def classify(exc: BaseException) -> tuple[bool, bool, int | None]:
    """(retryable, fatal for the provider, HTTP status)."""
    if isinstance(exc, asyncio.TimeoutError):
        return True, False, None
    status = getattr(exc, "status_code", None)
    body = getattr(exc, "body", None)
    code = str(body.get("code") or body.get("type") or "") if isinstance(body, dict) else ""
    text = f"{exc} {code}"
    if any(fatal in text for fatal in _FATAL_CODES) or status in (401, 403):
        return False, True, status
    if any(missing in text for missing in _NO_KEY):
        return False, True, None
    if status in _RETRYABLE_STATUS:
        return True, False, status
    if isinstance(exc, ConnectionError):
        return True, False, None
    name = type(exc).__name__
    if name in (
        "APIConnectionError",
        "InternalServerError",
        "ServiceUnavailableError",
        "Timeout",
        "APIError",
    ):
        return status is None or status >= 500, False, status
    return False, False, status


_REPEATED_NAMES = re.compile(r"^(?:(\w+(?:Error|Exception|Timeout)): )+")


def short_reason(exc: BaseException) -> str:
    """The provider's reason without litellm's repeated class-name prefixes."""
    text = str(exc).replace("litellm.", "").strip()
    text = _REPEATED_NAMES.sub("", text).replace("OpenAIException - ", "")
    return excerpt(text or type(exc).__name__, 301)
