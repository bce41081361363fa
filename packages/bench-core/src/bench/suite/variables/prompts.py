"""Prompt variants: the suite's ``prompts:`` read, and each task's prompt rendered from every one.

A suite with ``prompts:`` runs each task once per prompt (and per target of ``targets:``). A
prompt is a ``{name}`` template, written inline or read from a file beside the suite; it sees the
task's vars, and the task's own prompt as ``{prompt}`` when the task writes one. Each variant has
a label: the one given, else the file's name as written, else ``prompt N``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.document import MIB, UnreadableFile, YamlDocument, check_regular_file
from bench.suite.binding import digest
from bench.suite.file_model import PromptEntry
from bench.vocabulary.errors import FieldPath
from bench.vocabulary.templates import MissingPlaceholder, render

#: The most bytes a prompt file may hold.
MAX_PROMPT_FILE = 16 * MIB


@dataclass(frozen=True)
class PromptTemplate:
    """One of the suite's ``prompts:``: its label and its ``{name}`` template."""

    label: str
    template: str

    def digest(self, task_digest: str) -> str:
        """A task's digest on this prompt: a changed template runs the task again on resume."""
        return digest(task_digest, "prompt", self.label, self.template)


@dataclass(frozen=True)
class PromptVariant:
    """A task's prompt as one of the suite's ``prompts:`` renders it."""

    label: str
    text: str
    digest: str


def read_prompts(doc: YamlDocument, entries: list[str | PromptEntry] | None) -> list[PromptTemplate]:
    """The suite's ``prompts:``, files read (relative to the suite's folder), labels unique."""
    found: dict[str, PromptTemplate] = {}
    for i, entry in enumerate(entries or []):
        at: FieldPath = ("prompts", i)
        if isinstance(entry, str):
            entry = PromptEntry(template=entry)
        if (entry.template is None) == (entry.file is None):
            raise doc.error("a prompt gives 'template' or 'file', not both and not neither", at)
        template = entry.template if entry.template is not None else _read(doc, entry.file or "", at)
        label = entry.label or entry.file or f"prompt {i + 1}"
        if label in found:
            hint = "" if entry.label else " (give each prompt a label)"
            raise doc.error(f"prompt label '{label}' is used twice{hint}", (*at, "label"))
        found[label] = PromptTemplate(label, template)
    return list(found.values())


def _read(doc: YamlDocument, name: str, at: FieldPath) -> str:
    path = doc.path.parent / Path(name).expanduser()
    try:
        check_regular_file(path, max_bytes=MAX_PROMPT_FILE)
        return path.read_text(encoding="utf-8-sig")
    except (UnreadableFile, OSError, UnicodeDecodeError) as exc:
        raise doc.error(f"cannot read prompt file {name}: {exc}", (*at, "file")) from None


def variants(
    doc: YamlDocument,
    at: FieldPath,
    prompts: list[PromptTemplate],
    own_prompt: str | None,
    values: dict[str, Any],
    task_digest: str,
) -> tuple[PromptVariant, ...]:
    """A task's prompt from each of ``prompts``, with ``values`` and ``{prompt}``: its own prompt."""
    if own_prompt is not None:
        values = {**values, "prompt": own_prompt}
    found = []
    for prompt in prompts:
        try:
            text = render(prompt.template, values)
        except MissingPlaceholder as exc:
            known = ", ".join(sorted(values)) or "none"
            raise doc.error(
                f"prompt '{prompt.label}' has the placeholder {{{exc.name}}}, which this task does "
                f"not give (its vars: {known})",
                at,
            ) from None
        found.append(PromptVariant(prompt.label, text, prompt.digest(task_digest)))
    return tuple(found)
