"""``bench runs --suite NAME``: a suite's pass rate run by run, from the stored manifests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.report.trend import bar


def _manifest(
    runs: Path, run_id: str, suite: str, started: str, counts: tuple[int, int, int] | None, cost: Any
) -> None:
    folder = runs / run_id
    folder.mkdir(parents=True)
    data: dict[str, Any] = {
        "suite": suite,
        "started_at": started,
        "status": "finished",
        "llm": {"cost_usd": cost},
    }
    if counts is not None:
        passed, failed, errors = counts
        data["summary"] = {"total": sum(counts), "passed": passed, "failed": failed, "errors": errors}
    else:
        data["status"] = "running"
    (folder / "manifest.json").write_text(json.dumps(data))


def _store(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    _manifest(runs, "r-new", "qa", "2026-11-03T09:00:00", (3, 1, 0), 0.25)
    _manifest(runs, "r-old", "qa", "2026-11-01T08:30:00", (1, 2, 1), None)
    _manifest(runs, "r-live", "qa", "2026-11-04T09:00:00", None, None)
    _manifest(runs, "other", "other", "2026-11-02T09:00:00", (1, 0, 0), 0.0)
    return runs


def test_runs_suite_prints_each_runs_pass_rate_interval_bar_and_cost_oldest_first(bench_cli, tmp_path):
    _store(tmp_path)
    lines = bench_cli("runs", "--runs-dir", "runs", "--suite", "qa").stdout.splitlines()
    assert lines == [
        "suite qa: pass rate per run, oldest first (95% Wilson interval)",
        f"2026-11-01 08:30:00  r-old   25.0% [  4.6%,  69.9%]  {bar(0.25)}  1/4  -",
        f"2026-11-03 09:00:00  r-new   75.0% [ 30.1%,  95.4%]  {bar(0.75)}  3/4  $0.2500",
    ]
    assert bar(0.25) == "█████" + "░" * 15


def test_runs_suite_json_gives_each_runs_interval(bench_cli, tmp_path):
    _store(tmp_path)
    rows = json.loads(bench_cli("runs", "--runs-dir", "runs", "--suite", "qa", "--json").stdout)
    assert [(r["run_id"], r["passed"], r["runs"], r["cost_usd"]) for r in rows] == [
        ("r-old", 1, 4, None),
        ("r-new", 3, 4, 0.25),
    ]
    assert rows[1]["pass_rate"]["method"] == "wilson"
    assert round(rows[1]["pass_rate"]["low"], 3) == 0.301


def test_runs_suite_of_an_unknown_suite_names_the_nearest(bench_cli, tmp_path):
    _store(tmp_path)
    result = bench_cli("runs", "--runs-dir", "runs", "--suite", "qaa")
    assert result.exit_code != 0
    assert "bench runs --suite: no run of suite 'qaa' in runs (did you mean 'qa'?)" in result.output


def test_a_bar_fills_eighths_of_a_cell():
    assert bar(0.0) == "░" * 20
    assert bar(1.0) == "█" * 20
    assert bar(0.525) == "██████████▌" + "░" * 9
