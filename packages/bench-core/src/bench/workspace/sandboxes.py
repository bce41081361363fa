"""The sandbox contract: where a command runs when not on the host (``bench_register_sandboxes``).

A suite names a sandbox in a target's (or an evaluator's) settings::

    sandbox: {type: container, image: python:3.12-slim, network: none}

``type`` picks a class registered through ``bench_register_sandboxes`` (bench-core registers
``container``); the other keys are that class's ``Config``. A sandbox does not run anything
itself: it turns the words of a command into the host command that runs them inside, with the
folders it is given mounted (``command``), and removes what that command left behind
(``stop``). So a runtime reachable by a command-line client (Podman, Docker, ``kubectl exec``,
Modal's or E2B's CLI) fits.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel, ConfigDict, Field

from bench.vocabulary import redact

__all__ = ["Mount", "RegisterSandbox", "Sandbox", "SandboxConfig", "SandboxRun"]


class SandboxConfig(BaseModel):
    """Settings every sandbox takes; a sandbox's ``Config`` subclasses it."""

    model_config = ConfigDict(defer_build=True, extra="forbid", allow_inf_nan=False)

    type: str
    """The registered sandbox type (``container``, or one a plugin registers)."""
    timeout: float | None = Field(default=None, gt=0)
    """Seconds the command may run inside; past them it is stopped and the task fails."""


@dataclass(frozen=True)
class Mount:
    """A host folder seen inside the sandbox at ``inside``; read-only unless ``writable``."""

    host: Path
    inside: str
    writable: bool = False


@dataclass(frozen=True)
class SandboxRun:
    """One command to run inside: its words, folders, environment and working folder there."""

    #: A name unique to this run (a container's name), for ``stop``.
    name: str
    argv: list[str]
    mounts: list[Mount]
    workdir: str
    #: The whole environment inside: nothing of the host's is passed unless it is here.
    env: dict[str, str] = field(default_factory=dict)
    #: Limits the sandbox applies where it can (``nofile``, ``nproc``).
    open_files: int = 1024
    processes: int = 256

    def secret_env(self) -> dict[str, str]:
        """The variables of ``env`` that hold a secret (by name or by value): a sandbox names them on
        its client's command line without their values, which any user of the host can read there
        (``ps``), and the client gets them in its own environment (RELIABILITY H13)."""
        scrub = redact.current()
        return {k: v for k, v in self.env.items() if redact.names_secret(k) or scrub.finds(v)}


class Sandbox(ABC):
    """Base of a sandbox type: set ``name`` and ``Config``, implement ``command``."""

    name: ClassVar[str]
    Config: ClassVar[type[SandboxConfig]] = SandboxConfig
    #: One line for ``bench plugins``.
    description: ClassVar[str] = ""
    #: Where the task's workspace appears inside (None: at its host path).
    workspace_path: ClassVar[str | None] = "/workspace"
    #: Where bench's own files for the run (the prompt, the trajectory file) appear inside.
    io_path: ClassVar[str | None] = "/bench"
    #: The resource tags a task whose target runs in this sandbox needs where it runs, as if it
    #: declared them in ``resources:`` (``container``: a pool of workers with a container runtime).
    needs: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, config: Any) -> None:
        self.config = config

    def unavailable(self) -> str | None:
        """Why this sandbox cannot run here (no runtime installed), or None when it can."""
        return None

    @property
    def network(self) -> str:
        """What the command inside may reach, for results and notes (``none``, ...)."""
        return str(getattr(self.config, "network", "unknown"))

    def offline_refusal(self) -> str | None:
        """Why an offline run (``--offline``) may not use this sandbox, or None when it may. Only
        a sandbox without a network (``network`` is ``none``) keeps its programs on this machine,
        so by default every other one is refused; a type whose programs reach nothing says so by
        its ``network``."""
        if self.network == "none":
            return None
        return (
            f"sandbox {self.name} has network {self.network}, which an offline run cannot keep on "
            "this machine; give it network: none (or run without --offline)"
        )

    @abstractmethod
    def command(self, run: SandboxRun) -> list[str]:
        """The host command that runs ``run.argv`` inside, with ``run.mounts`` and nothing else."""

    async def stop(self, run: SandboxRun) -> None:  # noqa: B027 - optional, like Target.close
        """Remove what ``command`` left running (called always, after the command ended or not)."""


class RegisterSandbox(Protocol):
    """The ``register`` of ``bench_register_sandboxes``: a sandbox class, or its name and import
    path (``register("k8s", "my_package.k8s:KubeSandbox")``, imported on the name's first lookup,
    as ``bench.hookspecs.Register``)."""

    def __call__(self, cls: type[Sandbox] | str, path: str | None = None, /) -> None: ...
