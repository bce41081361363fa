"""Suite-level figures (``aggregates`` in the report) come from the run's stored results.

``aggregate_rows`` streams what each task recorded, so tasks kept by ``--resume`` count and no
evaluator instance keeps state per task; the deprecated ``aggregate(instances)`` still works.
"""

from __future__ import annotations

from typing import Any

import pytest

from bench import Evaluator, EvaluatorConfig, Result
from bench.execution.figures import Aggregators, from_rows
from bench.hookspecs import hookimpl
from bench.pipeline.options import RunOptions
from bench.pipeline.run import run_plan
from bench.plugins.registry import build_registry
from bench.suite.loader import load_suite
from bench.suite.selection.narrowing import Selection


class Length(Evaluator[EvaluatorConfig]):
    """Passes; records the response's length, and reports the total and the rows' order."""

    name = "length"
    aggregates = True

    def evaluate(self, sample):  # type: ignore[no-untyped-def]
        return Result(passed=True, score=1.0, details={"chars": len(sample.output)})

    @classmethod
    def aggregate_rows(cls, config: Any, rows: Any) -> dict[str, Any] | None:
        seen = [row["details"]["chars"] for row in rows]
        return {"samples": len(seen), "chars": sum(seen), "first": seen[0], "last": seen[-1]}


class Broken(Length):
    name = "broken_figures"

    @classmethod
    def aggregate_rows(cls, config: Any, rows: Any) -> dict[str, Any] | None:
        raise RuntimeError("plugin bug")


class Legacy(Evaluator[EvaluatorConfig]):
    """Implements only the deprecated ``aggregate``: figures from the instances that ran."""

    name = "legacy_figures"
    aggregates = True

    def __init__(self, config: EvaluatorConfig) -> None:
        super().__init__(config)
        self.seen = 0

    def evaluate(self, sample):  # type: ignore[no-untyped-def]
        self.seen += 1
        return Result(passed=True, score=1.0)

    @classmethod
    def aggregate(cls, instances: list[Evaluator[Any]]) -> dict[str, Any] | None:
        return {"samples": sum(getattr(i, "seen", 0) for i in instances)}


class LegacyChild(Length):
    """Overrides ``aggregate`` below a class with ``aggregate_rows``: the closer hook wins."""

    name = "legacy_child"

    @classmethod
    def aggregate(cls, instances: list[Evaluator[Any]]) -> dict[str, Any] | None:
        return {"instances": len(instances)}


class _Plugin:
    @hookimpl
    def bench_register_evaluators(self, register):  # type: ignore[no-untyped-def]
        for kind in (Length, Broken, Legacy, LegacyChild):
            register(kind)


def _tasks(count: int, evaluate: str) -> str:
    return "tasks:\n" + "".join(
        f"  - {{id: t{i:02d}, response: '{'x' * (i + 1)}', evaluate: {evaluate}}}\n" for i in range(count)
    )


def _run(path, runs, resume: str | None = None):  # type: ignore[no-untyped-def]
    registry = build_registry([("bench-test-figures", "figures", _Plugin())])
    options = RunOptions(runs_dir=runs, handle_signals=False, resume=resume)
    return run_plan(load_suite(path, registry), options)


def test_resumed_run_figures_cover_the_kept_tasks_too(bench_suite_file, tmp_path):
    path = bench_suite_file(_tasks(20, "{type: length}"))
    full = _run(path, tmp_path / "runs")
    figures = full.report.extra["aggregates"]["length"]
    assert figures == {"type": "length", "samples": 20, "chars": 210, "first": 1, "last": 20}
    results = full.folder / "results.jsonl"
    results.write_text("".join(results.read_text().splitlines(keepends=True)[:10]))

    resumed = _run(path, tmp_path / "runs", resume=full.folder.name)

    assert resumed.to_run == 10
    assert resumed.report.extra["aggregates"]["length"] == figures


def test_figures_that_raise_are_reported_as_an_error_and_the_results_kept(bench_suite_file, tmp_path):
    outcome = _run(bench_suite_file(_tasks(2, "[{type: broken_figures}, {type: length}]")), tmp_path / "runs")
    aggregates = outcome.report.extra["aggregates"]
    assert aggregates["broken_figures"] == {"type": "broken_figures", "error": "RuntimeError: plugin bug"}
    assert aggregates["length"]["samples"] == 2
    assert outcome.report.summary.passed == 2


def test_a_type_with_only_the_deprecated_aggregate_still_reports_its_figures(bench_suite_file, tmp_path):
    outcome = _run(bench_suite_file(_tasks(3, "{type: legacy_figures}")), tmp_path / "runs")
    assert outcome.report.extra["aggregates"]["legacy_figures"] == {"type": "legacy_figures", "samples": 3}


@pytest.mark.parametrize(
    ("kind", "rows"),
    [(Length, True), (Broken, True), (Legacy, False), (LegacyChild, False), (Evaluator, False)],
)
def test_the_hook_a_type_defines_closest_to_it_is_the_one_used(kind, rows):
    assert from_rows(kind) is rows


