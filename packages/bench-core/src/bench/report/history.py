"""Run history: ``bench runs`` lists the stored runs, ``bench show`` prints one run or one task.

Everything is read from the run store (manifests and ``results.jsonl``) without taking a run's
lock, so a run still in progress can be looked at. Text from a run is untrusted and printed as
plain text (``console.plain``, ``console.plain_block``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.text import Text

from bench.report.console import batches_line, plain, plain_block, statistics_lines, stdout, targets_table
from bench.report.terminal_matrix import print_matrix
from bench.scoring.run_stats import run_statistics
from bench.scoring.target_stats import target_statistics
from bench.vocabulary import jsonio
from bench.vocabulary.errors import StoreError, did_you_mean
from bench.vocabulary.results import PASSED, WAITING, verdict_word
from bench.vocabulary.run_key import RunKey
from bench.vocabulary.store import read_run, run_manifests


def run_row(run_id: str, manifest: dict[str, Any]) -> dict[str, Any]:
    """What ``bench runs`` shows of one run: id, suite, when, status, tasks, pass rate, cost."""
    summary = _mapping(manifest.get("summary"))
    counts = {k: _number(summary.get(k)) or 0 for k in ("passed", "failed", "errors")}
    done = sum(counts.values())
    llm = _mapping(manifest.get("llm"))
    return {
        "run_id": run_id,
        "suite": manifest.get("suite"),
        "started_at": manifest.get("started_at"),
        "status": manifest.get("status"),
        "tasks": _number(summary.get("total", manifest.get("tasks"))),
        "passed": _number(summary.get("passed")),
        "pass_rate": round(counts["passed"] / done, 4) if done > 0 else None,
        "cost_usd": _number(llm.get("cost_usd")),
    }


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _number(value: Any) -> int | float | None:
    """A count or cost from a manifest, ``None`` when a hand-edited one holds something else."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def list_runs(runs_dir: Path) -> list[dict[str, Any]]:
    """Every stored run's row, newest first."""
    return [run_row(name, data) for name, data in reversed(run_manifests(runs_dir))]


def print_runs(rows: list[dict[str, Any]], runs_dir: Path) -> None:
    """The runs as aligned columns, never cut to the terminal's width (ids must stay whole)."""
    if not rows:
        stdout.print(plain(f"no runs in {runs_dir}"))
        return
    header = ("run", "suite", "when", "status", "tasks", "pass rate", "cost")
    cells = [
        [
            row["run_id"],
            row["suite"],
            row["started_at"],
            row["status"],
            row["tasks"],
            _percent(row["pass_rate"]),
            _cost(row["cost_usd"]),
        ]
        for row in rows
    ]
    _columns(header, cells)


