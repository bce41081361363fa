"""The ``local`` executor: the plan's tasks on this process's event loop (bench's ``Runner``)."""

from __future__ import annotations

from bench.execution.runner import Runner
from bench.executor import Executor, Job, Sink
from bench.suite.plan import all_targets


class LocalExecutor(Executor):
    """Runs the tasks here, at most ``concurrency`` at once."""

    name = "local"
    description = "the tasks run in this process (the default)"

    runner: Runner | None = None

    async def open(self, job: Job) -> None:
        plan, settings = job.plan, self.settings
        self.runner = Runner(
            plan.target,
            lambda r: None,
            concurrency=settings.concurrency,
            llm=job.llm,
            evaluator_timeout=settings.evaluator_timeout,
            metrics=plan.metrics,
            signals=plan.signals,
            keep_workspaces=settings.keep_workspaces,
            captures_dir=settings.captures_dir,
            portable_captures=settings.portable_captures,
            redact=job.llm.redact,
            max_response_bytes=plan.max_response_bytes,
            targets=plan.targets,
        )
        self._targets = all_targets(plan)
        if plan.needs_target and job.count:
            for target in self._targets:
                await target.open()

    async def run(self, job: Job, sink: Sink) -> None:
        assert self.runner is not None, "open() first"
        runner = self.runner
        runner.record = sink.record
        try:
            await runner.run(job.tasks())
        finally:
            for target in self._targets:
                await target.close()
            self.stopped = runner.stopped
            self.interrupted = runner.interrupted

    def interrupt(self) -> None:
        super().interrupt()
        if self.runner is not None:
            self.runner.interrupt()
