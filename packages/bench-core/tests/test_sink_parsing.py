"""A result landed from elsewhere (``Sink.land``) is parsed only when the observer needs it whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import bench.execution.sink as sink_module
from bench.execution.sink import StoreSink, serialize_result, statistics_row
from bench.report.console import MAX_LISTED, ConsoleObserver
from bench.scoring.run_stats import StatsCollector
from bench.vocabulary.results import Summary, TaskResult
from bench.vocabulary.store import RunStore


class _Counting:
    """Stands in for TaskResult in the sink's module: counts the lines it parses."""

    parsed = 0

    @classmethod
    def model_validate_json(cls, line: str) -> TaskResult:
        cls.parsed += 1
        return TaskResult.model_validate_json(line)


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> type[_Counting]:
    _Counting.parsed = 0
    monkeypatch.setattr(sink_module, "TaskResult", _Counting)
    return _Counting


def _land(tmp_path: Path, observer: ConsoleObserver, results: list[TaskResult]) -> Path:
    observer.started("run", len(results), 0, None)
    store = RunStore.create(tmp_path / "runs")
    sink = StoreSink(
        store, lambda text: text, Summary(), StatsCollector(False), observer.task_done, lambda: None,
        observer.task_counted,
    )  # fmt: skip
    try:
        for result in results:
            sink.land(serialize_result(result), result.status, statistics_row(result, False))
    finally:
        store.close()
    return store.results_path


def _result(i: int, status: str = "passed", **fields: Any) -> TaskResult:
    return TaskResult(id=f"t{i}", status=status, passed=status == "passed", **fields)


def test_a_quiet_run_parses_only_the_not_passed_results_it_lists(tmp_path: Path, parses: Any) -> None:
    observer = ConsoleObserver(enabled=False)
    results = [_result(i) for i in range(30)] + [_result(i, "failed") for i in range(30, 30 + MAX_LISTED + 5)]
    results.append(_result(99, workspace={"path": "/tmp/ws/t99", "escapes": []}))
    written = _land(tmp_path, observer, results)
    # The listed failures and the result with workspace data; no passed line without workspace.
    assert parses.parsed == MAX_LISTED + 1
    assert [r.id for r in observer.not_passed] == [f"t{i}" for i in range(30, 30 + MAX_LISTED)]
    assert observer.kept == ["/tmp/ws/t99"]
    tracker = observer.tracker
    assert tracker is not None
    assert (tracker.done, tracker.passed, tracker.failed) == (len(results), 31, MAX_LISTED + 5)
    assert len(written.read_text().splitlines()) == len(results)


def test_a_verbose_run_parses_every_result(tmp_path: Path, parses: Any) -> None:
    observer = ConsoleObserver(enabled=False, verbose=True)
    _land(tmp_path, observer, [_result(i) for i in range(5)])
    assert parses.parsed == 5


def test_a_nested_workspace_key_only_costs_a_parse(tmp_path: Path, parses: Any) -> None:
    # "workspace": { in a result's metadata looks like workspace data: parsed, counted alike.
    observer = ConsoleObserver(enabled=False)
    _land(tmp_path, observer, [_result(1, metadata={"workspace": {"a": 1}}), _result(2)])
    assert parses.parsed == 1
    assert observer.tracker is not None
    assert observer.tracker.passed == 2
    assert observer.kept == []
