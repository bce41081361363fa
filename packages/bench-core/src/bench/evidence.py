"""Evidence references (AgentClash ``002``): where an evaluator's actual and expected values come from.

An evaluator's ``target`` (default ``final_output``) names the value it judges and
``expected_from`` the value it compares against:

=============================  ================================================================
``final_output``               the response text (``run.final_output`` is the same)
``tool_calls``                 the response's tool calls, ``[{name, arguments}]`` (AgentClash)
``challenge_input``            the task's prompt (its input mapping as JSON when it has one)
``case.payload[.path]``        the task's variables (``vars`` plus a mapping ``input:``)
``case.inputs.NAME[.path]``    the task's ``inputs:`` entry NAME
``case.expectations.NAME[.…]`` the task's ``expectations:`` entry NAME
``artifact.NAME[.path]``       the response's artifact NAME
``file:PATH``                  a file the response captured, else PATH in the task's workspace
``literal:VALUE``              VALUE itself
=============================  ================================================================

``.path`` walks into mappings by key and into lists by index. Values that are not text are
given to evaluators as compact JSON. ``parse_reference`` rejects anything else at validate time.

The public API for plugins (docs/plugins.md) is ``__all__``: an evaluator that reads its own
references checks them with ``parse_reference``, turns values into text with ``as_text`` and
raises ``EvidenceUnavailable`` (or ``NoFiles``) when a value is not there.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bench.vocabulary.errors import EvaluatorError
from bench.vocabulary.jsonio import dumps
from bench.vocabulary.models import Message, Response, ToolCall
from bench.workspace.checkout import STORED_WORKSPACE
from bench.workspace.confined import read_inside

if TYPE_CHECKING:
    from bench.vocabulary.models import Task

__all__ = [
    "EvidenceUnavailable",
    "NoFiles",
    "Turn",
    "as_text",
    "parse_reference",
    "response_turns",
    "transcript_text",
]

FORMS = (
    "final_output",
    "run.final_output",
    "tool_calls",
    "challenge_input",
    "case.payload[.path]",
    "case.inputs.NAME[.path]",
    "case.expectations.NAME[.path]",
    "artifact.NAME[.path]",
    "file:PATH",
    "literal:VALUE",
)
_PLAIN = {"final_output", "run.final_output", "tool_calls", "challenge_input", "case.payload"}
_DOTTED = ("case.payload.", "case.inputs.", "case.expectations.", "artifact.")


class EvidenceUnavailable(EvaluatorError):
    """The referenced value does not exist for this task (a missing input, artifact or file)."""


class NoFiles(EvidenceUnavailable):
    """A file was asked for, but the task has no workspace and the response captured no files."""


def parse_reference(ref: str) -> str:
    """Return ``ref`` when it is a supported evidence reference; raise ValueError otherwise."""
    if ref in _PLAIN or ref.startswith("literal:"):
        return ref
    if ref.startswith("file:") and ref[5:].strip():
        return ref
    for prefix in _DOTTED:
        if ref.startswith(prefix):
            parts = ref[len(prefix) :].split(".")
            if all(part.strip() for part in parts):
                return ref
    raise ValueError(f"unsupported evidence reference '{ref}'; use one of: {', '.join(FORMS)}")


def as_text(value: Any) -> str:
    """How a value reaches an evaluator: text as it is, anything else as compact JSON."""
    return value if isinstance(value, str) else dumps(value)


def _walk(value: Any, path: list[str], ref: str) -> Any:
    for segment in path:
        if isinstance(value, dict) and segment in value:
            value = value[segment]
        elif isinstance(value, list) and segment.isdigit() and int(segment) < len(value):
            value = value[int(segment)]
        else:
            raise EvidenceUnavailable(f"evidence {ref}: '{segment}' is not there")
    return value


@dataclass(frozen=True)
class Evidence:
    """Resolves references against one task, its response and the text under evaluation."""

    task: Task
    response: Response
    output: str

    def resolve(self, ref: str) -> str:
        """The referenced value as text; raise EvidenceUnavailable when it does not exist."""
        return as_text(self.value(ref))

    def value(self, ref: str) -> Any:
        """The referenced value as data (text for outputs, files and literals)."""
        if ref in ("final_output", "run.final_output"):
            return self.output
        if ref == "tool_calls":
            return [{"name": c.name, "arguments": c.arguments} for c in self.response.tool_calls]
        if ref == "challenge_input":
            return self.task.input if isinstance(self.task.input, dict) else self.task.text
        if ref.startswith("literal:"):
            return ref[len("literal:") :]
        if ref.startswith("file:"):
            return self._file(ref[len("file:") :])
        head, _, rest = ref.partition(".")
        parts = rest.split(".") if rest else []
        if head == "artifact":
            name, *path = parts
            if name not in self.response.artifacts:
                raise EvidenceUnavailable(f"artifact '{name}' is unavailable")
            return _walk(self.response.artifacts[name], path, ref)
        if head == "case":
            section, *path = parts
            if section == "payload":
                return _walk(self.task.vars, path, ref)
            store = self.task.inputs if section == "inputs" else self.task.expectations
            name, *path = path
            if name not in store:
                kind = "input" if section == "inputs" else "expectation"
                raise EvidenceUnavailable(f"case {kind} '{name}' is unavailable")
            return _walk(store[name], path, ref)
        raise EvaluatorError(f"unsupported evidence reference '{ref}'")

    def _file(self, path: str) -> str:
        captured = self.response.artifacts.get("files")
        if isinstance(captured, dict) and path in captured:
            entry = captured[path]
            if isinstance(entry, dict):  # a capture record: {content, size, truncated, ...}
                if entry.get("exists") is False:
                    raise EvidenceUnavailable(f"file {path} does not exist")
                return str(entry.get("content", ""))
            return as_text(entry)
        if self.task.workspace is None:
            if STORED_WORKSPACE in self.response.artifacts:  # a re-scored run kept only its captures
                raise NoFiles(
                    f"file {path} was not captured when the task ran, and its workspace is gone: "
                    "capture it (post_execution_checks: file_capture) to judge it on a rescore"
                )
            if isinstance(captured, dict):
                raise EvidenceUnavailable(f"file {path} does not exist")
            raise NoFiles(f"file {path}: the task has no workspace and the response captured no files")
        read = read_inside(self.task.workspace, path)
        if read is None:
            raise EvidenceUnavailable(f"file {path} does not exist")
        return read.text


# A conversation's turns: evaluators point at them (``details['turn']``, 1-based).

#: The response's ``metadata`` key holding the conversation's turns and the simulator's calls.
CONVERSATION = "conversation"


@dataclass(frozen=True)
class Turn:
    """One turn of a transcript: a user message and the assistant's reply to it (1-based)."""

    number: int
    #: Index in the transcript of the user message, and of the reply (None: never answered).
    user: int
    reply: int | None
    text: str
    tool_calls: list[ToolCall]


