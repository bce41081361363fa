"""``bench rescore RUN_ID``: a stored run's responses judged again by a suite's evaluators as they
are now, no target called; the new run's manifest names the run it re-scored (``rescored_from``).

Each task of the suite gets the response stored under its key (``id``, ``id@N``) in the source run,
as a recorded response; a task with no stored response (never run, or interrupted) is refused
before anything runs, naming it. Tasks of the run that the suite no longer has are left out.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.intake.replay import has_response, result_key, stored_response
from bench.llm.providers import credentials
from bench.plugins.registry import Registry
from bench.suite.loader import load_suite
from bench.suite.plan import Plan, PlannedTask, TaskList
from bench.vocabulary.errors import ConfigError
from bench.vocabulary.store import RunStore, read_run

#: How many missing tasks the refusal names.
NAMED = 5


@dataclass
class Rescoring:
    """A plan whose tasks replay a stored run's responses."""

    plan: Plan
    #: The run whose responses are judged again.
    source_run: str
    suite_path: Path
    #: Tasks of the source run that the suite does not have (left out).
    left_out: int


def rescoring(run_ref: str, runs_dir: Path, registry: Registry, suite: Path | None = None) -> Rescoring:
    """The suite (``suite``, else the one the run ran) with the run's stored responses."""
    run_id, manifest, results = read_run(runs_dir, run_ref, "bench rescore")
    suite_path = suite if suite is not None else _suite_of(manifest, run_id)
    plan = load_suite(suite_path, registry, need_target=False)
    stored = {result_key(row): row for row in results if isinstance(row, dict) and "id" in row}
    missing = [p.key for p in plan.tasks if p.key not in stored or not has_response(stored[p.key])]
    if missing:
        named = ", ".join(f"'{key}'" for key in missing[:NAMED])
        more = f" and {len(missing) - NAMED} more" if len(missing) > NAMED else ""
        raise ConfigError(
            f"bench rescore {run_ref}: run {run_id} has no stored response for "
            f"{len(missing)} task{'s' if len(missing) > 1 else ''} of {suite_path.name}: {named}{more}"
        )
    keys = set(plan.tasks.ids)
    left_out = sum(1 for key in stored if key not in keys)
    _replay(plan, stored, runs_dir / run_id / "captures")
    return Rescoring(plan, run_id, suite_path, left_out)


def _suite_of(manifest: dict[str, Any], run_id: str) -> Path:
    path = manifest.get("suite_path")
    if isinstance(path, str) and path:
        return Path(path)
    source = manifest.get("source") or {}
    origin = f" from {source['file']}" if isinstance(source, dict) and source.get("file") else ""
    raise ConfigError(
        f"run {run_id} was imported{origin} and has no suite: give the evaluators with --suite SUITE"
    )


def _replay(plan: Plan, stored: dict[str, dict[str, Any]], captures: Path) -> None:
    """Give each task of ``plan`` its stored response (with what its workspace kept: the diff,
    the captured files); only the evaluators' models are called."""
    original = plan.tasks

    def replayed(planned: PlannedTask) -> PlannedTask:
        response = stored_response(stored[planned.key], captures)
        task = planned.task.model_copy(update={"response": response})
        return dataclasses.replace(planned, task=task)

    built = [replayed(p) for p in original] if original.kept else None
    plan.tasks = TaskList(original.ids, original.digests, lambda: map(replayed, original), built)
    plan.needs_target = 0
    found: set[credentials.Endpoint] = set()
    for one in [*plan.named_evaluators.values(), *(e for p in original for e in p.evaluators)]:
        found |= credentials.endpoints(one.instance)
    plan.endpoints = found


def record_source(folder: Path, rescored: Rescoring) -> None:
    """Write the source run into the new run's manifest (``rescored_from``)."""
    store = RunStore(folder)
    manifest = store.read_manifest()
    manifest["rescored_from"] = {"run": rescored.source_run, "suite_path": str(rescored.suite_path.resolve())}
    store.write_manifest(manifest)
