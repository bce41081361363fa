"""An imported run landed in the run store: a manifest that says where it came from, one result
line per task, as ``bench run`` writes them."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.importer import ImportedRun, ImportedTask
from bench.vocabulary import redact
from bench.vocabulary.errors import BenchError, ConfigError
from bench.vocabulary.results import ERROR, PASSED, EvaluatorOutcome, Summary, TaskResult
from bench.vocabulary.store import RunStore, now_iso
from bench.vocabulary.version import __version__

#: The evaluator outcome of a task the tool gave no verdict: an error, never a pass.
UNJUDGED = "imported without a verdict: judge it with bench rescore RUN_ID --suite SUITE"


@dataclass(frozen=True)
class Landed:
    """An imported run in the store."""

    run_id: str
    folder: Path
    suite: str
    summary: Summary
    source: dict[str, Any]


def land(run: ImportedRun, source: dict[str, Any], runs_dir: Path, run_id: str | None = None) -> Landed:
    """Write ``run`` as a new run (``run_id``, else a fresh id); ``source`` goes in the manifest.

    Nothing is left behind when the file turns out unreadable half-way: the run folder is removed.
    """
    store = RunStore.create(runs_dir, run_id)
    summary = Summary()
    started = run.started_at or now_iso()
    manifest: dict[str, Any] = {
        "run_id": store.run_id,
        "suite": run.suite,
        "suite_path": None,
        "referenced_files": [],
        "bench_version": __version__,
        "python": sys.version.split()[0],
        "started_at": started,
        "imported_at": now_iso(),
        "source": source,
    }
    scrub = redact.current()
    try:
        store.write_manifest({**manifest, "status": "running"})
        seen: set[str] = set()
        for task in run.tasks:
            result = task_result(task)
            key = result.key
            if key in seen:
                raise ConfigError(f"two tasks have the id '{key}'", file=Path(source["file"]))
            seen.add(key)
            store.append(scrub(result.model_dump_json()))
            summary.add(result.status)
        if not seen:
            raise ConfigError("the file holds no task", file=Path(source["file"]))
        store.write_manifest(
            {**manifest, "status": "finished", "tasks": summary.total, "summary": summary.as_dict()}
        )
    except BaseException:
        store.close()
        shutil.rmtree(store.folder, ignore_errors=True)
        raise
    store.close()
    return Landed(store.run_id, store.folder, run.suite, summary, source)


def task_result(task: ImportedTask) -> TaskResult:
    """The result line of one imported task (a task without a verdict is an error saying so)."""
    response = task.response
    evaluators = list(task.evaluators)
    status = task.status
    if status is None:
        status = ERROR
        evaluators.append(EvaluatorOutcome(name="verdict", type="imported", passed=False, error=UNJUDGED))
    trajectory = [m.model_dump(exclude_none=True) for m in response.messages] or None
    try:
        return TaskResult(
            id=task.id,
            repeat=task.repeat,
            status=status,
            passed=status == PASSED,
            score=task.score,
            response=response.output,
            truncated=response.truncated,
            truncation=response.truncation,
            response_bytes=response.output_bytes,
            response_sha256=response.output_sha256,
            error=response.error,
            evaluators=evaluators,
            tool_calls=response.tool_calls,
            usage=response.usage,
            duration_ms=task.duration_ms,
            prompt=task.prompt,
            messages=task.messages,
            vars=redact.named(task.vars) or None,
            metadata=redact.named(task.metadata) or None,
            tags=task.tags,
            target=task.target,
            trajectory=trajectory,
            imported=redact.named(task.imported) or None,
        )
    except ValueError as exc:  # an importer's bug: say which task
        raise BenchError(f"imported task '{task.id}' is not a valid result: {exc}") from None