def transcript_turns(
    messages: list[Message], tool_calls: dict[int, list[ToolCall]] | None = None
) -> list[Turn]:
    """The transcript's turns: each user message and the last assistant text before the next one.

    ``tool_calls`` (turn number -> calls) adds calls the transcript's messages do not hold."""
    found: list[Turn] = []
    for index, message in enumerate(messages):
        if message.role == "user":
            found.append(Turn(len(found) + 1, index, None, "", []))
        elif message.role == "assistant" and found:
            last = found[-1]
            text = message.content if isinstance(message.content, str) else last.text
            calls = [*last.tool_calls, *_message_calls(message)]
            found[-1] = Turn(last.number, last.user, index, text or "", calls)
    extra = tool_calls or {}
    return [Turn(t.number, t.user, t.reply, t.text, [*t.tool_calls, *extra.get(t.number, [])]) for t in found]


def _message_calls(message: Message) -> list[ToolCall]:
    calls = []
    for call in (message.model_extra or {}).get("tool_calls") or []:
        function = call.get("function") or {} if isinstance(call, dict) else {}
        if function.get("name"):
            arguments = function.get("arguments")
            with contextlib.suppress(ValueError):
                arguments = json.loads(arguments) if isinstance(arguments, str) else arguments
            calls.append(ToolCall(name=function["name"], arguments=arguments or {}, id=call.get("id")))
    return calls


def response_turns(response: Response) -> list[Turn]:
    """A response's turns, with the tool calls the conversation loop kept per turn."""
    kept = response.metadata.get(CONVERSATION, {}).get("turns", [])
    calls = {
        row["turn"]: [ToolCall.model_validate(c) for c in row.get("tool_calls", [])]
        for row in kept
        if isinstance(row, dict) and row.get("tool_calls")
    }
    return transcript_turns(response.messages, calls)


def scripted_turn_numbers(response: Response) -> dict[int, int]:
    """Scripted turn (1-based, in the suite's order) -> its turn number in the transcript."""
    kept = response.metadata.get(CONVERSATION, {}).get("turns", [])
    return {row["scripted"]: row["turn"] for row in kept if isinstance(row, dict) and row.get("scripted")}


def transcript_text(messages: list[Message]) -> str:
    """The transcript as plain text, one ``role: content`` paragraph per message."""
    lines = []
    for message in messages:
        content = message.content
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        lines.append(f"{message.role}: {text or ''}")
    return "\n\n".join(lines)
