"""Offline runs (``--offline``): which models are served on loopback, and why a check that needs
another one does not run.

A model is on loopback when the base URL its call goes to names this machine: its ``api_base``,
else its provider's base variable (``OPENAI_BASE_URL``, ``OLLAMA_API_BASE``...), else the
provider's default (Ollama's is ``http://localhost:11434``). Any other model is remote: in an
offline run its checks are skipped and a target that needs it is refused.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from urllib.parse import urlsplit

from bench.llm.providers.credentials import Endpoint
from bench.llm.providers.routes import PROVIDERS
from bench.workspace import network_guard

#: The key of an outcome's ``details`` that lists the checks an offline run skipped (their reasons).
SKIPPED = "skipped_offline"
#: Providers litellm sends to a server on this machine unless told otherwise.
_LOCAL_DEFAULTS: dict[str, tuple[tuple[str, ...], str | None]] = {
    "ollama": (("OLLAMA_API_BASE",), "http://localhost:11434"),
    "ollama_chat": (("OLLAMA_API_BASE",), "http://localhost:11434"),
}


def base_url(model: str, api_base: str | None = None) -> str | None:
    """Where a call to ``model`` goes (the base URL), or None when only the provider knows."""
    if api_base:
        return api_base
    provider = model.split("/", 1)[0] if "/" in model else "openai"  # litellm's guess for a bare name
    names, default = _LOCAL_DEFAULTS.get(provider, ((), None))
    if provider in PROVIDERS:
        names, default = PROVIDERS[provider].base_env, PROVIDERS[provider].default_base
    found = next((value for name in names if (value := os.environ.get(name))), None)
    return found or default


def on_loopback(model: str, api_base: str | None = None) -> bool:
    """Whether calls to ``model`` stay on this machine."""
    url = base_url(model, api_base)
    if not url:
        return False
    host = urlsplit(url if "//" in url else f"//{url}").hostname
    return host is not None and network_guard.is_loopback_host(host)


def remote_models(endpoints: Iterable[Endpoint]) -> list[str]:
    """The models of ``endpoints`` that are not served on loopback, sorted."""
    return sorted({e.model for e in endpoints if not on_loopback(e.model, e.api_base)})


def needs(what: str, models: Iterable[str]) -> str:
    """Why a check (or a target) ``what`` does not run offline: ``offline: llm-rubric needs
    openai/gpt-4.1``."""
    return f"offline: {what} needs {', '.join(models)}"


def offline_skip(what: str, model: str, api_base: str | None = None) -> str | None:
    """In an offline run, why the check ``what`` that calls ``model`` does not run
    (``offline: llm-rubric needs openai/gpt-4.1``); None when this process is not offline or the
    model is served on loopback. For evaluators that hold several checks: each skips its own."""
    if not network_guard.active() or on_loopback(model, api_base):
        return None
    return needs(what, [model])
