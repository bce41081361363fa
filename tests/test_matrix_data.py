"""What the matrix and the diffs are fed: ``bench view``'s matrix cells and one task's two runs,
and ``bench compare A B -o FILE.html``'s page (its browser side: tests/browser/test_matrix_views.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from bench.report.viewer.data import CELL_CHARS, NotFound, RunsView

HOSTILE = "</script><script>alert(1)</script>"


def _record(task: str, passed: bool, **extra: Any) -> dict[str, Any]:
    return {
        "id": task,
        "status": "passed" if passed else "failed",
        "passed": passed,
        "score": float(passed),
        "response": f"answer to {task}",
        "evaluators": [{"name": "expected", "passed": passed, "reason": "r", "details": {"big": "x" * 50}}],
        **extra,
    }


def _run(runs: Path, run_id: str, records: list[dict[str, Any]]) -> str:
    folder = runs / run_id
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"suite": "s", "status": "finished"}))
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return run_id


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    grid = [
        _record(f"t{i}[{p}][{t}]", i % 2 == 0, prompt_label=p, target={"type": "echo", "label": t})
        for i in range(2)
        for p in ("plain", "terse")
        for t in ("a", "b")
    ]
    grid[0]["response"] = "long " * 400
    grid[0]["usage"] = {"cost_usd": 0.5, "input_tokens": 10}
    _run(runs, "1-grid", grid)
    _run(runs, "2-a", [_record("x", True), _record("y", True, response="Paris")])
    _run(runs, "3-b", [_record("x", True), _record("y", False, response=HOSTILE), _record("z", True)])
    return runs


def test_the_matrix_cells_are_each_run_shortened_and_a_run_of_one_column_has_none(runs):
    view = RunsView(runs)
    grid = view.matrix("1-grid")
    assert grid["columns"] == 4
    assert [c["key"] for c in grid["cells"]][:4] == [
        "t0[plain][a]",
        "t0[plain][b]",
        "t0[terse][a]",
        "t0[terse][b]",
    ]
    first = grid["cells"][0]
    assert len(first["response"]) <= CELL_CHARS
    assert first["response"].endswith("…")
    assert first["usage"] == {"cost_usd": 0.5}
    assert first["evaluators"] == [{"name": "expected", "passed": True, "reason": "r"}]
    assert "error" not in first
    assert first["prompt_label"] == "plain"
    assert view.matrix("2-a") == {"records": 2, "columns": 1, "cells": []}
    assert view.matrix("1-grid") is grid  # built once until the run grows


def test_one_task_of_two_runs_comes_whole_for_its_diff(runs):
    view = RunsView(runs)
    task = view.compare_task("2-a", "3-b", "y")
    assert (task["change"], task["a"]["response"], task["b"]["response"]) == ("regressed", "Paris", HOSTILE)
    assert view.compare_task("2-a", "3-b", "z")["a"] is None
    with pytest.raises(NotFound, match=r"^neither 2-a nor 3-b has task 'nope'$"):
        view.compare_task("2-a", "3-b", "nope")


def test_bench_compare_html_holds_each_tasks_two_runs_escaped(bench_cli, runs, tmp_path):
    out = tmp_path / "compare.html"
    result = bench_cli("compare", "2-a", "3-b", "--runs-dir", runs, "-o", out)
    assert result.exit_code == 3, result.stdout + result.stderr
    page = out.read_text(encoding="utf-8")
    assert HOSTILE not in page
    data = re.search(r'<script type="application/json" id="bench-data">(.*?)</script>', page, re.S)
    assert data is not None
    document = json.loads(data[1])
    assert [(r["key"], r["change"]) for r in document["rows"]] == [
        ("x", "same"),
        ("y", "regressed"),
        ("z", "only in b"),
    ]
    assert document["rows"][1]["b"]["response"] == HOSTILE
    assert "evaluators" not in document["rows"][1]["b"]
    assert document["comparison"]["verdict"] == "insufficient evidence"


def test_a_runs_per_target_statistics_are_computed_once_until_it_grows(runs, monkeypatch):
    import bench.report.viewer.data as data

    calls = []
    real = data.target_statistics
    monkeypatch.setattr(
        data, "target_statistics", lambda records: calls.append(len(records)) or real(records)
    )
    view = RunsView(runs)
    first = view.run_page("1-grid", {})
    assert view.run_page("1-grid", {"page": "2"})["target_statistics"] == first["target_statistics"]
    assert calls == [8]
    with open(runs / "1-grid" / "results.jsonl", "a") as out:
        out.write(json.dumps(_record("t9[plain][a]", True, target={"label": "a"})) + "\n")
    assert view.run_page("1-grid", {})["targets"] == ["a", "b"]
    assert calls == [8, 9]
