"""lm-evaluation-harness's ``--log_samples`` output: ``samples_<task>_<time>.jsonl``, a line per
document (and per filter): its prompt (``arguments``), the model's answer (``filtered_resps``),
the target and each metric's value.

lm-eval gives no pass or fail, only metrics. A metric whose value is 0/1 or a bool (``acc``,
``exact_match``) is a verdict: the task passes when each such metric is 1, fails when one is 0.
A document with only graded metrics (``bleu``, ``perplexity``) has no verdict, and is an error
until ``bench rescore`` judges it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from bench import Response
from bench.importer import EvaluatorOutcome, ImportedRun, ImportedTask, Importer, ImportSource, JsonLines
from bench_formats.imports.common import number

#: Keys every line of a samples file has.
_KEYS = frozenset({"doc_id", "doc", "arguments", "resps", "filtered_resps", "metrics"})
_NAME = re.compile(r"^samples_(?P<task>.+?)_\d{4}-\d{2}-\d{2}T[\d.\-:]+$")


class LmEvalImporter(Importer):
    """lm-evaluation-harness's samples file (``--log_samples``)."""

    name = "lm-eval"
    description = "lm-evaluation-harness's samples_TASK_TIME.jsonl (--log_samples)"

    def claims(self, source: ImportSource) -> bool:
        rows = source.document()
        return (
            isinstance(rows, JsonLines)
            and bool(rows)
            and all(isinstance(r, dict) and r.keys() >= _KEYS for r in rows)
        )

    def read(self, source: ImportSource) -> ImportedRun:
        rows: list[dict[str, Any]] = source.document()
        found = _NAME.match(source.path.stem)
        task_name = found["task"] if found else source.path.stem
        filters = {str(r.get("filter", "none")) for r in rows}
        tasks = [_task(row, len(filters) > 1) for row in rows]
        return ImportedRun(
            suite=task_name,
            tasks=tasks,
            source={"tool": "lm-eval", "task": task_name, "filters": sorted(filters)},
        )


def _task(row: dict[str, Any], by_filter: bool) -> ImportedTask:
    filter_name = str(row.get("filter", "none"))
    task_id = str(row["doc_id"]) + (f"/{filter_name}" if by_filter else "")
    outcomes = [_outcome(name, row.get(name)) for name in row["metrics"] if isinstance(name, str)]
    verdicts = [o for o in outcomes if o.details.get("verdict")]
    status = None
    if verdicts:
        status = "passed" if all(o.passed for o in verdicts) else "failed"
    scores = [o.score for o in verdicts if o.score is not None]
    doc = row.get("doc")
    return ImportedTask(
        id=task_id,
        prompt=_prompt(row.get("arguments")),
        metadata={"doc": doc, "target": row.get("target"), "filter": filter_name},
        response=Response(output=_answer(row.get("filtered_resps"))),
        status=status,  # type: ignore[arg-type]
        score=sum(scores) / len(scores) if scores else None,
        evaluators=outcomes,
        target={"type": "lm-eval"},
        imported={
            "tool": "lm-eval",
            "doc_id": row["doc_id"],
            "target": row.get("target"),
            "resps": row.get("resps"),
            "metrics": {name: row.get(name) for name in row["metrics"] if isinstance(name, str)},
            "doc_hash": row.get("doc_hash"),
            "prompt_hash": row.get("prompt_hash"),
        },
    )


def _prompt(arguments: Any) -> str | None:
    """The first request's context: ``{"gen_args_0": {"arg_0": CONTEXT, ...}}`` as lm-eval saves
    it (older versions: a list of argument lists)."""
    first: Any = None
    if isinstance(arguments, dict) and arguments:
        first = next(iter(arguments.values()))
        first = next(iter(first.values()), None) if isinstance(first, dict) else first
    elif isinstance(arguments, list) and arguments:
        first = arguments[0][0] if isinstance(arguments[0], list) and arguments[0] else arguments[0]
    if isinstance(first, list) and len(first) == 1:  # a chat template's messages, as JSON text
        first = first[0]
    if not isinstance(first, str):
        return None
    try:
        chat = json.loads(first) if first.startswith("[{") else None
    except ValueError:
        chat = None
    if isinstance(chat, list):
        said = [m.get("content") for m in chat if isinstance(m, dict) and m.get("role") == "user"]
        return said[-1] if said and isinstance(said[-1], str) else first
    return first


def _answer(filtered: Any) -> str | None:
    """The answer after lm-eval's filters: text as it is, a loglikelihood's values as JSON."""
    value = filtered[0] if isinstance(filtered, list) and len(filtered) == 1 else filtered
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value)


def _outcome(name: str, value: Any) -> EvaluatorOutcome:
    score = number(value)
    verdict = isinstance(value, bool) or score in (0.0, 1.0)
    return EvaluatorOutcome(
        name=name,
        type=f"lm-eval:{name}",
        passed=bool(score) if verdict else False,
        score=score,
        reason=f"{name} = {value}" if verdict else f"{name} = {value} (graded: no pass or fail)",
        details={"value": value, "verdict": verdict},
    )
