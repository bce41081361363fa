"""``--batch`` composed with the rest of ``bench run``: ``--repeat``, ``--failed``, conversations
(one batch per turn round) and an executor whose driver does not own the batches (refused)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import ConfigError, Executor, Job, Sink
from bench.api import execute, run_blocking
from bench.hookspecs import hookimpl
from bench.pipeline.options import RunOptions
from bench.plugins.registry import build_registry

SETTINGS = "llm: {batch_poll_s: 0.01, batch_settle_s: 0.1}\n"


def _manifest(tmp_path: Path, run_id: str | None = None) -> dict:
    paths = sorted((tmp_path / ".bench" / "runs").glob("*/manifest.json"), key=lambda p: p.stat().st_mtime)
    found = [p for p in paths if run_id is None or p.parent.name == run_id]
    return dict(json.loads(found[-1].read_text()))


def _suite(bench_suite_file, rows: str) -> Path:
    return bench_suite_file(f"target: {{type: litellm, model: openai/fake}}\n{SETTINGS}tasks:\n{rows}")


def test_batch_with_repeat_sends_every_repetition_in_one_batch(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path
):
    rows = "".join(
        f"  - {{id: t{i}, prompt: 'q{i}', evaluate: {{type: contains, value: 'q{i}'}}}}\n" for i in range(3)
    )
    result = bench_cli("run", _suite(bench_suite_file, rows), "--batch", "--repeat", "2")
    assert result.exit_code == 0, result.stderr
    assert bench_fake_llm.batches.count("POST /v1/batches") == 1
    assert bench_fake_llm.count() == 0
    assert _manifest(tmp_path)["batches"]["requests"] == 6


def test_batch_with_failed_reruns_only_the_failed_tasks_in_a_batch(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path
):
    rows = (
        "  - {id: good, prompt: 'fine', evaluate: {type: contains, value: 'fine'}}\n"
        "  - {id: bad, prompt: 'other', evaluate: {type: contains, value: 'never there'}}\n"
    )
    path = _suite(bench_suite_file, rows)
    first = bench_cli("run", path, "--batch")
    assert first.exit_code == 1, first.stderr
    again = bench_cli("run", path, "--batch", "--failed", "latest", "--no-cache")
    assert again.exit_code == 1, again.stderr
    assert bench_fake_llm.batches.count("POST /v1/batches") == 2
    assert _manifest(tmp_path)["batches"]["requests"] == 1
    cached = bench_cli("run", path, "--batch", "--failed", "latest")
    assert cached.exit_code == 1, cached.stderr
    assert bench_fake_llm.batches.count("POST /v1/batches") == 2  # the cache answered


def test_batch_with_a_conversation_sends_one_batch_per_turn_round(
    bench_cli, bench_suite_file, bench_fake_llm, tmp_path
):
    rows = "".join(
        f"  - id: c{i}\n    conversation: {{turns: ['hello {i}', 'more {i}', 'bye {i}']}}\n"
        f"    evaluate: {{type: contains, value: 'bye {i}'}}\n"
        for i in range(3)
    )
    result = bench_cli("run", _suite(bench_suite_file, rows), "--batch")
    assert result.exit_code == 0, result.stderr
    assert bench_fake_llm.batches.count("POST /v1/batches") == 3  # one per turn round
    assert bench_fake_llm.count() == 0
    assert [b["requests"] for b in _manifest(tmp_path)["batches"]["batches"]] == [3, 3, 3]


class _Elsewhere(Executor):
    """An executor whose driver does not own batches (``batches`` left False)."""

    name = "elsewhere"

    async def run(self, job: Job, sink: Sink) -> None:
        raise AssertionError("a refused executor never runs")


class _Plugin:
    @hookimpl
    def bench_register_executors(self, register: Any) -> None:
        register(_Elsewhere)


def test_batch_with_an_executor_that_does_not_own_batches_is_refused_naming_it(
    bench_suite_file, bench_fake_llm, tmp_path
):
    rows = "  - {id: t, prompt: 'q', evaluate: {type: contains, value: 'q'}}\n"
    registry = build_registry([("bench-test-elsewhere", "elsewhere", _Plugin())])
    options = RunOptions(runs_dir=tmp_path / "runs", executor="elsewhere", batch=True, handle_signals=False)
    with pytest.raises(ConfigError) as refused:
        run_blocking(lambda: execute(_suite(bench_suite_file, rows), options, registry=registry))
    assert str(refused.value) == (
        "--batch runs on executors whose driver owns the batches' submission (local, ray): "
        "--executor elsewhere does not; run with one of those, or without --batch"
    )
    assert bench_fake_llm.batches.count("POST /v1/batches") == 0
    assert not list((tmp_path / "runs").glob("*/manifest.json"))
