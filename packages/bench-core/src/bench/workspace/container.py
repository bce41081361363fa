"""The ``container`` sandbox: a command run in a Podman or Docker container.

Only the folders bench names are mounted (the task's workspace read-write, bench's own files for
the run); the rest of the host's file system, its environment and, with ``network: none``, its
network (its loopback included) stay out. Podman is preferred where both are installed (it runs
rootless, so root inside is the user outside).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
from typing import Literal

from pydantic import Field, field_validator

from bench.workspace.sandboxes import Sandbox, SandboxConfig, SandboxRun

__all__ = ["ContainerConfig", "ContainerSandbox", "container_runtime"]

RUNTIMES = ("podman", "docker")
_MEMORY = re.compile(r"^[0-9]+(\.[0-9]+)?[bkmg]?$", re.IGNORECASE)


class ContainerConfig(SandboxConfig):
    """Settings of the ``container`` sandbox."""

    type: Literal["container"] = "container"
    image: str = Field(min_length=1)
    """The image to run (``docker.io/library/python:3.12-slim``, or one built locally)."""
    network: Literal["none"] = "none"
    """``none``: no network but the container's own loopback; the host's loopback is out of reach."""
    cpus: float | None = Field(default=None, gt=0)
    """CPUs the container may use (``--cpus``)."""
    memory: str | None = None
    """Memory the container may use (``--memory``): ``512m``, ``2g``."""
    runtime: Literal["podman", "docker"] | None = None
    """Which runtime runs it (default: Podman where installed, else Docker)."""

    @field_validator("image")
    @classmethod
    def _image(cls, value: str) -> str:
        if value.startswith("-") or any(c.isspace() for c in value):
            raise ValueError(f"image must be an image name such as python:3.12-slim, not {value!r}")
        return value

    @field_validator("memory")
    @classmethod
    def _memory(cls, value: str | None) -> str | None:
        if value is not None and not _MEMORY.match(value):
            raise ValueError(f"memory must be a size such as 512m or 2g, not {value!r}")
        return value


def container_runtime(preferred: str | None = None) -> str | None:
    """The path of the container runtime's client: ``preferred``, else Podman, else Docker."""
    for name in (preferred,) if preferred else RUNTIMES:
        found = shutil.which(name)
        if found:
            return found
    return None


class ContainerSandbox(Sandbox):
    """Runs each command in a fresh container of ``image`` that is removed when it ends."""

    name = "container"
    Config = ContainerConfig
    description = "a Podman or Docker container; only the task's workspace is mounted"
    config: ContainerConfig

    def unavailable(self) -> str | None:
        if container_runtime(self.config.runtime) is None:
            wanted = self.config.runtime or "Podman or Docker"
            return f"sandbox type container needs {wanted} installed (neither found on PATH)"
        return None

    def command(self, run: SandboxRun) -> list[str]:
        config = self.config
        runtime = container_runtime(config.runtime)
        if runtime is None:
            raise RuntimeError(self.unavailable())
        words = [runtime, "run", "--rm", "-i", "--name", run.name, "--network", "none"]
        words += ["--cap-drop", "ALL", "--security-opt", "no-new-privileges"]
        words += ["--ulimit", f"nofile={run.open_files}:{run.open_files}"]
        words += ["--ulimit", f"nproc={run.processes}:{run.processes}"]
        if config.cpus is not None:
            words += ["--cpus", f"{config.cpus:g}"]
        if config.memory is not None:
            words += ["--memory", config.memory]
        for mount in run.mounts:
            mode = "rw" if mount.writable else "ro"
            words += ["--volume", f"{mount.host}:{mount.inside}:{mode}"]
        hidden = run.secret_env()  # by name only: the client has them in its environment
        for key, value in run.env.items():
            words += ["--env", key if key in hidden else f"{key}={value}"]
        return [*words, "--workdir", run.workdir, config.image, *run.argv]

    async def stop(self, run: SandboxRun) -> None:
        runtime = container_runtime(self.config.runtime)
        if runtime is None:
            return
        with contextlib.suppress(OSError):
            proc = await asyncio.create_subprocess_exec(
                runtime,
                "rm",
                "--force",
                run.name,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL,
            )
            await proc.wait()
