"""``bench runs --suite NAME``: a suite's pass rate run by run, oldest first, each run's Wilson 95%
interval, a bar and its cost; the same points draw the suite's chart in ``bench view``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text

from bench.report import terminal_matrix
from bench.report.charts.trend import RunPoint
from bench.report.console import plain, stdout
from bench.report.history import run_row
from bench.scoring.stats import wilson
from bench.vocabulary.errors import StoreError, did_you_mean
from bench.vocabulary.store import run_manifests

BAR = 20


def suite_points(runs_dir: Path, suite: str) -> list[RunPoint]:
    """The runs of ``suite`` that counted tasks, oldest first; an error names the suites there are."""
    manifests = run_manifests(runs_dir)
    mine = [(name, data) for name, data in manifests if data.get("suite") == suite]
    if not mine:
        hint = did_you_mean(suite, sorted({str(data.get("suite")) for _, data in manifests}))
        raise StoreError(f"bench runs --suite: no run of suite '{suite}' in {runs_dir}{hint}")
    points = []
    for name, data in mine:
        row = run_row(name, data)
        summary = data["summary"] if isinstance(data.get("summary"), dict) else {}
        counted = [summary.get(k) for k in ("passed", "failed", "errors")]
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counted):
            continue  # still running, or a manifest without counts: nothing to draw
        passed, runs = int(counted[0] or 0), sum(int(n or 0) for n in counted)
        if runs:
            when = str(row["started_at"] or "")
            points.append(RunPoint(name, when, wilson(passed, runs), passed, runs, row["cost_usd"]))
    return points


def bar(rate: float, width: int = BAR) -> str:
    """``rate`` as a bar of ``width`` cells, shaded where it is not filled."""
    return terminal_matrix.bar(rate, width, fill="░")


def trend_lines(points: list[RunPoint]) -> list[str]:
    """One line a run: when, id, pass rate with interval, bar, cost."""
    lines = []
    for point in points:
        r = point.rate
        figures = f"{r.value * 100:5.1f}% [{r.low * 100:5.1f}%, {r.high * 100:5.1f}%]"
        cost = "-" if point.cost is None else f"${point.cost:.4f}"
        when = point.when[:19].replace("T", " ")
        lines.append(
            f"{when:<19}  {point.run_id}  {figures}  {bar(r.value)}  {point.passed}/{point.runs}  {cost}"
        )
    return lines


def print_trend(points: list[RunPoint], suite: str) -> None:
    stdout.print(plain(f"suite {suite}: pass rate per run, oldest first (95% Wilson interval)", 1000))
    if not points:
        stdout.print(Text("no finished run of this suite has counted tasks yet"))
    for line in trend_lines(points):
        stdout.print(plain(line, 1000))


def trend_json(points: list[RunPoint]) -> list[dict[str, Any]]:
    """``bench runs --suite NAME --json``: each run's figures."""
    return [
        {
            "run_id": p.run_id,
            "started_at": p.when,
            "passed": p.passed,
            "runs": p.runs,
            "pass_rate": p.rate.as_dict(),
            "cost_usd": p.cost,
        }
        for p in points
    ]
