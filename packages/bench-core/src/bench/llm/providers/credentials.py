"""Which API keys a run needs, checked before the first task so a missing key is one error.

A model needs the variable its suite names (``api_key_env``), else the ones litellm says its
provider reads (``litellm.validate_environment``). A model given an explicit ``api_base`` and
no ``api_key_env`` counts as served: a local or self-hosted server often needs no key.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Endpoint:
    """A model a run calls, where it calls it and which variable holds its key."""

    model: str
    api_base: str | None = None
    api_key_env: str | None = None


def endpoints(component: Any) -> set[Endpoint]:
    """The endpoints a target or an evaluator calls (read from its ``llm_calls`` and settings)."""
    calls = component.llm_calls()
    if not calls:
        return set()
    # A type that wraps another caller (a PII check asking a judge) has the settings on the inner one.
    attributes = getattr(component, "__dict__", {}).values()
    inner = [v for v in attributes if v is not component and hasattr(v, "llm_calls")]
    settings = [c for c in (getattr(x, "config", None) for x in (component, *inner)) if c is not None]
    api_base = next((v for c in settings if isinstance(v := getattr(c, "api_base", None), str)), None)
    key_env = next((v for c in settings if isinstance(v := getattr(c, "api_key_env", None), str)), None)
    return {Endpoint(model, api_base, key_env) for model, _ in calls}


# The one variable litellm.validate_environment names for these providers: answered without
# importing litellm, so a cached re-run or a direct-path run never pays its import.
_ONE_KEY = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "groq": "GROQ_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "together_ai": "TOGETHERAI_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
}


def litellm_missing_keys(model: str) -> list[str]:
    """The variables litellm says ``model``'s provider needs and the environment lacks."""
    provider = model.split("/", 1)[0] if "/" in model else None
    if provider == "hosted_vllm":  # as litellm says, without importing it: a local server needs no key
        return []
    if provider in _ONE_KEY:
        name = _ONE_KEY[provider]
        return [] if os.environ.get(name) else [name]
    if provider == "azure":  # litellm wants all three variables present, and names all three if not
        present = all(name in os.environ for name in ("AZURE_API_BASE", "AZURE_API_VERSION", "AZURE_API_KEY"))
        return [] if present else ["AZURE_API_VERSION", "AZURE_API_KEY"]
    from bench.llm.providers.litellm_import import load_litellm

    try:
        found = load_litellm().validate_environment(model=model)
    except Exception:  # a provider litellm does not know: the call itself will say what is wrong
        return []
    # An *_API_BASE has a default for most providers (ollama's is localhost); only keys are required.
    return [name for name in found.get("missing_keys") or [] if not name.endswith("_API_BASE")]


def missing_credentials(
    needed: Iterable[Endpoint], provider_keys: Callable[[str], list[str]] = litellm_missing_keys
) -> dict[str, list[str]]:
    """Each unset variable a run needs -> the models that need it, in a stable order."""
    missing: dict[str, set[str]] = {}
    for endpoint in needed:
        if endpoint.api_key_env:
            names = [] if os.environ.get(endpoint.api_key_env) else [endpoint.api_key_env]
        elif endpoint.api_base:
            names = []
        else:
            names = provider_keys(endpoint.model)
        for name in names:
            missing.setdefault(name, set()).add(endpoint.model)
    return {name: sorted(models) for name, models in sorted(missing.items())}


def describe_missing(missing: dict[str, list[str]]) -> str:
    """One message for every missing variable, naming the models that need each."""
    parts = [f"{name} (needed by {', '.join(models)})" for name, models in missing.items()]
    noun, it = ("variable is", "it") if len(parts) == 1 else ("variables are", "them")
    return (
        f"API key {noun} not set: {'; '.join(parts)}. Set {it} in the environment or in a .env file "
        "beside the suite, or name another variable with api_key_env"
    )
