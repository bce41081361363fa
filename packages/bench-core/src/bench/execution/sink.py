"""The sink: the one way a result lands in the run store (redacted, appended, counted, shown)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from bench.scoring.run_stats import StatsCollector, simulated_user
from bench.vocabulary.results import Summary, TaskResult
from bench.vocabulary.store import RunStore, StoreWriteError
from bench.workspace.captures import PORTABLE, land_captures

__all__ = ["StoreSink", "serialize_result", "statistics_row"]

#: A result line's ``workspace`` holding data (a mapping). It may match a nested key of that name
#: too: then the line is parsed when it need not be, never the other way round.
_WORKSPACE_DATA = re.compile(r'"workspace":\s*\{')


def serialize_result(result: TaskResult) -> str:
    """One result as one JSON line (valid UTF-8 even when the response holds lone surrogates)."""
    try:
        return result.model_dump_json()
    except ValueError:
        return json.dumps(result.model_dump(mode="python"), ensure_ascii=True, allow_nan=False)


def statistics_row(result: TaskResult, repeats: bool) -> dict[str, Any]:
    """The fields statistics read, without serialising the whole result."""
    row: dict[str, Any] = {
        "id": result.id,
        "status": result.status,
        "passed": result.passed,
        "score": result.score,
    }
    if repeats:  # judge samples, to split variance between the system and the judge
        row["evaluators"] = [
            {"name": o.name, "details": o.details} for o in result.evaluators if "verdicts" in o.details
        ]
        user = simulated_user(result.conversation)
        if user is not None:  # who the simulated user was, to split its share too
            row["user"] = user
    return row


class StoreSink:
    """Lands results in ``store``: redact, append one line, add to the summary and statistics,
    then tell the observer. A failed write calls ``on_write_error`` (stop the run) and raises.

    ``counted(status)``, when given, takes a landed result known by its status alone and says
    whether that was enough; when it was not (or the line holds workspace data), the line is
    parsed and ``done`` gets the whole result. So a quiet run's driver parses only the few
    results it shows.
    """

    def __init__(
        self,
        store: RunStore,
        redact: Callable[[str], str],
        summary: Summary,
        collector: StatsCollector,
        done: Callable[[TaskResult], None] | None,
        on_write_error: Callable[[], None],
        counted: Callable[[str], bool] | None = None,
    ) -> None:
        self.store = store
        self.redact = redact
        self.summary = summary
        self.collector = collector
        self.done = done
        self.on_write_error = on_write_error
        self.counted = counted

    def record(self, result: TaskResult) -> None:
        if result.workspace is not None:  # the captured files it carries from a worker, if any
            land_captures(result, self.store.folder / "captures", self.redact)
        self._append(self.redact(serialize_result(result)))
        self.summary.add(result.status)
        self.collector.add(statistics_row(result, self.collector.repeats))
        if self.done is not None:
            self.done(result)

    def replace(self, before: dict[str, Any], result: TaskResult) -> None:
        """Land ``result`` again over its stored row ``before`` (a key's latest line wins): the
        summary counts it under its new status. Statistics are the caller's to read again."""
        self._append(self.redact(serialize_result(result)))
        self.summary.moved(str(before.get("status")), result.status)

    def land(self, line: str, status: str, stats: dict[str, Any]) -> None:
        line = self.redact(line)  # again: the worker redacted with its environment, this is ours
        result = None
        if f'"{PORTABLE}":' in line:  # captured files carried from the worker: written here
            result = TaskResult.model_validate_json(line)
            land_captures(result, self.store.folder / "captures", self.redact)
            line = self.redact(serialize_result(result))
        self._append(line)
        self.summary.add(status)
        self.collector.add(stats)
        if self.done is None:
            return
        counted = self.counted  # the status may be all the observer needs: then no parsing
        if result is None and counted is not None and not _WORKSPACE_DATA.search(line) and counted(status):
            return
        self.done(result if result is not None else TaskResult.model_validate_json(line))

    def _append(self, line: str) -> None:
        try:
            self.store.append(line)
        except StoreWriteError:
            self.on_write_error()
            raise
