"""A run's options: one record, filled from ``bench run``'s flags or ``bench.run``'s keywords.

Each option is declared once, here: the command line maps its flags onto these fields, the Python
API checks its keywords (``bench.RunKeywords``, named as these fields) and passes them on, and the
run's stages read them from here (executors get theirs through ``ExecutorSettings``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.execution.evaluation import EVALUATOR_TIMEOUT_S
from bench.executor import DEFAULT_EXECUTOR
from bench.suite.selection.narrowing import Selection
from bench.suite.target_spec import parse_target
from bench.vocabulary.errors import ConfigError

DEFAULT_CONCURRENCY = 8
DEFAULT_RUNS_DIR = Path(".bench") / "runs"
#: Options that are whole numbers of at least 1 when given.
COUNTS = ("concurrency", "repeat", "workers", "chunk")


@dataclass
class RunOptions:
    """How to load and run a suite; every field has the default ``bench run`` has."""

    #: Tasks in flight at once (``--concurrency``; None: the suite's, else ``DEFAULT_CONCURRENCY``).
    concurrency: int | None = None
    #: Run every task this many times (``--repeat``; None: the suite's).
    repeat: int | None = None
    #: Read and write the LLM response cache (``--no-cache`` is False).
    cache: bool = True
    #: The shared second level of the cache, an fsspec URL (``--shared-cache``; default
    #: ``$BENCH_SHARED_CACHE``, else none).
    shared_cache: str | None = None
    #: Where runs are stored (``--runs-dir``).
    runs_dir: Path = DEFAULT_RUNS_DIR  # a str given is made a Path
    #: Finish the run with this id, or ``latest`` (``--resume``).
    resume: str | None = None
    #: Leave each task's workspace on disk; its path is in the result (``--keep-workspaces``).
    keep_workspaces: bool = False
    #: Let rows of a tasks file name paths outside the suite's folder (``--allow-outside-root``).
    allow_outside_root: bool = False
    #: Which tasks to run (``-k``, ``--filter``, ``--limit``, ``--sample``, ``--failed``,
    #: ``--errors``; None: all); a resumed run applies the selection it started with.
    select: Selection | None = None
    #: Values for the tasks' vars, over the suite's and the tasks' own (``--var``).
    vars: Mapping[str, str] | None = None
    #: More files of environment variables, read before the default ``.env`` files (``--env-file``).
    env_files: Sequence[str | Path] = ()
    #: Read the ``.env`` beside the suite and in the working directory (``--no-env-file`` is False).
    dotenv: bool = True
    #: Replace every target of the suite: a type name or a mapping (``--target``).
    target: str | Mapping[str, Any] | None = None
    #: Refuse to run when a judge's kappa against its labels is below its bar
    #: (``--require-calibration``).
    require_calibration: bool = False
    #: What runs the tasks (``--executor``): ``local`` or one a plugin registers.
    executor: str = DEFAULT_EXECUTOR
    #: The executor's worker processes, tasks per hand-out and cluster (``--workers``, ``--chunk``,
    #: ``--address``); None: the executor's default.
    workers: int | None = None
    chunk: int | None = None
    address: str | None = None
    #: The executor's own settings (``--executor-option KEY=VALUE``).
    executor_options: Mapping[str, str] = field(default_factory=dict)
    #: Count the model calls and price them; run nothing (``--dry-run``).
    dry_run: bool = False
    #: Stop cleanly on Ctrl-C and SIGTERM (only the main thread can; ``bench.arun`` leaves them
    #: to the loop's owner).
    handle_signals: bool = True
    #: Seconds an async evaluator (an LLM judge) may take before it is an evaluator error.
    evaluator_timeout: float = EVALUATOR_TIMEOUT_S
    #: Connect to nothing but loopback and Unix sockets (``--offline``): checks that need a
    #: remote model are skipped with the reason, a target that needs one is refused (docs/offline.md).
    offline: bool = False
    #: Send model calls through the providers' batch APIs where they have one (``--batch``;
    #: docs/batch.md).
    batch: bool = False
    #: With batches: exit once they are submitted; ``--resume`` collects (``--detach``).
    detach: bool = False
    #: With batches: call live the requests a batch expired, cancelled or failed transiently,
    #: instead of sending them in a new batch (``--batch-retry-live``).
    batch_retry_live: bool = False
    #: Where the LLM response cache lives (None: ``default_cache_path()``, the user's cache folder).
    cache_path: Path | None = None

    def __post_init__(self) -> None:
        for name in COUNTS:
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ConfigError(f"{name} must be a whole number of at least 1, got {value!r}")
        self.runs_dir = Path(self.runs_dir)
        self.executor = self.executor or DEFAULT_EXECUTOR
        self.executor_options = dict(self.executor_options or {})

    def suite_args(self) -> dict[str, Any]:
        """``load_suite``'s keyword arguments for these options (an executor's workers load the
        same plan with them: ``ExecutorSettings.suite_args``)."""
        return {
            "repeat": self.repeat,
            "allow_outside_root": self.allow_outside_root,
            "variables": dict(self.vars) if self.vars else None,
            "target": None if self.target is None else parse_target(self.target),
        }
