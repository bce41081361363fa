"""``bench show``'s matrix in the terminal: a run of several prompts or targets as a row per task and
a column per prompt × target pair, each cell the run's verdict, and a summary of each column with
unicode bars (pass rate with its Wilson interval, cost, latency).

The columns and rows are those of the HTML report's matrix (``assets/matrix.js``): a run's column
is its prompt label and target label, its row its id without the ``[prompt]`` and ``[target]``
its column added. A matrix wider than ``MAX_COLUMNS`` columns is left out (the summary says so),
and one longer than ``MAX_ROWS`` rows is cut, saying where to see it whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.table import Table
from rich.text import Text

from bench.report.charts.tally import Column, percentile
from bench.report.console import plain, stdout
from bench.scoring.stats import wilson
from bench.scoring.target_stats import target_label

#: The most columns drawn as a grid: six fit beside the task ids in a 120-character terminal.
MAX_COLUMNS = 6
#: The most rows of the grid printed.
MAX_ROWS = 40
#: A bar's width in characters (each holds eighths, so a bar shows 1/80 steps).
BAR = 10
_EIGHTHS = " ▏▎▍▌▋▊▉█"
_VERDICT = {"passed": ("✓", "green"), "failed": ("✗", "red"), "error": ("!", "yellow")}


@dataclass
class Matrix:
    """The columns, and each row's name with its runs by column."""

    columns: list[Column]
    rows: dict[str, dict[int, dict[str, Any]]]


def _row_name(result: dict[str, Any], column: Column) -> str:
    name = str(result.get("id"))
    for part in (column.target, column.prompt):  # the target's suffix was added last
        if part:
            name = name.removesuffix(f"[{part}]")
    repeat = result.get("repeat") or 0
    return f"{name} (run {repeat + 1})" if repeat else name


def build(results: list[dict[str, Any]]) -> Matrix:
    """The matrix of a run's records, columns in the order their first run appears."""
    columns: list[Column] = []
    index: dict[tuple[str, str], int] = {}
    rows: dict[str, dict[int, dict[str, Any]]] = {}
    for result in results:
        prompt = result.get("prompt_label")
        key = (prompt if isinstance(prompt, str) else "", target_label(result) or "")
        if key not in index:
            index[key] = len(columns)
            columns.append(Column(*key))
        column = columns[index[key]]
        rows.setdefault(_row_name(result, column), {})[index[key]] = result
        column.runs += 1
        column.passed += bool(result.get("passed"))
        usage = result.get("usage")
        cost = usage.get("cost_usd") if isinstance(usage, dict) else None
        if isinstance(cost, int | float):
            column.cost = (column.cost or 0.0) + cost
        if isinstance(result.get("duration_ms"), int | float):
            column.durations_ms.append(float(result["duration_ms"]))
    return Matrix(columns, rows)


def bar(fraction: float, width: int = BAR, fill: str = " ") -> str:
    """``fraction`` (0 to 1) as a bar of ``width`` characters in eighths of a character, the rest
    ``fill``."""
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    cells = "█" * full + (_EIGHTHS[part] if part else "")
    return cells + fill * (width - len(cells))


def _latency(ms: list[float]) -> tuple[float, float] | None:
    if not ms:
        return None
    ordered = sorted(ms)
    return sum(ordered) / len(ordered), percentile(ordered, 0.95)


def summary_lines(columns: list[Column]) -> list[str]:
    """Each column's pass rate with its 95% Wilson interval, cost and latency (mean, p95) as bars,
    in aligned columns never cut to the terminal's width; cost and latency bars are relative to
    the largest column's."""
    top_cost = max((c.cost or 0.0 for c in columns), default=0.0)
    top_ms = max((lat[0] for c in columns if (lat := _latency(c.durations_ms))), default=0.0)
    rows = [["column", "pass rate", "95% interval", "cost", "latency (mean, p95)"]]
    for c in columns:
        rate = c.passed / c.runs if c.runs else 0.0
        ci = wilson(c.passed, c.runs) if c.runs else None
        interval = f"[{ci.low:.1%}, {ci.high:.1%}]" if ci else "-"
        cost = "-" if c.cost is None else f"{bar(c.cost / top_cost if top_cost else 0.0)} ${c.cost:.4f}"
        lat = _latency(c.durations_ms)
        latency = (
            "-"
            if lat is None
            else f"{bar(lat[0] / top_ms if top_ms else 0.0)} {lat[0]:.0f} ms, {lat[1]:.0f} ms"
        )
        rows.append([plain(c.name, 60).plain, f"{bar(rate)} {rate:6.1%}", interval, cost, latency])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]


def _cell(result: dict[str, Any] | None) -> Text:
    if result is None:
        return Text("-", style="dim")
    status = str(result.get("status"))
    mark, style = _VERDICT.get(status, ("·", "dim"))
    score = result.get("score")
    shown = f" {score:.2f}" if isinstance(score, int | float) and status != "error" else ""
    return Text(mark + shown, style=style)


def grid_table(matrix: Matrix, limit: int = MAX_ROWS) -> Table:
    """The first ``limit`` rows: a task per row, each column's verdict (✓ passed, ✗ failed, ! error,
    - not run) and score."""
    table = Table(title="Matrix", title_justify="left")
    table.add_column("task", overflow="fold")
    for column in matrix.columns:
        table.add_column(plain(column.name, 40), justify="center")
    for name, cells in list(matrix.rows.items())[:limit]:
        table.add_row(plain(name, 80), *(_cell(cells.get(i)) for i in range(len(matrix.columns))))
    return table


def print_matrix(run_id: str, results: list[dict[str, Any]]) -> None:
    """The run's matrix and its columns' summary, when it has more than one column."""
    matrix = build(results)
    if len(matrix.columns) < 2:
        return
    stdout.print()
    whole = f"bench view {run_id}"
    if len(matrix.columns) > MAX_COLUMNS:
        stdout.print(
            Text(
                f"{len(matrix.columns)} columns are too many for the terminal (at most {MAX_COLUMNS}): "
                f"the summary only; the matrix: {whole}"
            )
        )
    else:
        stdout.print(grid_table(matrix))
        if len(matrix.rows) > MAX_ROWS:
            stdout.print(Text(f"the first {MAX_ROWS} of {len(matrix.rows)} tasks; all of them: {whole}"))
    stdout.print(Text("Columns (prompt · target)"))
    for line in summary_lines(matrix.columns):
        stdout.print(Text(line))
