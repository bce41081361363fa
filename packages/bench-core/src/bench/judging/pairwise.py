"""``bench compare RUN_A RUN_B ... --judge SPEC``: the runs' responses judged against each other.

Reads each run's latest response per task (the first repeat), binds the judge spec (a YAML/JSON
mapping, inline or in a file) to a registered type that can rank responses (``pairwise``,
``n_wise``), runs ``bench.judging.comparison`` over the tasks every run answered, and prints the
standings: per run, wins/losses/ties, the win rate with its Wilson interval, the Bradley-Terry
strength and rank, and the mean Borda score.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from bench.judging.comparison import PairwiseComparison, Ranker, compare_offline
from bench.plugins.registry import Registry
from bench.report.compare import run_rows
from bench.report.console import plain, stdout
from bench.vocabulary.errors import ConfigError


def load_responses(ref: str, runs_dir: Path) -> tuple[str, dict[str, str]]:
    """A run's label and, per task id, its response (the first repeat that has one)."""
    label, rows = run_rows(ref, runs_dir)
    responses: dict[str, str] = {}
    for row in sorted(rows, key=lambda r: int(r.get("repeat") or 0)):
        if isinstance(row.get("response"), str):
            responses.setdefault(str(row["id"]), row["response"])
    path = Path(ref)
    return label or (path.name if path.is_dir() else ref), responses


def bind_judge(spec: str, registry: Registry) -> Ranker:
    """The judge of ``--judge``: a mapping written inline (YAML or JSON) or a file holding one."""
    from bench.document import load_yaml
    from bench.suite.binding import Binder

    path = Path(spec)
    doc = load_yaml(path) if path.is_file() else load_yaml(Path("--judge"), text=spec)
    mapping = doc.data
    if not isinstance(mapping, dict):
        raise ConfigError(
            f"--judge: expected a mapping such as '{{type: pairwise, model: ...}}', got {spec!r}"
        )
    bound = Binder(registry).bind_mapping(doc, (), mapping)
    judge = bound.instance
    if not isinstance(judge, Ranker):
        raise ConfigError(
            f"--judge: {judge.name} judges one response at a time; a comparison needs a judge that "
            "ranks several (type: pairwise or n_wise)"
        )
    return judge


def judge_runs(
    refs: list[str],
    runs_dir: Path,
    judge: Ranker,
    prompts: dict[str, str] | None = None,
    confidence: float = 0.95,
) -> PairwiseComparison:
    """Judge the runs' responses task by task; ``prompts`` (from ``--suite``) shows the judge each task."""
    loaded = [load_responses(ref, runs_dir) for ref in refs]
    labels = [label for label, _ in loaded]
    if len(set(labels)) != len(labels):
        labels = [f"{label} ({k + 1})" for k, label in enumerate(labels)]
    tasks: dict[str, tuple[str, dict[str, str]]] = {}
    for label, (_, responses) in zip(labels, loaded, strict=True):
        for task, response in responses.items():
            prompt = (prompts or {}).get(task, f"(task {task}; its prompt is not stored in the runs)")
            tasks.setdefault(task, (prompt, {}))[1][label] = response
    return compare_offline(judge, labels, dict(sorted(tasks.items())), confidence)


def print_pairwise(result: PairwiseComparison) -> None:
    """The standings table, then skipped tasks and warnings."""
    stdout.print(Text(f"{len(result.tasks)} tasks judged by {result.judge}", style="bold"))
    table = Table(show_edge=False)
    for column in ("rank", "run", "wins", "losses", "ties", "win rate [95% CI]", "BT strength", "borda"):
        table.add_column(column)
    for s in result.standings:
        rate = s.win_rate
        table.add_row(
            str(s.rank),
            plain(s.name, 80),
            str(s.wins),
            str(s.losses),
            str(s.ties),
            f"{rate.value:.1%} [{rate.low:.1%}, {rate.high:.1%}]",
            f"{s.strength:.3f}",
            f"{s.borda:.3f}",
        )
    stdout.print(table)
    if result.skipped:
        stdout.print(
            plain(f"skipped (not answered by every run): {', '.join(sorted(result.skipped)[:10])}", 600)
        )
    for warning in result.warnings:
        stdout.print(Text(f"warning: {warning}", style="yellow"))


def write_html(path: Path, result: PairwiseComparison) -> None:
    """``bench compare ... --judge SPEC -o FILE.html``: standings, intervals and verdicts as one page."""
    from bench.report.page import write_page

    write_page(path, f"bench compare: {' vs '.join(result.targets)}", result.as_dict(), "pairwise.js")


def as_json(result: PairwiseComparison) -> dict[str, Any]:
    return result.as_dict()
