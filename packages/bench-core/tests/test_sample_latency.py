"""``Sample.latency_ms``: evaluators see how long the target took to answer."""

from __future__ import annotations

from pathlib import Path

from bench import Evaluator, Result, Sample, hookimpl
from bench.plugins.registry import build_registry
from bench.testing import run_suite, write_suite


class Latency(Evaluator):
    """Reports the latency it was given."""

    name = "seen-latency"

    async def evaluate(self, sample: Sample) -> Result:
        return Result(passed=True, details={"latency_ms": sample.latency_ms})


class _Plugin:
    @hookimpl
    def bench_register_evaluators(self, register):  # type: ignore[no-untyped-def]
        register(Latency)


def _seen(tmp_path: Path, suite: str) -> dict[str, float | None]:
    (tmp_path / "slow_agent.py").write_text(
        "import time\n\ndef answer(task):\n    time.sleep(0.05)\n    return 'done'\n"
    )
    registry = build_registry([("bench-test-plugin", "test", _Plugin())])
    outcome = run_suite(write_suite(tmp_path, suite), registry=registry, runs_dir=tmp_path / "runs")
    return {t["id"]: t["evaluators"][0]["details"]["latency_ms"] for t in outcome.report.tasks()}


def test_a_called_target_gives_the_measured_latency(tmp_path: Path) -> None:
    seen = _seen(
        tmp_path,
        """
        target: {type: python, function: 'slow_agent:answer'}
        tasks:
          - {id: called, prompt: x, evaluate: {type: seen-latency}}
          - {id: recorded, response: done, evaluate: {type: seen-latency}}
        """,
    )
    called = seen["called"]
    assert called is not None
    assert 50 <= called < 5000  # the agent sleeps 50 ms
    assert seen["recorded"] is None  # a recorded response was never timed


def test_a_reported_latency_wins(tmp_path: Path) -> None:
    seen = _seen(
        tmp_path,
        """
        tasks:
          - id: recorded
            response: {output: done, usage: {latency_ms: 1234.5}}
            evaluate: {type: seen-latency}
        """,
    )
    assert seen["recorded"] == 1234.5
