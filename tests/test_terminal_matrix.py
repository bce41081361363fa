"""``bench show``'s matrix in the terminal: the grid of a narrow run, the columns' summary with bars,
and a wide run's summary alone, saying so."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from bench.report.terminal_matrix import MAX_COLUMNS, MAX_ROWS, bar


def _record(task: str, prompt: str, target: str, status: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": f"{task}[{prompt}][{target}]",
        "status": status,
        "passed": status == "passed",
        "score": None if status == "error" else float(status == "passed"),
        "prompt_label": prompt,
        "target": {"type": "echo", "label": target},
        **extra,
    }


def _run(runs: Path, run_id: str, records: list[dict[str, Any]]) -> None:
    folder = runs / run_id
    folder.mkdir(parents=True)
    (folder / "manifest.json").write_text(json.dumps({"suite": "s", "status": "finished"}))
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def test_a_narrow_run_prints_its_matrix_and_each_columns_bars(bench_cli, tmp_path):
    records = [
        _record("greet", "plain", "a", "passed", duration_ms=100, usage={"cost_usd": 0.02}),
        _record("greet", "plain", "b", "failed", duration_ms=50, usage={"cost_usd": 0.01}),
        _record("shout", "plain", "a", "passed", duration_ms=300, usage={"cost_usd": 0.02}),
        _record("shout", "plain", "b", "error", duration_ms=50, usage={"cost_usd": 0.01}),
        _record("\x1b[31mred", "plain", "a", "failed", duration_ms=200, usage={"cost_usd": 0.04}),
    ]
    _run(tmp_path / "runs", "r1", records)
    result = bench_cli("show", "r1", "--runs-dir", tmp_path / "runs")
    assert result.exit_code == 0, result.stdout
    lines = _lines(result.stdout)
    start = lines.index("Matrix")
    assert lines[start + 1 : start + 8] == [
        "┏━━━━━━━━━┳━━━━━━━━━━━┳━━━━━━━━━━━┓",
        "┃ task    ┃ plain · a ┃ plain · b ┃",
        "┡━━━━━━━━━╇━━━━━━━━━━━╇━━━━━━━━━━━┩",
        "│ greet   │  ✓ 1.00   │  ✗ 0.00   │",
        "│ shout   │  ✓ 1.00   │     !     │",
        "│ [31mred │  ✗ 0.00   │     -     │",
        "└─────────┴───────────┴───────────┘",
    ]
    summary = lines[lines.index("Columns (prompt · target)") + 1 :][:3]
    # p95 interpolates between ranks as the charts' percentiles do: 200 + 0.9 x (300 - 200)
    assert summary == [
        "column     pass rate          95% interval    cost                latency (mean, p95)",
        "plain · a  ██████▋     66.7%  [20.8%, 93.9%]  ██████████ $0.0800  ██████████ 200 ms, 290 ms",
        "plain · b               0.0%  [0.0%, 65.8%]   ██▌        $0.0200  ██▌        50 ms, 50 ms",
    ]


def test_a_wide_run_prints_the_summary_only_and_says_so(bench_cli, tmp_path):
    targets = [f"t{i}" for i in range(MAX_COLUMNS + 1)]
    _run(tmp_path / "runs", "r2", [_record("greet", "p", t, "passed") for t in targets])
    result = bench_cli("show", "r2", "--runs-dir", tmp_path / "runs")
    assert result.exit_code == 0, result.stdout
    lines = _lines(result.stdout)
    assert "Matrix" not in lines
    assert (
        "7 columns are too many for the terminal (at most 6): the summary only; the matrix: bench view r2"
        in lines
    )
    summary = lines[lines.index("Columns (prompt · target)") + 1 :][: len(targets) + 1]
    assert [line.split("  ")[0] for line in summary] == ["column", *(f"p · {t}" for t in targets)]


def test_a_run_of_one_column_prints_no_matrix(bench_cli, tmp_path):
    _run(tmp_path / "runs", "r3", [{"id": "x", "status": "passed", "passed": True, "score": 1.0}])
    result = bench_cli("show", "r3", "--runs-dir", tmp_path / "runs")
    assert result.exit_code == 0, result.stdout
    assert "Matrix" not in result.stdout
    assert "Columns (prompt · target)" not in result.stdout


def test_bars_fill_in_eighths():
    assert bar(0.0) == " " * 10
    assert bar(1.0) == "█" * 10
    assert bar(0.5) == "█████" + " " * 5
    assert bar(1 / 80) == "▏" + " " * 9
    assert bar(0.3125) == "███▏" + " " * 6
    assert bar(2.0) == "█" * 10


def test_a_long_matrix_prints_its_first_rows_and_says_where_the_rest_are(bench_cli, tmp_path):
    records = [_record(f"t{i:02}", "p", t, "passed") for i in range(MAX_ROWS + 5) for t in ("a", "b")]
    _run(tmp_path / "runs", "r4", records)
    result = bench_cli("show", "r4", "--runs-dir", tmp_path / "runs")
    lines = _lines(result.stdout)
    assert sum(re.match(r"│ t\d\d ", line) is not None for line in lines) == MAX_ROWS
    assert f"the first {MAX_ROWS} of {MAX_ROWS + 5} tasks; all of them: bench view r4" in lines