def test_only_a_deprecated_type_keeps_its_instances():
    aggregators = Aggregators()
    for _ in range(3):
        aggregators.add("length", "length", Length(EvaluatorConfig()))
        aggregators.add("legacy", "legacy_figures", Legacy(EvaluatorConfig()))
    assert aggregators.by_name[("length", "length")].instances is None
    assert len(aggregators.by_name[("legacy", "legacy_figures")].instances or {}) == 3


def test_figures_cover_an_evaluator_whose_every_task_was_kept_by_resume(bench_suite_file, tmp_path):
    # t00-t09 measure length; t10-t19 only pass. The first 10 lines are kept: no 'length' task
    # runs again, and its figures still come from the stored results (the plan binds it).
    rows = [
        f"  - {{id: t{i:02d}, response: '{'x' * (i + 1)}', evaluate: {{type: length}}}}\n" for i in range(10)
    ]
    rows += [
        f"  - {{id: t{i:02d}, response: 'y', evaluate: {{type: legacy_figures}}}}\n" for i in range(10, 20)
    ]
    path = bench_suite_file("tasks:\n" + "".join(rows))
    full = _run(path, tmp_path / "runs")
    figures = full.report.extra["aggregates"]["length"]
    assert figures == {"type": "length", "samples": 10, "chars": 55, "first": 1, "last": 10}
    results = full.folder / "results.jsonl"
    results.write_text("".join(results.read_text().splitlines(keepends=True)[:10]))

    resumed = _run(path, tmp_path / "runs", resume=full.folder.name)

    assert resumed.to_run == 10
    assert resumed.report.extra["aggregates"]["length"] == figures


def test_an_evaluator_no_task_of_which_has_a_verdict_reports_no_figures(bench_suite_file, tmp_path):
    registry = build_registry([("bench-test-figures", "figures", _Plugin())])
    path = bench_suite_file(
        _tasks(3, "{type: length}") + "  - {id: other, response: 'z', evaluate: {type: legacy_figures}}\n"
    )
    options = RunOptions(runs_dir=tmp_path / "runs", handle_signals=False, select=Selection(keyword="other"))
    outcome = run_plan(load_suite(path, registry), options)
    assert outcome.report.summary.total == 1
    assert outcome.report.extra["aggregates"] == {"legacy_figures": {"type": "legacy_figures", "samples": 1}}


def test_figures_of_an_evaluator_used_twice_in_a_task_cover_its_renamed_copy_after_resume(
    bench_suite_file, tmp_path
):
    # The second 'length' of a task is reported as 'length#2': the plan binds that name too, so
    # its figures come from the stored results when no task of it runs again (resume, a worker).
    path = bench_suite_file(
        _tasks(4, "[{type: length}, {type: length}]")
        + "  - {id: other, response: 'z', evaluate: {expected: z}}\n"
    )
    full = _run(path, tmp_path / "runs")
    figures = full.report.extra["aggregates"]
    assert set(figures) == {"length", "length#2"}
    results = full.folder / "results.jsonl"
    kept = [line for line in results.read_text().splitlines(keepends=True) if '"id":"other"' not in line]
    assert len(kept) == 4
    results.write_text("".join(kept))
    resumed = _run(path, tmp_path / "runs", resume=full.folder.name)
    assert resumed.to_run == 1
    assert resumed.report.extra["aggregates"] == figures


def _counting_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    from bench.vocabulary.store import RunStore

    reads: list[int] = []
    real = RunStore.iter_results

    def counted(self: RunStore, order: Any) -> Any:
        reads.append(1)  # when the first result is asked for: a read, not a call
        yield from real(self, order)

    monkeypatch.setattr(RunStore, "iter_results", counted)
    return reads


def test_figures_of_several_evaluators_read_the_stored_results_once(
    bench_suite_file, tmp_path, monkeypatch: pytest.MonkeyPatch
):
    reads = _counting_reads(monkeypatch)
    outcome = _run(
        bench_suite_file(_tasks(5, "[{type: length}, {name: again, type: length}]")), tmp_path / "r"
    )
    figures = {"samples": 5, "chars": 15, "first": 1, "last": 5}
    assert outcome.report.extra["aggregates"] == {
        "length": {"type": "length", **figures},
        "again": {"type": "length", **figures},
    }
    assert len(reads) == 1


def test_past_the_held_outcomes_each_evaluator_reads_the_results_itself(
    bench_suite_file, tmp_path, monkeypatch: pytest.MonkeyPatch
):
    from bench.execution import figures

    monkeypatch.setattr(figures, "HELD_OUTCOMES", 3)
    reads = _counting_reads(monkeypatch)
    evaluate = "[{type: length}, {name: again, type: length}, {name: third, type: length}]"
    outcome = _run(bench_suite_file(_tasks(5, evaluate)), tmp_path / "r")
    aggregates = outcome.report.extra["aggregates"]
    assert [aggregates[name]["chars"] for name in ("length", "again", "third")] == [15, 15, 15]
    assert len(reads) == 3
