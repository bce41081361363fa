"""promptfoo provider ids as litellm model names (``openai:chat:gpt-4o`` -> ``openai/gpt-4o``)."""

from __future__ import annotations

#: promptfoo's default grader and embedding model (``src/providers/openai/defaults.ts``).
DEFAULT_GRADER = "openai:gpt-4.1-2025-04-14"
DEFAULT_EMBEDDING = "openai:text-embedding-3-large"

# Middle parts of an id that name an API flavour, not the model.
_FLAVOURS = {"chat", "completion", "messages", "embedding", "embeddings"}


def model_name(provider_id: str) -> str:
    """The litellm model name for a promptfoo provider id; an id without ``:`` is kept."""
    provider, sep, rest = provider_id.partition(":")
    if not sep:
        return provider_id
    flavour, sep2, model = rest.partition(":")
    if sep2 and flavour in _FLAVOURS:
        rest = model
    return f"{provider}/{rest}"
