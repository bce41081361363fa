"""The importer contract: another tool's results (or bench's own results JSONL) as a bench run.

``bench import FILE`` offers the file to every registered importer, in order of falling
``priority``; the first whose ``claims`` is true reads it. An importer recognises a file by its
content, not its name: ``ImportSource`` holds the file's first bytes and, when the file is JSON
or JSON Lines, its parsed value, read once for all the importers. ``read`` returns an
``ImportedRun``: a name, what the run came from, and one ``ImportedTask`` per task: its input,
the response (with its trajectory and tool calls), the tool's own verdict and whatever else the
tool recorded. bench writes it to the run store as a run of its own, so ``bench compare``,
``bench view``, the reporters and ``bench rescore`` work on it.

The public API for plugins (docs/plugins.md) is ``__all__``: the contract, the hook's
``RegisterImporter`` and ``EvaluatorOutcome`` (a tool's check as an imported task holds it).
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, Field

from bench.document import MIB, UnreadableFile, read_text
from bench.vocabulary.errors import ConfigError
from bench.vocabulary.jsonio import loads_strict
from bench.vocabulary.models import Response
from bench.vocabulary.results import EvaluatorOutcome, TaskStatus

__all__ = [
    "EvaluatorOutcome",
    "ImportSource",
    "ImportedRun",
    "ImportedTask",
    "Importer",
    "JsonLines",
    "RegisterImporter",
]

#: The largest file ``bench import`` reads.
MAX_IMPORT_BYTES = 1024 * MIB
HEAD_BYTES = 64 * 1024


class JsonLines(list[Any]):
    """A file's JSON Lines: one parsed value per non-blank line."""


class ImportSource:
    """A file offered to the importers: its path, its first bytes, and its JSON when it is JSON.

    ``document()`` parses the file once: the whole file as one JSON value, else each line as one
    (a ``JsonLines``), else ``None`` (then ``problem`` says why). A zip archive (``is_zip``) is
    opened with ``archive()``.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            with open(path, "rb") as fh:
                self.head = fh.read(HEAD_BYTES)
        except OSError as exc:
            raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
        self.problem: str | None = None
        self._document: Any = None
        self._parsed = False

    @property
    def is_zip(self) -> bool:
        return self.head.startswith(b"PK\x03\x04")

    @property
    def looks_like_json(self) -> bool:
        """Whether the file starts as JSON does (an object or a list)."""
        return self.head.lstrip()[:1] in (b"{", b"[")

    def text(self) -> str:
        """The whole file as text (at most ``MAX_IMPORT_BYTES``)."""
        try:
            return read_text(self.path, max_bytes=MAX_IMPORT_BYTES)
        except UnreadableFile as exc:
            raise ConfigError(f"cannot import {self.path}: {exc}") from None

    def document(self) -> Any:
        """The file's JSON value, its ``JsonLines``, or None (``problem`` then says why)."""
        if self._parsed:
            return self._document
        self._parsed = True
        if self.is_zip or not self.looks_like_json:
            return None
        text = self.text()
        try:
            self._document = loads_strict(text)
            return self._document
        except ValueError as exc:
            whole = str(exc)
        rows = JsonLines()
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                rows.append(loads_strict(line))
            except ValueError as exc:
                # A first line that is no JSON: the file is one JSON document, cut or damaged.
                self.problem = whole if not rows else f"line {number}: {exc}"
                return None
        self._document = rows
        return rows

    def archive(self) -> zipfile.ZipFile | None:
        """The file as a zip archive, or None when it is not one."""
        if not self.is_zip:
            return None
        try:
            return zipfile.ZipFile(self.path)
        except (zipfile.BadZipFile, OSError):
            return None


class ImportedTask(BaseModel):
    """One task of an imported run: what it asked, what was answered and the tool's verdict."""

    # Built when a run is imported (``bench import``), not when bench.hookspecs loads it.
    model_config = ConfigDict(extra="forbid", defer_build=True)

    id: str
    repeat: int = 0
    #: The input as text, or as chat ``messages`` (OpenAI-style dicts).
    prompt: str | None = None
    messages: list[dict[str, Any]] | None = None
    vars: dict[str, Any] = Field(default_factory=dict)
    metadata: dict[str, Any] = Field(default_factory=dict)
    tags: list[str] = Field(default_factory=list)
    #: The system's response: output, error, tool calls, usage, and its trajectory in ``messages``.
    response: Response = Field(default_factory=Response)
    #: The tool's verdict; None when it gave none (bench then records the task as an error that
    #: says so: a task nobody judged is never a pass).
    status: TaskStatus | None = None
    score: float | None = None
    #: The tool's checks, one outcome each (type ``TOOL:CHECK``).
    evaluators: list[EvaluatorOutcome] = Field(default_factory=list)
    #: What answered: at least ``type`` (the tool's provider or model).
    target: dict[str, Any] | None = None
    duration_ms: float = 0.0
    #: The tool's own fields bench has no place for (kept in the result's ``imported``).
    imported: dict[str, Any] = Field(default_factory=dict)


@dataclass
class ImportedRun:
    """What an importer read: the run's name, where it came from, and its tasks in order."""

    #: What ``bench runs`` shows as the run's suite (the tool's eval or task name).
    suite: str
    tasks: Iterable[ImportedTask]
    #: The tool and its version, the run's own id and figures: kept in the manifest's ``source``.
    source: dict[str, Any] = field(default_factory=dict)
    #: When the tool ran it (ISO 8601), when it says.
    started_at: str | None = None


class Importer:
    """Base class of an importer: reads one tool's results file as an ``ImportedRun``.

    Subclasses set ``name`` (and optionally ``description`` and ``priority``; bench's own results
    JSONL importer has 0) and implement ``claims`` and ``read``. ``read`` raises
    ``bench.ConfigError(message, file=path)`` for a file it cannot read.
    """

    name: ClassVar[str]
    description: ClassVar[str] = ""
    #: Importers with a higher priority are asked first.
    priority: ClassVar[int] = 10

    def claims(self, source: ImportSource) -> bool:
        """Whether this importer reads ``source`` (decided from its content)."""
        raise NotImplementedError

    def read(self, source: ImportSource) -> ImportedRun:
        """The run the file holds."""
        raise NotImplementedError


class RegisterImporter(Protocol):
    """The ``register`` of ``bench_register_importers``: an importer class, or its name and import
    path (``register("answers", "my_package.answers:AnswersImporter")``, as ``bench.hookspecs.Register``)."""

    def __call__(self, cls: type[Importer] | str, path: str | None = None, /) -> None: ...
