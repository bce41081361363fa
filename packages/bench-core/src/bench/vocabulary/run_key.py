"""The run key: what the run store files one run of a task under (``id``, then ``id@N``)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

#: Between a task's id and its repeat number in a key.
SEPARATOR = "@"

# A repeat as ``key()`` writes it: digits without a leading zero (``0`` itself read as the first run).
_REPEAT = re.compile(r"0|[1-9][0-9]*")


class RunKey(NamedTuple):
    """One run of a task: the task's id and which repeat it is (0 for the first run).

    ``key()`` is the text the store, the reports and the viewer name the run by: the id alone
    for the first run, ``id@N`` for repeat N. A task id may itself hold ``@``, so ``parse`` reads
    only a final ``@`` followed by a number as the repeat.
    """

    id: str
    repeat: int = 0

    def key(self) -> str:
        """``id`` for the first run, ``id@N`` for repeat N."""
        return self.id if not self.repeat else f"{self.id}{SEPARATOR}{self.repeat}"

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> RunKey:
        """The run a result record (a line of the store, a report's task) is of."""
        return cls(record["id"], record.get("repeat") or 0)

    @classmethod
    def parse(cls, key: str) -> RunKey:
        """The run ``key`` names: ``id@N`` is repeat N of ``id``; any other text is a first run's id."""
        task_id, found, repeat = key.rpartition(SEPARATOR)
        if found and _REPEAT.fullmatch(repeat):
            return cls(task_id, int(repeat))
        return cls(key)
