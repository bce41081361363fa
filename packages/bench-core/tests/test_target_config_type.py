"""``Target`` is generic over its config, as ``Evaluator`` is; a plain subclass still works."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from bench import Response, Target, TargetConfig, Task
from bench.hookspecs import hookimpl
from bench.pipeline.options import RunOptions
from bench.pipeline.run import run_plan
from bench.plugins.registry import build_registry
from bench.suite.loader import load_suite


class ShoutConfig(TargetConfig):
    suffix: str = "!"


class Shout(Target[ShoutConfig]):
    """Typed by its config: ``self.config.suffix`` needs no isinstance check."""

    name: ClassVar[str] = "shout"
    Config = ShoutConfig

    async def respond(self, task: Task) -> Response:
        return Response(output=task.text.upper() + self.config.suffix)


class Plain(Target):  # type: ignore[type-arg]  # a plugin written before Target was generic
    name: ClassVar[str] = "plain"

    async def respond(self, task: Task) -> Response:
        return Response(output=f"{task.text} ({type(self.config).__name__})")


class _Plugin:
    @hookimpl
    def bench_register_targets(self, register: Any) -> None:
        register(Shout)
        register(Plain)


def test_a_target_typed_by_its_config_and_a_plain_one_both_run(bench_suite_file: Any, tmp_path: Path) -> None:
    path = bench_suite_file(
        "targets:\n  - {type: shout, label: loud, suffix: '?'}\n  - {type: plain, label: flat}\n"
        "tasks:\n  - {id: t, prompt: hi, evaluate: {type: contains, value: hi}}\n"
    )
    plan = load_suite(path, build_registry([("bench-test-targets", "targets", _Plugin())]))
    outcome = run_plan(plan, RunOptions(runs_dir=tmp_path / "runs", handle_signals=False))
    responses = {task["id"]: task["response"] for task in outcome.report.tasks()}
    assert responses == {"t[loud]": "HI?", "t[flat]": "hi (TargetConfig)"}