def _columns(header: tuple[str, ...], rows: list[list[Any]]) -> None:
    texts = [[plain(cell, 120).plain for cell in row] for row in rows]
    widths = [max(len(h), *(len(row[i]) for row in texts)) for i, h in enumerate(header)]
    for line in [list(header), *texts]:
        stdout.print(Text("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)).rstrip()))


def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{rate * 100:.1f}%"


def _cost(cost: float | None) -> str:
    return "-" if cost is None else f"${cost:.4f}"


def load(runs_dir: Path, ref: str) -> tuple[str, dict[str, Any], list[dict[str, Any]]]:
    """A run's id, manifest and latest result per task (``latest``: the newest run)."""
    return read_run(runs_dir, ref, "bench show")


def task_results(run_id: str, results: list[dict[str, Any]], task_id: str) -> list[dict[str, Any]]:
    """The results of ``task_id`` (every repeat), or of one repeat written ``id@N``."""
    found = [r for r in results if r.get("id") == task_id]
    run = RunKey.parse(task_id)
    if not found and run.id != task_id:
        found = [r for r in results if r.get("id") == run.id and r.get("repeat", 0) == run.repeat]
    if not found:
        hint = did_you_mean(task_id, sorted({str(r.get("id")) for r in results}))
        raise StoreError(f"run {run_id} has no task '{task_id}'{hint}")
    return found


def run_json(run_id: str, manifest: dict[str, Any], results: list[dict[str, Any]]) -> str:
    """``bench show RUN --json``: the manifest and each task's id, status, score and reasons."""
    tasks = [
        {
            "id": r.get("id"),
            "repeat": r.get("repeat", 0),
            "status": r.get("status"),
            "score": r.get("score"),
            "error": r.get("error"),
            "reasons": [e.get("reason") for e in r.get("evaluators", [])],
        }
        for r in results
    ]
    shown: dict[str, Any] = {"run_id": run_id, "manifest": manifest, "tasks": tasks}
    per_target = target_statistics(results)
    if per_target is not None:
        shown["targets"] = per_target
    return jsonio.dumps(shown)


def print_run(run_id: str, manifest: dict[str, Any], results: list[dict[str, Any]]) -> None:
    """A run's summary, then every task that did not pass with why."""
    row = run_row(run_id, manifest)
    for label, value in (
        ("run", run_id),
        ("suite", f"{row['suite']} ({manifest.get('suite_path', '?')})"),
        ("status", row["status"]),
        ("started", row["started_at"]),
        ("finished", manifest.get("finished_at", "-")),
        ("tasks", _counts(manifest, results)),
        ("pass rate", _percent(row["pass_rate"])),
        ("cost", _cost(row["cost_usd"])),
    ):
        stdout.print(Text(f"{label + ':':<10} ") + plain(value))
    if isinstance(manifest.get("batches"), dict) and manifest["batches"].get("requests"):
        stdout.print(Text(batches_line(manifest["batches"])))
    statistics = run_statistics(results)
    if statistics and statistics.get("repeats", 1) > 1:  # flakiness, split by source
        for line in statistics_lines(statistics)[1:]:
            stdout.print(Text(line))
    per_target = target_statistics(results)
    if per_target is not None:
        stdout.print(targets_table(per_target))
    print_matrix(run_id, results)
    not_passed = [r for r in results if r.get("status") != PASSED]
    if not not_passed:
        return
    stdout.print(Text(f"\nnot passed ({len(not_passed)}):"))
    rows = []
    for result in not_passed:
        key = RunKey.of(result).key()
        rows.append([key, result.get("status"), _score(result.get("score")), _why(result).plain])
    _columns(("task", "status", "score", "why"), rows)
    stdout.print(Text(f"one task whole: bench show {run_id} TASK_ID"))


def _counts(manifest: dict[str, Any], results: list[dict[str, Any]]) -> str:
    summary = manifest.get("summary")
    if not isinstance(summary, dict):  # still running: count what is recorded
        return f"{len(results)} of {manifest.get('tasks', '?')} recorded"
    parts = ", ".join(f"{summary.get(k, 0)} {k}" for k in ("passed", "failed", "errors"))
    return f"{summary.get('total', 0)}: {parts}"


def _score(score: Any) -> str:
    return "-" if not isinstance(score, int | float) else f"{score:.3f}"


def _why(result: dict[str, Any]) -> Text:
    if result.get("error"):
        return plain(result["error"])
    asked = (result.get("conversation") or {}).get("waiting")
    if result.get("status") == WAITING and isinstance(asked, dict):
        prompt = f": {asked.get('prompt')}" if asked.get("prompt") else ""
        return plain(f"waits for a person at turn {asked.get('turn')}{prompt}")
    reasons = [
        f"{e.get('name')}: {e.get('error') or e.get('reason')}"
        for e in result.get("evaluators", [])
        if not e.get("passed")
    ]
    return plain("; ".join(reasons))


def print_task(result: dict[str, Any]) -> None:
    """One task whole: its input, the target, the response and every evaluator's verdict."""
    key = RunKey.of(result).key()
    stdout.print(
        Text(f"task {key}: ") + plain(result.get("status")) + Text(f"  score {_score(result.get('score'))}")
    )
    target = result.get("target")
    if target:
        stdout.print(Text("target: ") + plain(", ".join(f"{k}={v}" for k, v in target.items())))
    for key in ("tags", "vars", "metadata"):
        if result.get(key):
            stdout.print(Text(f"{key}: ") + plain(json.dumps(result[key], ensure_ascii=False), 2000))
    if result.get("messages"):
        _section("messages", "\n".join(f"[{m.get('role')}] {m.get('content')}" for m in result["messages"]))
    elif result.get("prompt") is not None:
        _section("prompt", result["prompt"], result.get("prompt_bytes"), result.get("prompt_sha256"))
    if result.get("conversation"):
        print_transcript(result)
    if result.get("status") == WAITING:
        stdout.print(_why(result))
    if result.get("input_omitted"):
        stdout.print(Text("left out (over the cap): ") + plain(json.dumps(result["input_omitted"])))
    cut = result.get("truncated") and result.get("response_bytes") is not None
    _section(
        "response",
        result.get("response"),
        result.get("response_bytes") if cut else None,
        result.get("response_sha256") if cut else None,
    )
    if result.get("truncation"):
        stdout.print(Text("truncated: ") + plain(result["truncation"], 1000))
    if result.get("error"):
        _section("error", result["error"])
    for outcome in result.get("evaluators", []):
        verdict = verdict_word(outcome)
        name = f"evaluator {outcome.get('name')} ({outcome.get('type')})"
        stdout.print(plain(f"{name}: {verdict}, score {_score(outcome.get('score'))}", 1000))
        stdout.print(plain_block(f"  {outcome.get('error') or outcome.get('reason') or ''}"))
        if outcome.get("details"):
            details = json.dumps(outcome["details"], indent=2, ensure_ascii=False)
            stdout.print(plain_block("  details: " + details.replace("\n", "\n  ")))
    if result.get("scorecard"):
        _section("scorecard", json.dumps(result["scorecard"], indent=2, ensure_ascii=False))
    usage = {k: v for k, v in (result.get("usage") or {}).items() if v is not None}
    stdout.print(Text("usage: ") + plain(", ".join(f"{k}={v}" for k, v in usage.items()) or "-"))
    stdout.print(Text(f"duration: {float(result.get('duration_ms') or 0):.1f} ms"))


def _turn_verdicts(result: dict[str, Any]) -> dict[int, list[str]]:
    """Turn number -> the verdicts given on that turn (per-turn checks, each turn's of ``each_turn``)."""
    found: dict[int, list[str]] = {}
    for outcome in result.get("evaluators", []):
        details = outcome.get("details") or {}
        rows = details.get("turns") if isinstance(details.get("turns"), list) else None
        if rows is None and isinstance(details.get("turn"), int):
            rows = [{"turn": details["turn"], **outcome}]
        for row in rows or []:
            verdict = verdict_word(row)
            why = row.get("error") or row.get("reason") or ""
            found.setdefault(row.get("turn"), []).append(f"{outcome.get('name')}: {verdict}  {why}".rstrip())
    return found


def print_transcript(result: dict[str, Any]) -> None:
    """A conversation as turns: who said what, and the verdicts given on each turn."""
    conversation = result["conversation"]
    turns = {row.get("turn"): row for row in conversation.get("turns", []) if isinstance(row, dict)}
    verdicts = _turn_verdicts(result)
    stdout.print(Text(f"--- conversation ({len(turns)} turns) ---"))
    number = 0
    for message in conversation.get("messages", []):
        role = message.get("role")
        if role == "user":
            if number in verdicts:
                stdout.print(plain_block("\n".join(f"    = {v}" for v in verdicts[number])))
            number += 1
            by = turns.get(number, {}).get("by", "")
            stdout.print(Text(f"turn {number}" + (f" ({by})" if by else "")))
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        stdout.print(plain_block(f"  {role}: {text or ''}"))
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {} if isinstance(call, dict) else {}
            stdout.print(plain(f"    -> {function.get('name')}({function.get('arguments', '')})", 1000))
    if number in verdicts:
        stdout.print(plain_block("\n".join(f"    = {v}" for v in verdicts[number])))


def _section(title: str, text: str | None, size: int | None = None, digest: str | None = None) -> None:
    note = f" (the first part of {size} bytes, sha256 {digest})" if size is not None else ""
    stdout.print(Text(f"--- {title}{note} ---"))
    stdout.print(plain_block("" if text is None else text))
