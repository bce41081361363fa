"""The ``local`` executor: the plan's tasks on this process's event loop (bench's ``Runner``)."""

from __future__ import annotations

from typing import Any

from bench.execution.deadline import release_shared
from bench.execution.runner import Runner
from bench.executor import Executor, Job, Sink
from bench.suite.plan import all_targets
from bench.target import Target


class LocalExecutor(Executor):
    """Runs the tasks here, at most ``concurrency`` at once."""

    name = "local"
    description = "the tasks run in this process (the default)"
    batches = True
    sequential_targets = True

    runner: Runner | None = None

    async def open(self, job: Job) -> None:
        plan = job.plan
        self._opened: list[Target[Any]] = []
        if plan.needs_target and job.count:
            try:
                for target in all_targets(plan):
                    await target.open()
                    self._opened.append(target)
            except BaseException:
                await self._close_targets()  # the ones already open: their processes, connections
                raise

    async def run(self, job: Job, sink: Sink) -> None:
        self.runner = runner = self._runner(job, sink)
        if self.interrupted:  # Ctrl-C came between open() and run()
            runner.interrupt()
        try:
            await runner.run(job.tasks())
        finally:
            release_shared()  # no evaluation's timer outlives the run, even if the loop stops now
            await self._close_targets()
            self.stopped = runner.stopped
            self.interrupted = runner.interrupted

    def _runner(self, job: Job, sink: Sink) -> Runner:
        """The runner of ``job``, landing each result in ``sink``."""
        plan, settings = job.plan, self.settings
        return Runner(
            plan.target,
            sink.record,
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
            aggregating=None if job.aggregators is None else job.aggregators.add,
        )

    async def close(self) -> None:
        await self._close_targets()  # open() succeeded but run() never came (the manifest failed)

    async def _close_targets(self) -> None:
        opened, self._opened = getattr(self, "_opened", []), []
        for target in opened:
            await target.close()

    def interrupt(self) -> None:
        super().interrupt()
        if self.runner is not None:
            self.runner.interrupt()
