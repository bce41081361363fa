"""What a run tells whoever watches it, from loading the suite to its last task.

``RunObserver`` does nothing with any of it (a run from Python nobody watches): its template
warnings become Python warnings. The console's observer (``bench.report.console``) shows the
progress; ``bench run`` adds the start-up lines.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from bench.report.progress import Spending
    from bench.vocabulary.results import TaskResult

#: Told how many tasks of the suite are read so far.
LoadProgress = Callable[[int], None]


@dataclass
class Resumed:
    """What a resume found: tasks kept from earlier attempts and why others run again."""

    kept: int = 0
    changed: int = 0
    removed: int = 0


class RunObserver:
    """The run's events; every hook here does nothing (or the least it can)."""

    #: Whether ``task_done`` wants every result whole; False: a result landed from elsewhere is
    #: never parsed for it.
    watches_tasks: ClassVar[bool] = False

    def loading(self, suite: Path) -> contextlib.AbstractContextManager[LoadProgress | None]:
        """A context around reading ``suite``, giving what is told the tasks read so far (or None)."""
        return contextlib.nullcontext()

    def warning(self, message: str) -> None:
        """Something in the suite works, but likely not as its author meant (a prompt's ``{{var}}``)."""
        warnings.warn(message, UserWarning, stacklevel=2)

    def calibrated(self, text: str, passes: bool) -> None:
        """A calibrated judge's agreement with its labels, measured before the run."""

    def note(self, message: str) -> None:
        """What the run is doing before its first task (importing the model client, ...)."""

    def started(
        self, run_id: str, total: int, kept: int, resumed: Resumed | None, totals: Spending | None = None
    ) -> None:
        """The tasks start; ``totals`` are the model calls' running totals (cost so far)."""

    def task_done(self, result: TaskResult) -> None:
        """A task finished (called only when ``watches_tasks``)."""

    def task_counted(self, status: str) -> bool:
        """A task finished with ``status`` (its result holds no workspace data): count it and
        return True, or return False to get the whole result in ``task_done`` instead."""
        return True
