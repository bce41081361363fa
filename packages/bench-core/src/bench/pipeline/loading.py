"""Before a run opens: the environment files read, the executor named, the suite loaded."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bench.executor import DEFAULT_EXECUTOR, Executor
from bench.pipeline.batches import check_executor, check_forced
from bench.pipeline.options import RunOptions
from bench.suite.loader import load_suite
from bench.suite.plan import Plan
from bench.vocabulary.errors import ConfigError

if TYPE_CHECKING:
    from bench.plugins.registry import Registry


def load_environment(suite: str | Path, env_files: Sequence[str | Path] = (), *, dotenv: bool = True) -> None:
    """Read the environment files of a run (bench.suite.variables.command_line) into ``os.environ``, never
    replacing what is set, and treat the secrets they hold as secrets."""
    from bench.suite.variables.command_line import env_files as chosen
    from bench.suite.variables.command_line import load_env_files
    from bench.vocabulary import redact

    files = chosen(Path(suite), [Path(f) for f in env_files], defaults=dotenv)
    if files and load_env_files(files):  # none: python-dotenv is not even imported
        redact.refresh()


def find_executor(name: str, registry: Registry | None = None) -> type[Executor]:
    """The executor class registered as ``name``; an unknown name says which package provides it."""
    from bench.plugins import catalogue
    from bench.plugins.registry import get_registry
    from bench.vocabulary.errors import did_you_mean

    table = (registry or get_registry()).executors
    provided = table.get(name)
    if provided is None:
        hint = catalogue.hint("executors", name) or did_you_mean(name, list(table))
        raise ConfigError(f"--executor: unknown executor '{name}'{hint}")
    found: type[Executor] = provided.cls
    return found


def executor_class(name: str, registry: Registry | None = None) -> type[Executor]:
    """The class that runs a run's tasks: bench's own ``local`` one, or one a plugin registers."""
    if name == DEFAULT_EXECUTOR:
        from bench.execution.local import LocalExecutor

        return LocalExecutor
    return find_executor(name, registry)


def load_for_run(
    suite: str | Path,
    options: RunOptions,
    registry: Registry | None = None,
    progress: Callable[[int], None] | None = None,
) -> Plan:
    """The suite's plan, loaded with ``options`` after the environment files are read; an unknown
    executor is refused first, before a large suite is read."""
    load_environment(suite, options.env_files, dotenv=options.dotenv)
    suite_args = options.suite_args()
    if options.executor != DEFAULT_EXECUTOR:
        find_executor(options.executor, registry)

    def executor() -> type[Executor]:  # looked up only for a batch run
        return executor_class(options.executor, registry)

    check_executor(options, executor)  # --batch: before a large suite is read
    plan = load_suite(suite, registry, progress=progress, **suite_args)
    check_forced(plan.llm)  # batch: true on a model without a batch API, before anything runs
    check_executor(options, executor, plan.llm)
    return plan
