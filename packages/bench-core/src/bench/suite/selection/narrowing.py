"""Which of a suite's tasks a run runs: ``-k``, ``--filter``, ``--sample``, ``--limit``, and the
tasks that failed or errored in an earlier run.

``Selection`` is plain data (what the command line or ``bench.run(select=...)`` gives);
``narrow`` applies it to a ``Plan`` in one pass over the tasks, keeping only the positions of the
chosen ones, so a suite too large to hold built (``TaskList``) is still rebuilt one task at a time.
A task is chosen or left out with all its repeats. The steps apply in this order: the earlier
run's tasks, ``-k``, ``--filter``, ``--sample``, then ``--limit``.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field, fields, replace
from typing import Any

from bench.suite.plan import Plan, PlannedTask
from bench.suite.selection.keywords import compile_keyword
from bench.vocabulary.errors import ConfigError
from bench.vocabulary.models import Task

#: The seed ``--sample`` uses when none is given.
DEFAULT_SEED = 0


@dataclass(frozen=True)
class Selection:
    """The tasks to run; every field left at its default selects every task.

    ``keyword``: a ``-k`` expression over ids and tags (bench.suite.selection.keywords). ``filters``:
    metadata key (dotted for nested values) -> the value it must have, all of them. ``sample``:
    that many tasks drawn at random with ``seed`` (the same seed draws the same tasks).
    ``limit``: the first N of what is left. ``failed`` / ``errors``: a run id (or ``latest``)
    whose failed / errored tasks are the only candidates.
    """

    keyword: str | None = None
    filters: dict[str, str] = field(default_factory=dict)
    limit: int | None = None
    sample: int | None = None
    seed: int = DEFAULT_SEED
    failed: str | None = None
    errors: str | None = None

    def __post_init__(self) -> None:
        for name in ("limit", "sample"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ConfigError(f"--{name} {value}: give a whole number of tasks, at least 1")
        if self.keyword is not None:
            compile_keyword(self.keyword)  # refuse a bad expression before any task is loaded
        if self.failed and self.errors and self.failed != self.errors:
            raise ConfigError("--failed and --errors name different runs; name the same run in both")

    @property
    def active(self) -> bool:
        """Whether anything is narrowed (False: every task runs)."""
        return self != Selection(seed=self.seed)

    def as_dict(self) -> dict[str, Any]:
        """The fields that differ from the defaults (what a run's manifest records)."""
        default = Selection()
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Selection:
        """The inverse of ``as_dict`` (unknown keys are ignored: a newer bench may record more)."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def describe(self) -> str:
        """The selection as the options that give it: ``-k math, --limit 2``."""
        parts = []
        if self.failed:
            parts.append(f"--failed {self.failed}")
        if self.errors:
            parts.append(f"--errors {self.errors}")
        if self.keyword is not None:
            parts.append(f"-k {self.keyword!r}")
        parts += [f"--filter {key}={value}" for key, value in self.filters.items()]
        if self.sample is not None:
            parts.append(f"--sample {self.sample} --seed {self.seed}")
        if self.limit is not None:
            parts.append(f"--limit {self.limit}")
        return ", ".join(parts)

    def with_run(self, run_id: str) -> Selection:
        """The same selection with ``latest`` replaced by the run it named."""
        return replace(
            self,
            failed=run_id if self.failed else None,
            errors=run_id if self.errors else None,
        )


def parse_filters(items: list[str]) -> dict[str, str]:
    """``--filter KEY=VALUE`` options as a mapping; a key given twice must have one value."""
    filters: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(
                f"--filter {item}: write it as KEY=VALUE (a metadata key, dotted for nested ones)"
            )
        if key in filters and filters[key] != value:
            raise ConfigError(f"--filter {item}: key '{key}' is already filtered on '{filters[key]}'")
        filters[key] = value
    return filters


@dataclass
class Narrowed:
    """A plan cut down to the selected tasks, with how many of how many were chosen."""

    plan: Plan
    selected: int
    total: int
    selection: Selection

    @property
    def note(self) -> str:
        """``selected 3 of 40 tasks (-k 'math')``."""
        noun = "task" if self.total == 1 else "tasks"
        return f"selected {self.selected} of {self.total} {noun} ({self.selection.describe()})"


def narrow(plan: Plan, selection: Selection, only: Collection[str] | None = None) -> Narrowed:
    """The plan with only the tasks ``selection`` chooses; ``only``: the ids an earlier run gives.

    Selecting no task at all is a ConfigError.
    """
    matches = _matcher(selection, only)
    groups: list[
        tuple[int, int, int]
    ] = []  # per chosen task: first run's position, runs, runs needing a target
    total = 0
    chosen = False
    for index, planned in enumerate(plan.tasks):
        task = planned.task
        if task.repeat == 0:
            total += 1
            chosen = matches(task)
            if chosen:
                groups.append((index, 0, 0))
        if chosen:
            start, runs, needs = groups[-1]
            groups[-1] = (start, runs + 1, needs + (task.response is None))
    if selection.sample is not None and selection.sample < len(groups):
        picked = random.Random(selection.seed).sample(range(len(groups)), selection.sample)
        groups = [groups[i] for i in sorted(picked)]
    if selection.limit is not None:
        groups = groups[: selection.limit]
    if not groups:
        raise ConfigError(f"no task matches the selection: {selection.describe()}")
    positions = [start + run for start, runs, _ in groups for run in range(runs)]
    kept = list(plan.tasks) if plan.tasks.kept else None
    source = plan.tasks

    def rebuild() -> Iterator[PlannedTask]:
        wanted = iter(positions)
        next_wanted = next(wanted, None)
        for index, planned in enumerate(source):
            if index == next_wanted:
                yield planned
                next_wanted = next(wanted, None)
                if next_wanted is None:
                    return

    built = [kept[i] for i in positions] if kept is not None else None
    tasks = plan.tasks.narrowed(positions, built, rebuild)
    narrowed = replace(plan, tasks=tasks, needs_target=sum(needs for _, _, needs in groups))
    return Narrowed(narrowed, len(groups), total, selection)


def _matcher(selection: Selection, only: Collection[str] | None) -> Any:
    keyword = compile_keyword(selection.keyword) if selection.keyword is not None else None
    filters = [(key.split("."), value) for key, value in selection.filters.items()]

    def matches(task: Task) -> bool:
        if only is not None and task.id not in only:
            return False
        if keyword is not None and not keyword(task.id, task.tags):
            return False
        return all(_has(task.metadata, path, value) for path, value in filters)

    return matches


def _has(metadata: dict[str, Any], path: list[str], wanted: str) -> bool:
    """Whether the metadata value at ``path`` reads as ``wanted`` (or, for a list, holds it)."""
    value: Any = metadata
    for part in path:
        if not isinstance(value, dict) or part not in value:
            return False
        value = value[part]
    if isinstance(value, list):
        return any(_text(item) == wanted for item in value)
    return _text(value) == wanted


def _text(value: Any) -> str:
    """A metadata value as the command line writes it: ``true``, ``null``, ``3``, ``hard``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)
