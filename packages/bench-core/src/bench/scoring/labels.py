"""Human labels: one verdict per task (and rater), read from JSON Lines or CSV and appended to JSONL.

A row has ``task`` (or ``id``), ``passed`` and/or ``score``, and optionally ``rater``, ``note``
and ``response`` (the answer that was labelled: ``bench label`` writes it, so a judge can be
calibrated on it when the suite records none).
``bench calibrate`` and ``bench label`` use them whole; the ``human_preference`` scorecard
dimension takes each task's mean (``human_scores``).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import statistics
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from bench.errors import ConfigError

_TRUE, _FALSE = {"true", "pass", "passed", "yes", "1", "p"}, {"false", "fail", "failed", "no", "0", "f"}


@dataclass(frozen=True)
class Label:
    """One person's verdict on one task."""

    task: str
    passed: bool | None = None
    score: float | None = None
    rater: str = ""
    note: str = ""
    #: The response the person labelled, when the row keeps it.
    response: str | None = None

    @property
    def verdict(self) -> bool:
        """Pass or fail: ``passed`` when given, else a score of at least 0.5."""
        return self.passed if self.passed is not None else (self.score or 0.0) >= 0.5

    def as_row(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v not in (None, "")}


def digest(path: Path) -> str:
    """The sha256 of a labels file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_labels(path: Path) -> list[Label]:
    """Every label in ``path`` (``.csv``: CSV with a header; otherwise JSON Lines)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the labels: {exc.strerror}", file=path) from None
    rows = _csv_rows(path, text) if path.suffix.lower() == ".csv" else _jsonl_rows(path, text)
    return [_label(path, line, row) for line, row in rows]


def _jsonl_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise ConfigError(f"not a JSON line: {exc}", file=path, line=number) from None
        if not isinstance(row, dict):
            raise ConfigError(f"expected a JSON object, got {type(row).__name__}", file=path, line=number)
        rows.append((number, row))
    return rows


def _csv_rows(path: Path, text: str) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(io.StringIO(text), strict=True)
    rows = []
    try:
        for row in reader:
            if None in row or any(v is None for v in row.values()):
                raise ConfigError(
                    f"expected {len(reader.fieldnames or [])} columns ({', '.join(reader.fieldnames or [])})",
                    file=path,
                    line=reader.line_num,
                )
            rows.append((reader.line_num, {k: v for k, v in row.items() if v != ""}))
    except csv.Error as exc:
        raise ConfigError(f"malformed CSV: {exc}", file=path, line=reader.line_num) from None
    return rows


def _label(path: Path, line: int, row: dict[str, Any]) -> Label:
    task = row.get("task", row.get("id"))
    if task is None or str(task) == "":
        raise ConfigError("a label needs the task's id (task or id)", file=path, line=line)
    passed, score = row.get("passed"), row.get("score")
    if passed is None and score is None:
        raise ConfigError(f"label for task '{task}' has neither passed nor score", file=path, line=line)
    if isinstance(passed, str):
        word = passed.strip().lower()
        if word not in _TRUE | _FALSE:
            raise ConfigError(f"passed must be true or false, not {passed!r}", file=path, line=line)
        passed = word in _TRUE
    elif passed is not None and not isinstance(passed, bool):
        raise ConfigError(f"passed must be true or false, not {passed!r}", file=path, line=line)
    if score is not None:
        try:
            score = float(score)
        except (TypeError, ValueError):
            raise ConfigError(f"score must be a number, not {score!r}", file=path, line=line) from None
        if not 0.0 <= score <= 1.0:
            raise ConfigError(f"score must be between 0 and 1, not {score:g}", file=path, line=line)
    response = row.get("response")
    if response is not None and not isinstance(response, str):
        raise ConfigError(f"response must be text, not {type(response).__name__}", file=path, line=line)
    return Label(str(task), passed, score, str(row.get("rater") or ""), str(row.get("note") or ""), response)


def append_label(path: Path, label: Label) -> None:
    """Append one label to a JSON Lines file."""
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(label.as_row(), ensure_ascii=False) + "\n")


def replace_label(path: Path, label: Label) -> None:
    """Write ``label`` as its rater's only label for its task in a JSON Lines file, replacing the
    file atomically (a temporary file renamed over it); every other line is kept as it was.
    Callers that may write at once hold one lock around it."""
    kept = []
    if path.exists():
        read_labels(path)  # a malformed file is reported, not rewritten
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if (
                str(row.get("task", row.get("id"))) == label.task
                and str(row.get("rater") or "") == label.rater
            ):
                continue
            kept.append(line + "\n")
    kept.append(json.dumps(label.as_row(), ensure_ascii=False) + "\n")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.writelines(kept)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def human_scores(labels: list[Label]) -> dict[str, float]:
    """Each labelled task's human score: the mean over its labels of ``score``, or of ``passed``
    as 1 or 0 where a label has no score."""
    scores: dict[str, list[float]] = {}
    for label in labels:
        value = label.score if label.score is not None else float(bool(label.passed))
        scores.setdefault(label.task, []).append(value)
    return {task: statistics.fmean(values) for task, values in scores.items()}
