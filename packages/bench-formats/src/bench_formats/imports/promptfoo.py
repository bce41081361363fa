"""promptfoo's ``eval -o results.json``: each row of its evaluation matrix a task, with its verdict.

Task ids are those bench-formats' promptfoo loader gives the same config's tests (the test's
description, else ``test N``; then the prompt's label when there are several prompts, the
provider's when there are several providers), so ``bench rescore RUN --suite promptfooconfig.yaml``
finds each row's response.
"""

from __future__ import annotations

import json
from typing import Any

from bench import ConfigError, Response
from bench.importer import EvaluatorOutcome, ImportedRun, ImportedTask, Importer, ImportSource
from bench.llm import Usage
from bench_formats.imports.common import number
from bench_formats.promptfoo.matrix import _short

#: promptfoo's ``failureReason``: 0 none, 1 an assertion failed, 2 an error.
_STATUS = {0: "passed", 1: "failed", 2: "error"}


class PromptfooImporter(Importer):
    """promptfoo's results file (``promptfoo eval -o results.json``)."""

    name = "promptfoo"
    description = "promptfoo's eval -o results.json"

    def claims(self, source: ImportSource) -> bool:
        document = source.document()
        if not isinstance(document, dict) or not isinstance(document.get("results"), dict):
            return False
        results = document["results"]
        return isinstance(results.get("results"), list) and ("evalId" in document or "prompts" in results)

    def read(self, source: ImportSource) -> ImportedRun:
        document = source.document()
        results = document["results"]
        rows = [r for r in results["results"] if isinstance(r, dict)]
        if len(rows) != len(results["results"]):
            raise ConfigError("results.results holds something that is not a row", file=source.path)
        prompts = {_prompt_label(r) for r in rows}
        providers = {_provider(r)[1] for r in rows}
        seen: set[str] = set()
        tasks = [_task(row, _id(row, len(prompts) > 1, len(providers) > 1, seen)) for row in rows]
        config = document.get("config") or {}
        stats = results.get("stats") or {}
        return ImportedRun(
            suite=str(config.get("description") or "promptfoo eval"),
            tasks=tasks,
            source={
                "tool": "promptfoo",
                "format_version": results.get("version"),
                "eval_id": document.get("evalId"),
                "stats": {k: stats.get(k) for k in ("successes", "failures", "errors") if k in stats},
            },
            started_at=results.get("timestamp"),
        )


def _prompt_label(row: dict[str, Any]) -> str:
    prompt = row.get("prompt") or {}
    return str(prompt.get("label") or prompt.get("raw") or "")


def _provider(row: dict[str, Any]) -> tuple[str, str]:
    provider = row.get("provider") or {}
    if isinstance(provider, str):
        return provider, provider
    provider_id = str(provider.get("id") or "")
    return provider_id, str(provider.get("label") or provider_id)


def _id(row: dict[str, Any], prompts: bool, providers: bool, seen: set[str]) -> str:
    test = row.get("testCase") or {}
    index = row.get("testIdx")
    parts = [_short(str(test.get("description") or f"test {(index or 0) + 1}"))]
    if prompts:
        parts.append(_short(_prompt_label(row)))
    if providers:
        parts.append(_short(_provider(row)[1]))
    base = "/".join(parts)
    task_id, count = base, 1
    while task_id in seen:
        count += 1
        task_id = f"{base} #{count}"
    seen.add(task_id)
    return task_id


def _task(row: dict[str, Any], task_id: str) -> ImportedTask:
    response = row.get("response") or {}
    output = response.get("output")
    grading = row.get("gradingResult") or {}
    reason = row.get("failureReason")
    status = _STATUS.get(reason) if isinstance(reason, int) else None
    if status is None and isinstance(row.get("success"), bool):
        status = "passed" if row["success"] else "failed"
    tokens = response.get("tokenUsage") or row.get("tokenUsage") or {}
    provider_id, label = _provider(row)
    test = row.get("testCase") or {}
    metadata: dict[str, Any] = {"prompt": _prompt_label(row), "provider": provider_id}
    if test.get("description"):
        metadata["description"] = test["description"]
    if test.get("metadata"):
        metadata["test"] = test["metadata"]
    return ImportedTask(
        id=task_id,
        prompt=(row.get("prompt") or {}).get("raw"),
        vars=row.get("vars") or {},
        metadata=metadata,
        response=Response(
            output=output if isinstance(output, str) or output is None else json.dumps(output),
            error=row.get("error") if status == "error" else None,
            usage=Usage(
                input_tokens=tokens.get("prompt"),
                output_tokens=tokens.get("completion"),
                total_tokens=tokens.get("total"),
                cost_usd=number(row.get("cost")),
                latency_ms=number(row.get("latencyMs")),
            ),
        ),
        status=status,  # type: ignore[arg-type]
        score=number(row.get("score")),
        evaluators=[_outcome(c) for c in grading.get("componentResults") or [] if isinstance(c, dict)],
        target={
            "type": "promptfoo",
            "model": provider_id,
            **({"label": label} if label != provider_id else {}),
        },
        duration_ms=number(row.get("latencyMs")) or 0.0,
        imported={
            "tool": "promptfoo",
            "id": row.get("id"),
            "test_idx": row.get("testIdx"),
            "prompt_idx": row.get("promptIdx"),
            "pass": row.get("success"),
            "score": row.get("score"),
            "failure_reason": reason,
            "reason": grading.get("reason"),
            "named_scores": row.get("namedScores") or {},
        },
    )


def _target(provider_id: str, label: str) -> dict[str, Any]:
    found = {"type": "promptfoo", "model": provider_id}
    return found if label == provider_id else {**found, "label": label}


def _outcome(component: dict[str, Any]) -> EvaluatorOutcome:
    assertion = component.get("assertion") or {}
    kind = str(assertion.get("type") or "assertion")
    return EvaluatorOutcome(
        name=str(assertion.get("metric") or kind),
        type=f"promptfoo:{kind}",
        passed=component.get("pass") is True,
        score=number(component.get("score")),
        reason=str(component.get("reason") or ""),
        details={"assertion": assertion} if assertion else {},
    )
