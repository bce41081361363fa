"""promptfoo's ``promptfoo:simulated-user`` as a bench conversation played by a model the user names.

As promptfoo 0.121.20's ``SimulatedUser`` (``src/providers/simulatedUser.ts``): a test whose
``provider`` is the simulated user holds a conversation with the config's provider. The target
gets ``[{system: the rendered prompt}, ...messages]`` each turn; the user speaks first (after
``initialMessages``, rendered with the test's vars, the target answering first when they end with
a user message); a user message holding ``###STOP###`` ends it unsent; at most ``maxTurns`` user
messages; the row's output is the transcript, ``User: …``/``Assistant: …`` joined by ``\\n---\\n``.

promptfoo's user is played by its remote generation service (``PromptfooSimulatedUserProvider``,
task ``tau``, whose prompt is not in promptfoo's source), never by a model the config names. bench
does not call that service: the model named by ``BENCH_PROMPTFOO_SIMULATED_USER`` plays the user
through bench's own conversation engine (``user_simulator:``), with the config's ``instructions``.
Without it such a test is refused at load.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from bench import ConfigError, Sample
from bench_formats.promptfoo.escape import escape
from bench_formats.promptfoo.providers import model_name
from bench_formats.promptfoo.render import RenderError, render

PROVIDER = "promptfoo:simulated-user"
#: The bench option naming the model that plays promptfoo's simulated user.
USER_MODEL = "BENCH_PROMPTFOO_SIMULATED_USER"
#: promptfoo's stop marker and default turn limit.
STOP = "###STOP###"
MAX_TURNS = 10
NO_MODEL = (
    "{row}: provider 'promptfoo:simulated-user' is played by promptfoo's remote generation service "
    "(its task 'tau'), which bench does not call; set " + USER_MODEL + "=MODEL (a litellm model "
    "name or a promptfoo provider id) to have that model play the user (docs/formats/promptfoo.md)"
)
STATEFUL = (
    "{row}: promptfoo:simulated-user with config.stateful sends the target only the last message "
    "and its session id; bench's conversations send the whole history (run it without stateful)"
)
WITH_STATE = (
    "{row}: promptfoo:simulated-user with {uses}: bench holds the conversation as one task, which "
    "does not take promptfoo's call-to-call state"
)


def simulated(test: dict[str, Any]) -> dict[str, Any] | None:
    """The test's ``provider`` options when it is promptfoo's simulated user, else None."""
    provider = test.get("provider")
    if provider == PROVIDER:
        return {}
    if isinstance(provider, dict) and provider.get("id") == PROVIDER:
        return dict(provider.get("config") or {})
    return None


def user_model() -> str | None:
    """The model ``BENCH_PROMPTFOO_SIMULATED_USER`` names (a promptfoo id mapped to litellm's name)."""
    name = os.environ.get(USER_MODEL, "").strip()
    if not name:
        return None
    return model_name(name) or name


def converse(
    task: dict[str, Any], settings: dict[str, Any], values: dict[str, Any], text: str, row: str, path: Path
) -> None:
    """Turn ``task`` (its prompt rendered as ``text``) into promptfoo's simulated-user conversation."""
    model = user_model()
    if model is None:
        raise ConfigError(NO_MODEL.format(row=row), file=path)
    if settings.get("stateful"):
        raise ConfigError(STATEFUL.format(row=row), file=path)
    try:
        instructions = render(str(settings.get("instructions") or "{{instructions}}"), values)
    except RenderError as exc:
        raise ConfigError(f"{row}: simulated user's instructions: {exc}", file=path) from None
    opening = [{"role": "system", "content": escape(text)}]
    for message in _initial(values.get("initialMessages") or settings.get("initialMessages"), values):
        opening.append({**message, "content": escape(message["content"])})
    task.pop("prompt", None)
    task["input"] = opening
    simulator: dict[str, Any] = {"model": model, "max_turns": int(settings.get("maxTurns") or MAX_TURNS)}
    simulator["end_marker"] = STOP
    if instructions:
        simulator["instructions"] = instructions
    task["conversation"] = {"user_simulator": simulator}


def _initial(spec: Any, values: dict[str, Any]) -> list[dict[str, str]]:
    """``resolveInitialMessages`` and ``validateMessages``: the valid messages, rendered."""
    if isinstance(spec, str) and spec.strip().startswith("["):
        try:
            spec = json.loads(spec)
        except ValueError:
            spec = None
    out = []
    for message in spec if isinstance(spec, list) else []:
        if not isinstance(message, dict):
            continue
        role, content = (_rendered(message.get(k), values) for k in ("role", "content"))
        if isinstance(content, str) and role in ("user", "assistant", "system"):
            out.append({"role": str(role), "content": content})
    return out


def _rendered(value: Any, values: dict[str, Any]) -> Any:
    """``renderTemplate``: a string rendered, left as written when it cannot be."""
    if not isinstance(value, str):
        return value
    try:
        return render(value, values)
    except RenderError:
        return value


def as_promptfoo(sample: Sample) -> tuple[Sample, str]:
    """A simulated-user row as promptfoo's checks see it (``serializeOutput``): its output, every
    message after the prompt (the first system message) as ``Assistant: …`` or ``User: …`` joined
    by ``\n---\n``, and the response's metadata ``{messages}`` (those messages)."""
    said = [m for m in sample.response.messages if m.role in ("user", "assistant", "system")]
    if said and said[0].role == "system":
        said = said[1:]
    messages = []
    for message in said:
        if (
            message.role == "assistant"
            and not message.content
            and (message.model_extra or {}).get("tool_calls")
        ):
            continue  # a tool-call exchange within a turn: promptfoo keeps only the reply's text
        content = message.content
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        messages.append({"role": message.role, "content": text or ""})
    output = "\n---\n".join(
        f"{'Assistant' if m['role'] == 'assistant' else 'User'}: {m['content']}" for m in messages
    )
    response = sample.response.model_copy(update={"metadata": {"messages": messages}})
    return dataclasses.replace(sample, response=response), output
