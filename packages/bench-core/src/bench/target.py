"""The target API: the system under test, turned into a response per task."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Generic, TypeVar

from pydantic import AfterValidator, ConfigDict, Field

from bench.vocabulary.documented import Documented
from bench.vocabulary.errors import ConfigError
from bench.vocabulary.models import Response, Task
from bench.workspace.disk import DISK, disk_tag, parse_size

if TYPE_CHECKING:
    from bench.llm.client import LLMClient


_RESOURCE_TAG = re.compile(r"[A-Za-z0-9_.-]+")


def _resource_tag(value: str) -> str:
    if value.startswith(DISK):  # the disk the task's workspace needs: disk=2GiB
        size = parse_size(value[len(DISK) :])
        if size is None:
            raise ValueError(f"{value}: write the disk a task needs as disk=SIZE (disk=2GiB, disk=500MB)")
        return disk_tag(size)
    if not _RESOURCE_TAG.fullmatch(value):
        raise ValueError("a resource tag is letters, digits, '_', '.' and '-' (container, gpu), or disk=SIZE")
    return value


ResourceTag = Annotated[str, AfterValidator(_resource_tag)]
"""A resource tag (``container``, ``gpu``, one a pool of workers is named by)."""


class TargetConfig(Documented):
    """Base of every target's settings; unknown fields are errors."""

    # defer_build: a type's schema is built when a suite first uses it, not at start-up.
    model_config = ConfigDict(extra="forbid", defer_build=True, allow_inf_nan=False)

    resources: list[ResourceTag] = Field(default_factory=list)
    """Resource tags every task this target runs needs where it runs (``container`` for an agent
    in a container sandbox): an executor with worker pools runs them only on a pool that provides
    them (docs/scale.md)."""


@dataclass(frozen=True)
class SuiteContext:
    """What a target may need to know about the suite: where it lives and what it is called, and
    the run's LLM client when it is built for a run."""

    name: str
    path: Path
    #: The run's LLM client (None while a suite is only loaded: ``bench validate``, ``--dry-run``).
    llm: LLMClient | None = field(default=None, compare=False, repr=False)
    #: Looks a target type up by name as the suite's ``type:`` is (set by the suite's loader).
    target_types: Callable[[str], type[Target[Any]]] | None = field(default=None, compare=False, repr=False)

    def target_type(self, name: str) -> type[Target[Any]]:
        """The installed target type ``name``, for a target that wraps another: the same lookup,
        errors and install hints as a suite's ``type: NAME``."""
        if self.target_types is None:
            raise ConfigError(f"target type '{name}': this suite was not loaded with bench's registry")
        return self.target_types(name)

    @property
    def folder(self) -> Path:
        """The folder holding the suite file; relative paths in target settings start here."""
        return self.path.parent


TargetConfigT = TypeVar("TargetConfigT", bound=TargetConfig)


class Target(Generic[TargetConfigT]):
    """Base class of a target type.

    Subclasses set ``name`` and a nested ``Config`` model and implement ``respond``. ``open`` runs
    once before the first task and ``close`` once after the last; both are optional.
    Raise ``TargetError`` for a failure the user should see as the task's error.
    Subclass ``Target[YourConfig]`` and ``self.config`` is typed as ``YourConfig``.
    """

    name: ClassVar[str]
    Config: ClassVar[type[TargetConfig]] = TargetConfig
    #: True for targets that give back responses made in advance (``recorded``): a conversation
    #: task's recorded transcript is its response, never answered turn by turn.
    replays: ClassVar[bool] = False

    def __init__(self, config: TargetConfigT, suite: SuiteContext) -> None:
        self.config = config
        self.suite = suite
        #: The run's LLM client (``suite.llm``); model-backed targets call through it.
        self.llm: LLMClient | None = suite.llm
        #: Its ``label`` among a suite's ``targets:`` (None for a suite's single ``target:``).
        self.label: str | None = None

    def sequential(self) -> str | None:
        """Why this target's answers depend on the earlier tasks it answered in this process (state
        bench does not store), or None. bench then refuses, before anything runs, ``--resume`` and
        an executor that does not declare ``Executor.sequential_targets`` (``local`` does), which
        would answer a task without them."""
        return None

    def llm_calls(self) -> list[tuple[str, int]]:
        """(model, calls per task) this target makes; used for dry runs and price checks."""
        return []

    async def open(self) -> None:
        """Prepare shared state (read files, start processes)."""

    async def respond(self, task: Task) -> Response:
        """Produce the response to one task."""
        raise NotImplementedError(f"{type(self).__name__}.respond")

    async def close(self) -> None:
        """Release what ``open`` acquired."""
