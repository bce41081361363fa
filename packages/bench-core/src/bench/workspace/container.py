"""The ``container`` sandbox: a command run in a Podman or Docker container.

Only the folders bench names are mounted (the task's workspace read-write, bench's own files for
the run); the rest of the host's file system, its environment and, with ``network: none``, its
network (its loopback included) stay out. Podman is preferred where both are installed (it runs
rootless, so root inside is the user outside).

``network: loopback`` (Podman, or a ``docker`` that is Podman: Debian's podman-docker) lets the
command reach the host's loopback listeners (a local model server) and nothing off the host: the
container's network is slirp4netns with ``allow_host_loopback=true`` (the host's ``127.0.0.1``
is ``10.0.2.2`` inside, also named ``HOST_ALIAS``) and ``outbound_addr=127.0.0.1``, so every
connection slirp4netns opens for the container starts from the host's loopback address, which
the kernel routes nowhere but the host.
``network: {allow: [hosts]}`` adds an HTTP proxy bench runs on the host's loopback (``HTTP_PROXY``
and ``HTTPS_PROXY`` inside point to it) that forwards to the listed hosts only: the one way off
the host, for programs that use the proxy. The proxy runs while a command of the sandbox runs, and
stops when the last one's ``stop`` is called (it ended, failed or was never started).

A real dockerd has no such network, so those two settings are refused under it before any task
(``docker_kind`` tells them apart): a rootful dockerd's containers reach the host's loopback only
with ``--network host``, which reaches every other host too (its bridge networks, ``--internal``
ones included, and ``host-gateway`` lead to the bridge's address, never to ``127.0.0.1``); a
rootless dockerd runs every container behind the one RootlessKit network its daemon started with
(slirp4netns, pasta or VPNKit, host loopback disabled by default), with no per-container choice.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import re
import shutil
import socket
import socketserver
import subprocess
import threading
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from bench.workspace import network_guard
from bench.workspace.sandboxes import Sandbox, SandboxConfig, SandboxRun

__all__ = [
    "HOST_ALIAS",
    "AllowList",
    "ContainerConfig",
    "ContainerSandbox",
    "container_runtime",
    "docker_kind",
]

RUNTIMES = ("podman", "docker")
#: The name of the host's loopback inside a ``network: loopback`` container.
HOST_ALIAS = "host.bench.internal"
#: The name of the thread that serves a ``network: {allow: [...]}`` sandbox's proxy.
PROXY_THREAD = "bench-egress-proxy"
_SLIRP_LOOPBACK = "slirp4netns:allow_host_loopback=true,outbound_addr=127.0.0.1"
_MEMORY = re.compile(r"^[0-9]+(\.[0-9]+)?[bkmg]?$", re.IGNORECASE)


_HOST = re.compile(r"^(?P<name>[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::(?P<port>[0-9]{1,5}))?$")


class AllowList(BaseModel):
    """``network: {allow: [hosts]}``: the host's loopback, and these hosts through bench's proxy."""

    # Built when a suite first uses it: registering the sandbox imports this module on every run.
    model_config = ConfigDict(extra="forbid", defer_build=True)
    allow: list[str] = Field(min_length=1)
    """Host names or addresses (``api.openai.com``, any port) or ``host:port`` (that port only)."""

    @field_validator("allow")
    @classmethod
    def _hosts(cls, value: list[str]) -> list[str]:
        for host in value:
            if not _HOST.match(host):
                raise ValueError(f"a host is a name or address with an optional :port, not {host!r}")
        return value

    def permits(self, host: str, port: int) -> bool:
        """Whether ``host:port`` is listed (a host listed without a port: any port)."""
        for entry in self.allow:
            found = _HOST.match(entry)
            assert found is not None  # checked when read
            name, wanted = found["name"].strip("[]").lower(), found["port"]
            if name == host.strip("[]").lower() and (wanted is None or int(wanted) == port):
                return True
        return False


class _ProxyHandler(socketserver.StreamRequestHandler):
    """One request to the proxy: ``CONNECT host:port`` or a plain HTTP request, forwarded only
    when the sandbox's allow list permits it (else ``403``)."""

    server: _EgressProxy

    def handle(self) -> None:
        head = self.rfile.readline(8192)
        lines = [head]
        while lines[-1] not in (b"\r\n", b"\n", b""):
            lines.append(self.rfile.readline(8192))
        words = head.decode("latin-1").split()
        if len(words) != 3:
            return
        method, target = words[0].upper(), words[1]
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
        else:
            url = urlsplit(target)
            host, port = url.hostname or "", str(url.port or 80)
        if not port.isdigit() or not self.server.allowed.permits(host, int(port)):
            self.wfile.write(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return
        try:
            upstream = socket.create_connection((host.strip("[]"), int(port)), timeout=30)
        except OSError:
            self.wfile.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        with upstream:
            if method == "CONNECT":
                self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:
                upstream.sendall(b"".join(lines))
            back = threading.Thread(target=_pipe, args=(upstream, self.connection), daemon=True)
            back.start()
            _pipe(self.connection, upstream)
            back.join()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


class _EgressProxy(socketserver.ThreadingTCPServer):
    """The proxy of a ``network: {allow: [...]}`` sandbox, on the host's loopback."""

    daemon_threads = True

    def __init__(self, allowed: AllowList) -> None:
        super().__init__(("127.0.0.1", 0), _ProxyHandler)
        self.allowed = allowed
        self._thread = threading.Thread(
            target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True, name=PROXY_THREAD
        )
        self._thread.start()

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def close(self) -> None:
        """Stop serving and free the port (forwarded connections end with their container)."""
        self.shutdown()
        self.server_close()
        self._thread.join()


class ContainerConfig(SandboxConfig):
    """Settings of the ``container`` sandbox."""

    model_config = ConfigDict(defer_build=True)  # as AllowList

    type: Literal["container"] = "container"
    image: str = Field(min_length=1)
    """The image to run (``docker.io/library/python:3.12-slim``, or one built locally)."""
    network: Literal["none", "loopback"] | AllowList = "none"
    """``none``: no network but the container's own loopback; the host's loopback is out of reach.
    ``loopback`` (Podman, podman-docker): the host's loopback listeners, at ``HOST_ALIAS``
    (``10.0.2.2``), and nothing off the host. ``{allow: [hosts]}`` (the same): as ``loopback``,
    and the listed hosts through bench's proxy (``HTTP_PROXY``/``HTTPS_PROXY``)."""
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

    @field_validator("network", mode="before")
    @classmethod
    def _network_kind(cls, value: object) -> object:
        if value in ("none", "loopback") or isinstance(value, AllowList):
            return value
        if isinstance(value, dict):  # checked here, so that its errors name no union member
            try:
                return AllowList.model_validate(value)
            except ValidationError as exc:
                error = exc.errors(include_url=False)[0]
                where = ".".join(str(part) for part in error["loc"])
                message = str(error["msg"]).removeprefix("Value error, ")
                raise ValueError(f"{where}: {message}") from None
        raise ValueError(f"network must be none, loopback or {{allow: [hosts]}}, not {value!r}")

    @field_validator("memory")
    @classmethod
    def _memory(cls, value: str | None) -> str | None:
        if value is not None and not _MEMORY.match(value):
            raise ValueError(f"memory must be a size such as 512m or 2g, not {value!r}")
        return value


#: Why a ``docker`` of each kind cannot give ``network: loopback`` or ``{allow: [...]}``.
_DOCKER_LACKS = {
    "rootful": "a rootful dockerd, whose containers reach the host's loopback only through "
    "--network host, which reaches every other host too",
    "rootless": "a rootless dockerd, whose containers all share the one network RootlessKit started "
    "it with (the host's loopback disabled by default), with no per-container slirp4netns setting",
}


@functools.lru_cache(maxsize=16)
def docker_kind(client: str) -> tuple[str, str]:
    """What the ``docker`` client at ``client`` runs containers with: ``podman`` (its ``--version``
    names Podman: Debian's podman-docker), ``rootless`` or ``rootful`` (a dockerd whose ``info``
    lists ``name=rootless`` among its security options, or not), else ``unknown``; and why unknown."""

    def ask(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [client, *words], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30
        )

    try:
        if "podman" in ask("--version").stdout.lower():
            return "podman", ""
        info = ask("info", "--format", "{{json .SecurityOptions}}")
    except (OSError, subprocess.SubprocessError) as exc:
        return "unknown", str(exc)
    said = (info.stderr.strip() or info.stdout.strip()).splitlines()
    if info.returncode != 0:
        return "unknown", said[-1] if said else f"docker info exited with status {info.returncode}"
    try:
        options = json.loads(info.stdout)
    except ValueError:
        options = None
    if not isinstance(options, list):
        return "unknown", f"docker info printed {info.stdout.strip()[:200]!r}"
    return ("rootless" if "name=rootless" in options else "rootful"), ""


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
    needs = frozenset({"container"})
    config: ContainerConfig

    def __init__(self, config: ContainerConfig) -> None:
        super().__init__(config)
        self._lock = threading.Lock()
        self._proxy: _EgressProxy | None = None
        #: The runs (by name) whose commands use the proxy; it stops when the last one stops.
        self._proxied: set[str] = set()

    def unavailable(self) -> str | None:
        runtime = container_runtime(self.config.runtime)
        if runtime is None:
            wanted = self.config.runtime or "Podman or Docker"
            return f"sandbox type container needs {wanted} installed (neither found on PATH)"
        if self.config.network == "none" or Path(runtime).name == "podman":
            return None
        kind, why = docker_kind(runtime)
        if kind == "podman":  # the same words work: it runs Podman with them
            return None
        lacks = _DOCKER_LACKS.get(kind, f"not Podman, and said nothing of its daemon ({why})")
        return (
            f"sandbox type container: network {self.network} needs Podman (its slirp4netns network); "
            f"this docker is {lacks}"
        )

    @property
    def network(self) -> str:
        network = self.config.network
        return f"allow: {', '.join(network.allow)}" if isinstance(network, AllowList) else network

    def _network(self, run: SandboxRun) -> list[str]:
        network = self.config.network
        if network == "none":
            return ["--network", "none"]
        words = ["--network", _SLIRP_LOOPBACK, "--add-host", f"{HOST_ALIAS}:10.0.2.2"]
        if isinstance(network, AllowList):
            with self._lock:
                if self._proxy is None:
                    self._proxy = _EgressProxy(network)
                self._proxied.add(run.name)
                port = self._proxy.port
            url = f"http://{HOST_ALIAS}:{port}"
            for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
                words += ["--env", f"{name}={url}"]
        return words

    def command(self, run: SandboxRun) -> list[str]:
        config = self.config
        runtime = container_runtime(config.runtime)
        if runtime is None:
            raise RuntimeError(self.unavailable())
        refused = self.offline_refusal() if network_guard.active() else None
        if refused is not None:  # a suite loaded before the run went offline: never run unguarded
            raise network_guard.OfflineRefused(f"offline: {refused}")
        words = [runtime, "run", "--rm", "-i", "--name", run.name, *self._network(run)]
        if network_guard.active():  # the client would pull a missing image from its registry (H23)
            words += ["--pull", "never"]
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
        try:
            await self._remove(run)
        finally:
            await self._release_proxy(run)

    async def _release_proxy(self, run: SandboxRun) -> None:
        """Stop the proxy when ``run`` was the last run using it."""
        with self._lock:
            self._proxied.discard(run.name)
            idle, self._proxy = (self._proxy, None) if not self._proxied else (None, self._proxy)
        if idle is not None:
            await asyncio.to_thread(idle.close)

    async def _remove(self, run: SandboxRun) -> None:
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
