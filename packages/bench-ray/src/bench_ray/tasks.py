"""A worker's view of the plan: the planned tasks of a chunk's keys.

This is the one place that turns keys into tasks on a worker; a plan that rebuilds single rows
(``Plan.rows()`` and a lazy load) replaces the walk below without touching the worker.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


class TaskIndex:
    """Planned tasks by key: held when the plan keeps its tasks built, else walked in order."""

    def __init__(self, plan: Any) -> None:
        self.plan = plan
        self.position = {key: i for i, key in enumerate(plan.tasks.ids)}
        self.built: list[Any] | None = list(plan.tasks) if plan.tasks.kept else None
        self._walk: Iterator[Any] = iter(())
        self._at = 0  # the index the walk yields next

    def planned(self, keys: list[str]) -> list[Any]:
        """The planned tasks of ``keys``, in plan order."""
        wanted = sorted(self.position[key] for key in keys)
        if self.built is not None:
            return [self.built[i] for i in wanted]
        if wanted and wanted[0] < self._at:  # a chunk handed back after a failure: walk again
            self._walk, self._at = iter(self.plan.tasks), 0
        if self._at == 0:
            self._walk = iter(self.plan.tasks)
        found = []
        for index in wanted:
            while True:
                planned = next(self._walk)
                self._at += 1
                if self._at - 1 == index:
                    found.append(planned)
                    break
        return found
