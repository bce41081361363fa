"""bench's own results as an importer: a run's ``results.jsonl``, or a ``-o FILE.jsonl`` report,
brought into another runs folder (core's importer; other tools' importers are plugins)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from bench.importer import ImportedRun, ImportedTask, Importer, ImportSource, JsonLines
from bench.vocabulary.errors import ConfigError
from bench.vocabulary.models import Message, Response
from bench.vocabulary.results import TaskResult

#: Fields every result line has (the contract of docs/runs.md).
_RESULT_KEYS = frozenset({"id", "status", "passed"})
#: A result's fields bench's imported tasks have no place for, kept in ``imported``.
_KEPT = ("digest", "scorecard", "workspace", "input_omitted", "prompt_bytes", "prompt_sha256")


class BenchResultsImporter(Importer):
    """bench's results JSONL: one task's result per line, as the run store holds it."""

    name = "bench"
    description = "bench's own results JSONL (a run's results.jsonl, or -o FILE.jsonl)"
    priority = 0

    def claims(self, source: ImportSource) -> bool:
        rows = source.document()
        return (
            isinstance(rows, JsonLines)
            and bool(rows)
            and all(isinstance(r, dict) and r.keys() >= _RESULT_KEYS for r in rows)
        )

    def read(self, source: ImportSource) -> ImportedRun:
        rows = source.document()
        tasks = [_task(row, number, source) for number, row in enumerate(rows, start=1)]
        return ImportedRun(suite=source.path.stem, tasks=tasks, source={"tool": "bench"})


def _task(row: dict[str, Any], number: int, source: ImportSource) -> ImportedTask:
    try:
        result = TaskResult.model_validate(row)
        response = Response(
            output=result.response,
            error=result.error,
            tool_calls=result.tool_calls,
            usage=result.usage,
            truncated=result.truncated,
            truncation=result.truncation,
            output_bytes=result.response_bytes,
            output_sha256=result.response_sha256,
            messages=[Message.model_validate(m) for m in result.trajectory or []],
        )
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = ".".join(str(p) for p in problem["loc"])
        raise ConfigError(
            f"line {number} is not a bench result: {where}: {problem['msg']}", file=source.path
        ) from None
    kept = {key: row[key] for key in _KEPT if row.get(key) is not None}
    return ImportedTask(
        id=result.id,
        repeat=result.repeat,
        prompt=result.prompt,
        messages=result.messages,
        vars=result.vars or {},
        metadata=result.metadata or {},
        tags=result.tags,
        response=response,
        status=result.status,
        score=result.score,
        evaluators=result.evaluators,
        target=result.target,
        duration_ms=result.duration_ms,
        imported={**(result.imported or {}), **kept} if kept or result.imported else {},
    )
