"""promptfoo providers as bench targets, and promptfoo provider ids as litellm model names."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import ConfigError
from bench_formats.promptfoo.python_provider import python_script, python_target

#: promptfoo's default grader and embedding model (``src/providers/openai/defaults.ts``).
DEFAULT_GRADER = "openai:gpt-4.1-2025-04-14"
DEFAULT_EMBEDDING = "openai:text-embedding-3-large"
#: promptfoo provider prefix → litellm provider prefix.
_PREFIXES = {
    "openai": "openai",
    "anthropic": "anthropic",
    "azure": "azure",
    "azureopenai": "azure",
    "bedrock": "bedrock",
    "vertex": "vertex_ai",
    "google": "gemini",
    "gemini": "gemini",
    "mistral": "mistral",
    "groq": "groq",
    "ollama": "ollama",
    "togetherai": "together_ai",
    "together": "together_ai",
    "openrouter": "openrouter",
    "deepseek": "deepseek",
    "xai": "xai",
    "perplexity": "perplexity",
    "fireworks": "fireworks_ai",
    "cohere": "cohere",
    "cerebras": "cerebras",
    "huggingface": "huggingface",
    "replicate": "replicate",
    "voyage": "voyage",
}
#: Words after the prefix that name an API flavour, not the model (``openai:chat:gpt-4o``).
_FLAVOURS = {"chat", "completion", "messages", "text-generation", "embedding", "embeddings", "responses"}
#: promptfoo config keys → litellm target keys.
_CONFIG = {
    "temperature": "temperature",
    "max_tokens": "max_tokens",
    "maxTokens": "max_tokens",
    "max_completion_tokens": "max_tokens",
    "top_p": "top_p",
    "topP": "top_p",
    "seed": "seed",
    "stop": "stop",
    "apiBaseUrl": "api_base",
    "apiHost": "api_base",
    "apiKeyEnvar": "api_key_env",
    "tools": "tools",
    "tool_choice": "tool_choice",
    "response_format": "response_format",
}
REFUSAL = (
    "provider '{id}' is not supported: bench runs echo, exec:COMMAND, file://*.py, python:*.py and "
    "the model providers litellm knows (openai:, anthropic:, azure:, bedrock:, vertex:, google:, mistral:, "
    "groq:, ollama:, ...); run the config with --target SPEC instead"
)
SIMULATED_USER = (
    "provider 'promptfoo:simulated-user' is a test's provider (tests[].provider or "
    "defaultTest.provider), talking to the config's providers; as one of 'providers:' it has no "
    "target to talk to"
)


#: litellm prefixes of Google's Gemini API, whose tools promptfoo passes on in Google's own form.
_GOOGLE = ("gemini/", "vertex_ai/")
#: Gemini's built-in tools (``{googleSearch: {}}``), in Google's and in litellm's spelling.
_GOOGLE_BUILT_IN = {
    "googleSearch", "google_search", "googleSearchRetrieval", "google_search_retrieval",
    "codeExecution", "code_execution", "urlContext", "url_context", "enterpriseWebSearch",
}  # fmt: skip


def google_tools(tools: list[Any]) -> list[Any]:
    """A Google provider's ``config.tools`` as litellm passes them to Gemini.

    A built-in tool (``{googleSearch: {}}``) gets a ``type`` (bench's targets take a tool with a
    name or a type; litellm's Gemini mapping drops the type and sends ``googleSearch`` as it is);
    ``{functionDeclarations: [...]}`` becomes one OpenAI function spec per declaration, which
    litellm sends back as Gemini function declarations. Anything else is left as it is.
    """
    out: list[Any] = []
    for tool in tools:
        if isinstance(tool, dict) and len(tool) == 1 and next(iter(tool)) in _GOOGLE_BUILT_IN:
            (name, settings) = next(iter(tool.items()))
            out.append({"type": name, name: settings or {}})
        elif isinstance(tool, dict) and set(tool) <= {"functionDeclarations", "function_declarations"}:
            for declarations in tool.values():
                out += [{"type": "function", "function": d} for d in declarations or []]
        else:
            out.append(tool)
    return out


def model_name(provider_id: str) -> str | None:
    """The litellm model name of a promptfoo provider id (``openai:chat:gpt-4o`` → ``openai/gpt-4o``)."""
    prefix, sep, rest = provider_id.partition(":")
    if not sep or not rest:
        return None
    if prefix == "litellm":
        return rest
    if prefix not in _PREFIXES:
        return None
    flavour, sep, model = rest.partition(":")
    if sep and flavour in _FLAVOURS and model:
        if prefix == "ollama" and flavour == "chat":
            return f"ollama_chat/{model}"
        rest = model
    return f"{_PREFIXES[prefix]}/{rest}"


@dataclass
class Provider:
    """One provider of the config as a bench target."""

    id: str
    label: str
    target: dict[str, Any]
    #: The prompt labels it runs (``providers[].prompts``), or None for all.
    prompts: list[str] | None = None
    warnings: list[str] = field(default_factory=list)
    #: Its ``config`` ``tools`` and ``functions``, which the tools-call checks validate against.
    tools: dict[str, Any] = field(default_factory=dict)

    @property
    def chat(self) -> bool:
        """Whether the target takes messages (a chat prompt goes to it as ``input:``)."""
        return self.target.get("type") == "litellm"


def read_providers(spec: Any, config: Path) -> list[Provider]:
    """The config's ``providers:`` as bench targets; an unsupported one is refused."""
    return [_provider(pid, options, config, index) for index, pid, options in _entries(spec, config)]


def resolve_cli(name: str, spec: Any, config: Path) -> Provider | None:
    """The config provider ``promptfoo eval --providers NAME`` uses, or None (a bare provider).

    As promptfoo's ``resolveCliProvidersWithConfig``: the first provider whose id is ``NAME``, else
    whose label is, else whose id ends with ``:NAME``; only that one is converted.
    """
    entries = list(_entries(spec, config)) if spec else []
    rules: list[Callable[[str, dict[str, Any]], bool]] = [
        lambda pid, _options: pid == name,
        lambda _pid, options: isinstance(options, dict) and options.get("label") == name,
        lambda pid, _options: pid.endswith(f":{name}"),
    ]
    for rule in rules:
        for index, provider_id, options in entries:
            if rule(provider_id, options):
                return _provider(provider_id, options, config, index)
    return None


def _entries(spec: Any, config: Path) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """Each provider's index, id and options (``label``, ``config``, ``prompts``...)."""
    items = spec if isinstance(spec, list) else [spec]
    for index, item in enumerate(items):
        options: dict[str, Any] = {}
        if isinstance(item, dict) and "id" not in item and len(item) == 1:  # {id: {config...}}
            (provider_id, options) = next(iter(item.items()))
            options = options or {}
        elif isinstance(item, dict):
            provider_id, options = item.get("id"), item
        else:
            provider_id = item
        if not isinstance(provider_id, str):
            raise ConfigError(
                "a provider is an id string or a mapping with 'id'", file=config, field=("providers", index)
            )
        yield index, provider_id, options


def _provider(provider_id: str, options: dict[str, Any], config: Path, index: int) -> Provider:
    label = str(options.get("label") or provider_id)
    prompts = options.get("prompts")
    settings = options.get("config") or {}
    warnings: list[str] = []
    target: dict[str, Any]
    if provider_id == "echo":
        target = {"type": "echo"}
    elif provider_id.startswith("exec:"):
        # promptfoo runs the command with the prompt, options and context appended as arguments
        argv = [*shlex.split(provider_id[len("exec:") :]), "{prompt}", "{}", "{}"]
        target = {"type": "command", "command": argv}
    elif python_script(provider_id) is not None:
        target = python_target(provider_id, options, settings)
    else:
        model = model_name(provider_id)
        if model is None:
            why = (
                SIMULATED_USER
                if provider_id == "promptfoo:simulated-user"
                else REFUSAL.format(id=provider_id)
            )
            raise ConfigError(why, file=config, field=("providers", index))
        target = {"type": "litellm", "model": model}
        for key, value in settings.items():
            if key in _CONFIG:
                target[_CONFIG[key]] = value
            else:
                warnings.append(f"provider '{label}': config '{key}' has no bench equivalent and is dropped")
        if isinstance(target.get("stop"), str):
            target["stop"] = [target["stop"]]
        if isinstance(target.get("tools"), list) and model.startswith(_GOOGLE):
            target["tools"] = google_tools(target["tools"])
    tools = {key: settings[key] for key in ("tools", "functions") if key in settings}
    return Provider(
        provider_id, label, target, list(prompts) if isinstance(prompts, list) else None, warnings, tools
    )


def allows(provider: Provider, label: str) -> bool:
    """Whether ``providers[].prompts`` lets the provider run the prompt labelled ``label``."""
    if provider.prompts is None:
        return True
    return any(label == allowed or label.startswith(f"{allowed}:") for allowed in provider.prompts)
