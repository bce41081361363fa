"""What ``bench view`` serves as JSON: the runs list, one page of a run's tasks, one task, a comparison.

Each run's ``results.jsonl`` is read once and then only what was appended since (a run still in
progress grows), so a page of a 20,000-task run costs a filter over records already in memory.
Only names of run folders directly inside the runs folder are ever opened, and only where the
folder, its manifest and its results resolve inside the runs folder (a link out of it is refused).
A broken run (its manifest not a JSON object, its folder's name not UTF-8) answers alone with why.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.report.compare import RunResults, compare_runs
from bench.report.compare_page import task_change
from bench.report.history import list_runs, run_row
from bench.scoring.target_stats import target_label, target_statistics
from bench.vocabulary.errors import StoreError
from bench.vocabulary.redact import excerpt
from bench.vocabulary.results import falls_short
from bench.vocabulary.run_key import RunKey
from bench.vocabulary.store import LATEST, MANIFEST, latest_lines, newest_run, results_path

PAGE = 100
#: How much of a response a matrix cell carries (the diff and the task's detail fetch it whole).
CELL_CHARS = 300
_LISTS = ("regressions", "improvements", "only_in_a", "only_in_b")


NOT_UTF8 = "its name is not UTF-8 text: rename the folder to open the run"


class NotFound(StoreError):
    """A run, task or target the runs folder does not hold; the message is shown to the user."""


class BrokenRun(StoreError):
    """A run the viewer cannot read (its manifest is not a JSON object); shown to the user."""


@dataclass
class _Cached:
    """One run's records as far as ``results.jsonl`` has been read."""

    offset: int = 0
    #: Each result key's latest record, parsed once (a later line for the key replaces it in place).
    latest: dict[str, dict[str, Any]] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)
    texts: list[str] | None = None  # what the text filter searches, built on its first use
    matrix: dict[str, Any] | None = None  # the matrix's cells, built on their first request
    #: The run's evaluators, target labels and per-target statistics, built on their first request.
    facets: dict[str, Any] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


def _key(record: dict[str, Any]) -> str:
    return RunKey(str(record.get("id")), record.get("repeat") or 0).key()


