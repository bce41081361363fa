"""Human labels for tasks, as the ``human_preference`` scorecard dimension reads them.

A labels file is JSON Lines (``.jsonl``) or CSV (``.csv``), one label per row: ``task`` (the task
id), ``passed`` (true/false) and/or ``score`` (0..1), optionally ``rater``. A task's human score
is the mean over its labels of ``score``, or of ``passed`` as 1 or 0 when a label has no score.
"""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path
from typing import Any


class LabelsError(ValueError):
    """A labels file that cannot be read; the message names the file and the row."""


def _truth(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    return {
        "true": True,
        "1": True,
        "yes": True,
        "pass": True,
        "false": False,
        "0": False,
        "no": False,
        "fail": False,
    }.get(text)


def _human(row: dict[str, Any], where: str) -> tuple[str, float]:
    task = str(row.get("task") or "").strip()
    score, passed = row.get("score"), row.get("passed")
    if not task or (score in (None, "") and passed in (None, "")):
        raise LabelsError(f"{where}: a label needs task and passed or score")
    if score not in (None, ""):
        try:
            value = float(score)
        except (TypeError, ValueError):
            raise LabelsError(f"{where}: score must be a number between 0 and 1, got {score!r}") from None
        if not 0 <= value <= 1:
            raise LabelsError(f"{where}: score must be a number between 0 and 1, got {score!r}")
        return task, value
    flag = _truth(passed)
    if flag is None:
        raise LabelsError(f"{where}: passed must be true or false, got {passed!r}")
    return task, 1.0 if flag else 0.0


def read_labels(path: Path) -> dict[str, float]:
    """Each labelled task's human score (the mean over its labels)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise LabelsError(f"{path}: cannot read the labels file ({exc.strerror or exc})") from None
    rows: list[tuple[str, dict[str, Any]]] = []
    if path.suffix.lower() == ".csv":
        for number, row in enumerate(csv.DictReader(text.splitlines()), start=2):
            rows.append((f"{path.name}:{number}", dict(row)))
    else:
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError:
                raise LabelsError(f"{path.name}:{number}: not a JSON object") from None
            if not isinstance(row, dict):
                raise LabelsError(f"{path.name}:{number}: not a JSON object")
            rows.append((f"{path.name}:{number}", row))
    scores: dict[str, list[float]] = {}
    for where, row in rows:
        task, value = _human(row, where)
        scores.setdefault(task, []).append(value)
    return {task: statistics.fmean(values) for task, values in scores.items()}


__all__ = ["LabelsError", "read_labels"]
