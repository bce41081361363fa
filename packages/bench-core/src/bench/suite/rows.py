"""Where a suite's tasks are read from (its own list, a streamed suite's, a JSON Lines tasks
file), and what a row of a tasks file may name.

The suite file is trusted: its paths may lead anywhere. Rows of a tasks file are data (often
generated or downloaded), so a path a row names (``workspace``, a local ``repo``, an evaluator
``file`` or path setting) must stay inside the suite's folder after ``realpath`` unless the user
passes ``--allow-outside-root`` (RELIABILITY B06), and a row may not choose where model calls go.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from bench.document import MIB, UnreadableFile, YamlDocument, check_regular_file
from bench.suite.plan import BoundEvaluator
from bench.suite.yamlstream import StreamedSuite
from bench.suite_loader import SuiteFolder
from bench.vocabulary.errors import ConfigError, FieldPath

#: Settings that pick a model call's destination or credential: the suite's to choose, not a row's.
ENDPOINT_SETTINGS = ("api_base", "base_url", "api_key_env", "api_key")


class RowsDocument(YamlDocument):
    """Tasks read from a JSONL file, row by row: ``tasks[i]...`` points at row i's line."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, None, None)
        #: Row i's line number (blank lines are skipped); 8 bytes a row, not a list of ints.
        self.lines = array("Q")

    def mark(self, field: FieldPath) -> tuple[int, int] | None:
        if len(field) >= 2 and isinstance(field[1], int) and field[1] < len(self.lines):
            return self.lines[field[1]], 1
        return None

    def line(self, field: FieldPath) -> int | None:
        if len(field) >= 2 and isinstance(field[1], int) and field[1] < len(self.lines):
            return self.lines[field[1]]
        return None

    def rows(self) -> Iterator[Any]:
        """Parse one line at a time, so a large tasks file is never held whole in memory."""
        with open(self.path, encoding="utf-8-sig") as lines:
            number = 0
            try:
                for number, line in enumerate(lines, start=1):
                    if not line.strip():
                        continue
                    self.lines.append(number)
                    yield json.loads(line)
            except (ValueError, RecursionError) as exc:
                raise ConfigError(f"invalid JSON: {exc}", file=self.path, line=number + 1) from None


def tasks_file(doc: YamlDocument, ref: str) -> RowsDocument:
    """The tasks file a suite's ``tasks:`` names, checked to be a readable ``.jsonl`` file."""
    path = (doc.path.parent / Path(ref).expanduser()).resolve()
    if path.suffix.lower() != ".jsonl":
        raise doc.error("a tasks file must be JSON Lines (.jsonl), one task per line", ("tasks",))
    try:
        check_regular_file(path, max_bytes=4096 * MIB)
    except UnreadableFile as exc:
        raise doc.error(f"cannot read tasks file {ref}: {exc} (resolved to {path})", ("tasks",)) from None
    return RowsDocument(path)


def task_source(doc: YamlDocument, tasks: str | list[Any]) -> tuple[YamlDocument, Iterable[Any]]:
    """The document a suite's ``tasks:`` are in and the tasks as written: the rows of its tasks
    file, the tasks of a suite read as a stream, or the suite's own list."""
    if isinstance(tasks, str):
        rows_doc = tasks_file(doc, tasks)
        return rows_doc, rows_doc.rows()
    if isinstance(doc, StreamedSuite):
        return doc.tasks, doc.tasks.rows()
    return doc, tasks


def task_document(doc: YamlDocument, tasks: str | list[Any]) -> YamlDocument:
    """The document a task's errors point into (a tasks file is not read here)."""
    if isinstance(tasks, str):
        return tasks_file(doc, tasks)
    return doc.tasks if isinstance(doc, StreamedSuite) else doc


class RowRules:
    """Refuses what a data row may not do; a task written in the suite file passes unchecked."""

    def __init__(self, suite_path: Path, allow_outside_root: bool) -> None:
        self.suite_path = suite_path
        self.folder = SuiteFolder.of(suite_path, allow_outside_root)

    def confine(
        self, doc: YamlDocument, path: FieldPath, task_id: str, field: str, written: str, resolved: Path
    ) -> None:
        """Refuse a path from a data row that leads outside the suite's folder (B06)."""
        if not isinstance(doc, RowsDocument):
            return
        real = self.folder.escape(resolved)
        if real is None:
            return
        what = f"task '{task_id}' sets {field} {written}"
        raise doc.error(self.folder.refusal(what, real, "a data row may only name paths"), path)

    def confine_settings(
        self, doc: YamlDocument, path: FieldPath, entry: dict[str, Any], task_id: str, bound: BoundEvaluator
    ) -> None:
        """Check the settings an evaluator type names as host paths (``path_settings``), and keep
        data rows from choosing where model calls go or which credential they carry."""
        if isinstance(doc, RowsDocument):
            found = _endpoint_setting(entry)
            if found is not None:
                raise doc.error(
                    f"task '{task_id}': a data row may not choose where model calls go or which key "
                    "they send; define this evaluator in the suite file and name it from the row",
                    (*path, *found),
                )
        instance = bound.instance
        for name in type(instance).path_settings:
            value = getattr(instance.config, name, None)
            if not isinstance(value, str):
                continue
            where = (*path, name) if name in entry else (*path, "config", name)
            resolved = ((instance.folder or self.suite_path.parent) / Path(value).expanduser()).resolve()
            self.confine(doc, where, task_id, name, value, resolved)


def _endpoint_setting(entry: Any, at: tuple[str | int, ...] = ()) -> tuple[str | int, ...] | None:
    """Where in an evaluator mapping (panels and nested settings included) an endpoint setting is."""
    if isinstance(entry, dict):
        for key, value in entry.items():
            if key in ENDPOINT_SETTINGS:
                return (*at, key)
            found = _endpoint_setting(value, (*at, key))
            if found is not None:
                return found
    elif isinstance(entry, list):
        for i, value in enumerate(entry):
            found = _endpoint_setting(value, (*at, i))
            if found is not None:
                return found
    return None