class RunsView:
    """The runs folder as ``bench view`` reads it; safe to share between request threads."""

    def __init__(self, runs_dir: Path) -> None:
        self.runs_dir = runs_dir
        self._cache: dict[str, _Cached] = {}
        self._lock = threading.Lock()

    # -- runs ----------------------------------------------------------------------------------

    def runs(self) -> list[dict[str, Any]]:
        """Every run's row as ``bench runs`` lists it, newest first; a run resolving outside the
        runs folder is left out, and one whose folder's name is not UTF-8 shows it with
        replacement characters and an ``error`` (a page cannot address it)."""
        rows = []
        for row in list_runs(self.runs_dir):
            name = row["run_id"]
            if not self._inside(self.runs_dir / name):
                continue
            shown = _shown(name)
            rows.append(row if shown == name else {**row, "run_id": shown, "error": NOT_UTF8})
        return rows

    def folder(self, ref: str) -> Path:
        """The folder of run ``ref`` (``latest``: the newest); a name that is not a run folder
        directly inside the runs folder (``..``, a path, a hidden name) is not found, nor is one
        that resolves outside it."""
        run_id = newest_run(self.runs_dir) if ref == LATEST else ref
        if (
            not run_id
            or run_id.startswith(".")
            or "/" in run_id
            or "\\" in run_id
            or "\x00" in run_id
            or not (self.runs_dir / run_id / MANIFEST).is_file()
        ):
            if run_id and "\ufffd" in run_id and run_id in self._not_utf8():
                raise NotFound(f"run folder '{run_id}': {NOT_UTF8}")
            raise NotFound(f"no run '{ref}' in {self.runs_dir}")
        folder = self.runs_dir / run_id
        if not self._inside(folder):
            raise NotFound(f"run '{ref}' is outside {self.runs_dir}: bench view serves only the runs folder")
        return folder

    def _inside(self, folder: Path) -> bool:
        """Whether the run folder, its manifest and its results all resolve inside the runs folder."""
        root = self.runs_dir.resolve()
        return all(
            path.resolve().is_relative_to(root) for path in (folder, folder / MANIFEST, results_path(folder))
        )

    def _not_utf8(self) -> set[str]:
        """How the runs folder's entries whose names are not UTF-8 are shown."""
        names = (entry.name for entry in os.scandir(self.runs_dir)) if self.runs_dir.is_dir() else iter(())
        return {shown for name in names if (shown := _shown(name)) != name}

    def records(self, folder: Path) -> list[dict[str, Any]]:
        """The run's latest record per task, reading only what was appended since the last call."""
        with self._lock:
            cached = self._cache.setdefault(folder.name, _Cached())
        with cached.lock:
            path = results_path(folder)
            try:
                size = os.stat(path).st_size
            except FileNotFoundError:
                size = 0
            if size < cached.offset:  # replaced (a resume set a torn line aside): read it again
                cached.offset, cached.latest = 0, {}
            if size > cached.offset:
                with open(path, "rb") as fh:
                    fh.seek(cached.offset)
                    raw = fh.read(size - cached.offset)
                end = raw.rfind(b"\n") + 1  # a line still being written waits for the next read
                cached.offset += end
                lines = latest_lines(raw[:end].decode("utf-8", errors="replace").split("\n"))
                cached.latest.update((key, _parse(line)) for key, line in lines.items())
                cached.records = list(cached.latest.values())
                cached.texts = cached.matrix = cached.facets = None
            return cached.records

    def texts(self, folder: Path) -> list[str]:
        """What the text filter searches in each of ``records(folder)``, in the same order."""
        records = self.records(folder)
        cached = self._cache[folder.name]
        with cached.lock:
            if cached.texts is None or len(cached.texts) != len(records):
                cached.texts = [_haystack(r) for r in records]
            return cached.texts

    def head(self, folder: Path, records: list[dict[str, Any]]) -> dict[str, Any]:
        """The run's manifest fields the page shows, its counts taken from the records so far."""
        manifest = _manifest(folder)
        summary = dict.fromkeys(("total", "passed", "failed", "errors", "interrupted"), 0)
        for record in records:
            status = record.get("status")
            summary["total"] += 1
            key = "errors" if status == "error" else status
            if key in summary or key == "waiting":  # waiting: counted when a run has any
                summary[key] = summary.get(key, 0) + 1
        head = {
            "suite": manifest.get("suite"),
            "run_id": folder.name,
            "status": manifest.get("status"),
            "started_at": manifest.get("started_at"),
            "finished_at": manifest.get("finished_at"),
            "duration_s": manifest.get("duration_s"),
            "stopped": manifest.get("stopped"),
            "planned": manifest.get("tasks"),
            "summary": summary,
            "row": run_row(folder.name, manifest),
        }
        if isinstance(manifest.get("llm"), dict) and manifest["llm"].get("calls"):
            head["llm"] = manifest["llm"]
        return head

    def run_page(self, ref: str, query: dict[str, str]) -> dict[str, Any]:
        """One page of a run's tasks, filtered by status, evaluator, target and text."""
        folder = self.folder(ref)
        records = self.records(folder)
        texts = self.texts(folder) if query.get("text") else None
        chosen = _filtered(records, texts, query)
        pages = max(1, -(-len(chosen) // PAGE))
        page = min(max(_int(query.get("page"), 1), 1), pages)
        results = results_path(folder)
        return {
            "run": self.head(folder, records),
            "size": results.stat().st_size if results.exists() else 0,
            "matched": len(chosen),
            "page": page,
            "pages": pages,
            "page_size": PAGE,
            "tasks": [_row(r) for r in chosen[(page - 1) * PAGE : page * PAGE]],
            **self._facets(folder, records),
        }

    def _facets(self, folder: Path, records: list[dict[str, Any]]) -> dict[str, Any]:
        """The run's evaluators, target labels and per-target statistics, computed once until its
        records change (the statistics walk every record: seconds at 200,000)."""
        cached = self._cache[folder.name]
        with cached.lock:
            if cached.facets is None or cached.facets["records"] != len(records):
                labels = sorted({label for r in records if (label := target_label(r)) is not None})
                cached.facets = {
                    "records": len(records),
                    "evaluators": sorted(
                        {str(e.get("name")) for r in records for e in r.get("evaluators") or []}
                    ),
                    "targets": labels,
                    "target_statistics": target_statistics(records) if len(labels) > 1 else None,
                }
            return {k: v for k, v in cached.facets.items() if k != "records"}

    def matrix(self, ref: str) -> dict[str, Any]:
        """The run's cells for the matrix (the report's ``matrix.js``), each record shortened to what
        a cell shows and filters on; none when the run has one prompt × target column. The same
        object is answered until the run's records change (``ViewServer`` keeps its encoding)."""
        folder = self.folder(ref)
        records = self.records(folder)
        cached = self._cache[folder.name]
        with cached.lock:
            if cached.matrix is None or cached.matrix["records"] != len(records):
                columns = {(r.get("prompt_label"), target_label(r)) for r in records}
                cells = [_cell(r) for r in records] if len(columns) > 1 else []
                cached.matrix = {"records": len(records), "columns": len(columns), "cells": cells}
            return cached.matrix

    def task(self, ref: str, key: str) -> dict[str, Any]:
        """One task's whole record (``ID`` or ``ID@N`` for a repeat)."""
        folder = self.folder(ref)
        for record in self.records(folder):
            if _key(record) == key:
                return record
        raise NotFound(f"run {folder.name} has no task '{key}'")

    # -- comparison ----------------------------------------------------------------------------

    def side(self, ref: str) -> tuple[str, dict[str, dict[str, Any]]]:
        """``RUN`` or ``RUN:LABEL`` (one target of a run), as each task's latest record by key."""
        run, sep, label = ref.rpartition(":")
        if not sep:
            run, label = ref, ""
        records = self.records(self.folder(run))
        if not label:
            return ref, {_key(r): r for r in records}
        suffix = f"[{label}]"
        chosen = {}
        for record in records:
            if target_label(record) == label:
                key = _key({**record, "id": str(record.get("id")).removesuffix(suffix)})
                chosen[key] = record
        if not chosen:
            raise NotFound(f"{ref}: no task ran on target '{label}'")
        return ref, chosen

    def compare_task(self, a: str, b: str, key: str) -> dict[str, Any]:
        """One task's whole record on each side of a comparison (null on a side without it)."""
        left, right = self.side(a)[1].get(key), self.side(b)[1].get(key)
        if left is None and right is None:
            raise NotFound(f"neither {a} nor {b} has task '{key}'")
        return {"key": key, "a": left, "b": right, "change": task_change(left, right)}

    def compare(self, a: str, b: str, query: dict[str, str]) -> dict[str, Any]:
        """Two runs (or two targets) task by task: the verdict of ``bench compare`` and a page of rows."""
        name_a, left = self.side(a)
        name_b, right = self.side(b)
        results_a, results_b = RunResults(name_a), RunResults(name_b)
        for key, record in left.items():
            results_a.add({**record, "id": RunKey.parse(key).id})
        for key, record in right.items():
            results_b.add({**record, "id": RunKey.parse(key).id})
        verdict = compare_runs(results_a, results_b)
        rows = []
        for key in list(left) + [k for k in right if k not in left]:
            x, y = left.get(key), right.get(key)
            change = task_change(x, y)
            a_row, b_row = (_row(x) if x else None), (_row(y) if y else None)
            rows.append({"key": key, "a": a_row, "b": b_row, "change": change})
        only = query.get("change", "")
        if only:
            rows = [row for row in rows if row["change"] == only]
        pages = max(1, -(-len(rows) // PAGE))
        page = min(max(_int(query.get("page"), 1), 1), pages)
        return {
            "a": name_a,
            "b": name_b,
            # The task lists are the rows; the counts stand for them, so a page stays small.
            "comparison": verdict.as_dict() | dict.fromkeys(_LISTS, None),
            **{key: len(getattr(verdict, key)) for key in _LISTS},
            "matched": len(rows),
            "page": page,
            "pages": pages,
            "rows": rows[(page - 1) * PAGE : page * PAGE],
        }


def _shown(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 (held as surrogates) become U+FFFD."""
    return os.fsencode(name).decode("utf-8", errors="replace")


def _manifest(folder: Path) -> dict[str, Any]:
    try:
        value = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except RecursionError:
        raise BrokenRun(f"run {folder.name}: manifest.json is nested too deeply") from None
    except ValueError as exc:
        raise BrokenRun(f"run {folder.name}: manifest.json is not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise BrokenRun(f"run {folder.name}: manifest.json is not a JSON object")
    return value


def _parse(line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return {"id": "?", "status": "error", "error": "an unreadable line in results.jsonl"}
    return value if isinstance(value, dict) else {"id": "?", "status": "error", "error": "not a record"}


def _int(text: str | None, default: int) -> int:
    try:
        return int(text) if text is not None else default
    except ValueError:
        return default


def _why(record: dict[str, Any]) -> str:
    if record.get("error"):
        return f"error: {record['error']}"
    evaluators = record.get("evaluators") or []
    failing = [e for e in evaluators if falls_short(e)]
    shown = failing or evaluators
    return "; ".join(f"{e.get('name')}: {e.get('error') or e.get('reason') or ''}" for e in shown)


def _row(record: dict[str, Any]) -> dict[str, Any]:
    """What a row of the task table shows; the page fetches the whole record when it is opened."""
    response = record.get("response")
    return {
        "key": _key(record),
        "id": record.get("id"),
        "repeat": record.get("repeat") or 0,
        "status": record.get("status"),
        "score": record.get("score"),
        "target": record.get("target"),
        "response": None if response is None else excerpt(str(response), 300),
        "why": excerpt(_why(record), 300),
    }


def _short(text: Any, limit: int) -> Any:
    """``text`` cut to ``limit`` characters when longer (redacted first: ``excerpt``); a shorter one
    is left whole, for the answer is redacted whole as it is sent."""
    return text if not isinstance(text, str) or len(text) <= limit else excerpt(text, limit)


def _cell(record: dict[str, Any]) -> dict[str, Any]:
    """What a matrix cell shows and filters on, without empty fields (a run of 100,000 cells sends
    them all at once); the page fetches the whole record to open or diff it."""
    usage = record.get("usage")
    response = record.get("response")
    cell = {
        "key": _key(record),
        "id": record.get("id"),
        "repeat": record.get("repeat"),
        "status": record.get("status"),
        "passed": record.get("passed") or None,
        "score": record.get("score"),
        "prompt_label": record.get("prompt_label"),
        "target": record.get("target"),
        "response": None if response is None else _short(str(response), CELL_CHARS),
        "error": _short(record.get("error"), CELL_CHARS),
        "usage": {"cost_usd": usage["cost_usd"]} if isinstance(usage, dict) and "cost_usd" in usage else None,
        "duration_ms": record.get("duration_ms"),
        "metadata": record.get("metadata"),
        "evaluators": [
            {k: _short(e[k], 200) for k in ("name", "passed", "error", "reason") if e.get(k) is not None}
            for e in record.get("evaluators") or []
            if isinstance(e, dict)
        ],
    }
    return {k: v for k, v in cell.items() if v not in (None, [], {})}


def _filtered(
    records: list[dict[str, Any]], texts: list[str] | None, query: dict[str, str]
) -> list[dict[str, Any]]:
    status, evaluator = query.get("status", ""), query.get("evaluator", "")
    target, text = query.get("target", ""), query.get("text", "").lower()
    chosen = []
    for i, record in enumerate(records):
        if status and record.get("status") != status:
            continue
        if evaluator and not any(
            e.get("name") == evaluator and falls_short(e) for e in record.get("evaluators") or []
        ):
            continue
        if target and target_label(record) != target:
            continue
        if text and texts is not None and text not in texts[i]:
            continue
        chosen.append(record)
    if query.get("sort") in ("score-asc", "score-desc"):
        scored = [r for r in chosen if isinstance(r.get("score"), int | float)]
        unscored = [r for r in chosen if not isinstance(r.get("score"), int | float)]
        scored.sort(key=lambda r: r["score"], reverse=query["sort"] == "score-desc")
        chosen = scored + unscored
    return chosen


def _haystack(record: dict[str, Any]) -> str:
    parts = [record.get("id"), record.get("response"), record.get("error"), _why(record)]
    parts += [json.dumps(record.get(k)) for k in ("prompt", "messages", "vars", "metadata", "target")]
    return "\n".join(str(p) for p in parts if p is not None).lower()
