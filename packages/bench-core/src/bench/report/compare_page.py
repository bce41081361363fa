"""``bench compare A B -o FILE.html``: the comparison as a page, each task's two runs side by side.

The page (``assets/comparison.js``) shows the verdict and a row per task with its change; a row
opens the diff of the task's two outputs (word by word, field by field for JSON, turn by turn for
conversations, as the matrix's diff). Only what the rows and the diff show is kept of each record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.report.compare import Comparison, run_rows
from bench.report.page import write_page
from bench.vocabulary.run_key import RunKey

#: The fields of a task's record the page shows.
KEPT = (
    "id",
    "repeat",
    "status",
    "passed",
    "score",
    "response",
    "error",
    "conversation",
    "target",
    "prompt_label",
)
SCRIPTS = ("diff.js", "conversation.js", "comparison.js")


def task_change(a: dict[str, Any] | None, b: dict[str, Any] | None) -> str:
    """How a task's verdict went from run A to run B: regressed, improved, same, or on one side only."""
    if a is None:
        return "only in b"
    if b is None:
        return "only in a"
    if bool(a.get("passed")) and not b.get("passed"):
        return "regressed"
    if not a.get("passed") and bool(b.get("passed")):
        return "improved"
    return "same"


def _by_key(rows: Any) -> dict[str, dict[str, Any]]:
    return {
        RunKey(str(row.get("id")), row.get("repeat") or 0).key(): {k: row[k] for k in KEPT if k in row}
        for row in rows
    }


def compare_document(ref_a: str, ref_b: str, runs_dir: Path, result: Comparison) -> dict[str, Any]:
    """The page's document: the verdict and each task's two records (A's order, then B's own)."""
    name_a, rows_a = run_rows(ref_a, runs_dir)
    name_b, rows_b = run_rows(ref_b, runs_dir)
    left, right = _by_key(rows_a), _by_key(rows_b)
    keys = list(left) + [k for k in right if k not in left]
    rows = [
        {"key": k, "change": task_change(left.get(k), right.get(k)), "a": left.get(k), "b": right.get(k)}
        for k in keys
    ]
    return {"a": name_a or ref_a, "b": name_b or ref_b, "comparison": result.as_dict(), "rows": rows}


def write_compare_page(path: Path, ref_a: str, ref_b: str, runs_dir: Path, result: Comparison) -> None:
    """Write the comparison of ``ref_a`` and ``ref_b`` as a self-contained page at ``path``."""
    document = compare_document(ref_a, ref_b, runs_dir, result)
    write_page(path, f"bench compare: {document['a']} vs {document['b']}", document, SCRIPTS)
