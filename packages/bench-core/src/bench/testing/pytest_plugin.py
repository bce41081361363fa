"""pytest fixtures for bench and its plugins (loaded automatically through ``pytest11``).

pytest imports this module at every start in any environment that has bench, so it imports
only pytest and the standard library; each fixture imports what it needs when it is used.

Every fixture's name starts with ``bench_`` (``bench_cli``, ``bench_suite_file``,
``bench_fake_llm``, ``bench_container_image``), so none takes a name a project's own fixtures may
use. The unprefixed ``suite_file`` and ``fake_llm`` still work for this release, with a DeprecationWarning.

Suite files become tests only when asked (``bench.testing.collect``): the ``bench_suites`` ini
option lists glob patterns of suite files, and ``--bench-suites`` collects the YAML files named
on the command line. Otherwise YAML files are left alone.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from bench.testing.collect import SuiteFile
    from bench.testing.server import FakeLLMServer

#: The API key the ``bench_fake_llm`` fixture sets: tests assert it never appears in any output.
CANARY_KEY = "sk-canary-7f3e9a1c52d84b06"


@dataclass
class CliResult:
    """The outcome of one ``bench`` command run in-process."""

    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@pytest.fixture
def bench_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., CliResult]]:
    """Run ``bench ARGS...`` in-process with the working directory set to ``tmp_path`` and the
    response cache in ``tmp_path/.bench/cache`` (never the user's own cache). What a command
    sets on the loggers (``--verbose``) is undone after the test."""
    import logging

    from typer.testing import CliRunner

    from bench.cli import app

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / ".bench" / "cache"))
    runner = CliRunner()
    before = {name: _logger_state(logging.getLogger(name)) for name in logging.root.manager.loggerDict}

    def invoke(*args: object) -> CliResult:
        result = runner.invoke(app, [str(a) for a in args], catch_exceptions=False)
        return CliResult(result.exit_code, result.stdout, result.stderr)

    yield invoke
    for name in list(logging.root.manager.loggerDict):
        logger = logging.getLogger(name)
        level, handlers, filters = before.get(name, (logging.NOTSET, [], []))
        logger.setLevel(level)
        logger.handlers[:] = handlers
        logger.filters[:] = filters


def _logger_state(logger: Any) -> tuple[int, list[Any], list[Any]]:
    return logger.level, list(logger.handlers), list(logger.filters)


@pytest.fixture
def bench_suite_file(tmp_path: Path) -> Callable[..., Path]:
    """Write a suite (dedented YAML) into the test's temp folder: ``bench_suite_file(text, name=...)``."""

    from bench.testing.running import write_suite

    def make(text: str, name: str = "suite.yaml") -> Path:
        return write_suite(tmp_path, text, name)

    return make


@pytest.fixture
def bench_fake_llm(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    """A fake OpenAI-compatible server on 127.0.0.1; litellm's ``openai/*`` models are pointed at
    it (``OPENAI_API_BASE``) with the canary key ``CANARY_KEY`` as ``OPENAI_API_KEY``."""
    from bench.testing.server import FakeLLMServer

    with FakeLLMServer() as server:
        monkeypatch.setenv("OPENAI_API_BASE", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", CANARY_KEY)
        yield server


#: The name ``bench_container_image`` imports its image under (Podman's local storage).
CONTAINER_IMAGE = "localhost/bench-test-python:latest"
#: What the image leaves out of the host's standard library (tests, IDLE, Tk, installed packages).
_SKIP_DIRS = {"test", "__pycache__", "dist-packages", "site-packages", "idlelib", "tkinter", "ensurepip"}


def _host_python() -> str:
    """The system Python of this interpreter's version, which the image is built from."""
    return f"/usr/bin/python{sys.version_info.major}.{sys.version_info.minor}"


def _libraries(binary: str) -> list[str]:
    import subprocess

    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    return [word for line in out.splitlines() for word in line.split() if word.startswith("/")]


def _rootfs(tar_path: Path, python: str) -> None:
    """A tarball of the smallest root file system that runs ``python`` and ``/bin/sh``."""
    import os
    import tarfile

    stdlib = Path(python.replace("/bin/", "/lib/"))
    with tarfile.open(tar_path, "w") as tar:
        files = {path for binary in (python, "/bin/sh") for path in [binary, *_libraries(binary)]}
        for path in sorted(files):
            tar.add(os.path.realpath(path), arcname=path.lstrip("/"))
        tar.add(
            stdlib,
            arcname=str(stdlib).lstrip("/"),
            filter=lambda i: None if set(i.name.split("/")) & _SKIP_DIRS else i,
        )
        link = tarfile.TarInfo("usr/bin/python3")
        link.type, link.linkname = tarfile.SYMTYPE, Path(python).name
        tar.addfile(link)
        for folder in ("tmp", "proc", "sys", "dev", "etc", "workspace", "bench", "suite"):
            info = tarfile.TarInfo(folder)
            info.type, info.mode = tarfile.DIRTYPE, 0o1777 if folder == "tmp" else 0o755
            tar.addfile(info)


def _probe(runtime: str) -> tuple[int, str]:
    """Run the image once the way bench's container sandbox does; its exit status and stderr."""
    import subprocess

    words = ["--network", "none", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=256:256"]
    done = subprocess.run(
        [runtime, "run", "--rm", *words, CONTAINER_IMAGE, "python3", "-c", "print('ok')"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stderr


@pytest.fixture(scope="session")
def bench_container_image(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Podman image built here with no registry: the host's own Python (its binary, the
    libraries it links, its standard library) and ``/bin/sh``, imported with ``podman import``;
    yields its name. Where no container can run on this machine the test skips, saying why.
    Where crun refuses the machine's hybrid cgroups and runc is installed, ``CONTAINERS_CONF``
    names runc while the session lasts."""
    import os
    import shutil
    import subprocess

    from bench.workspace.container import container_runtime

    runtime, python = container_runtime("podman"), _host_python()
    if runtime is None or not os.path.exists(python):
        pytest.skip(f"needs Podman and {python} (the image is built from the host's Python)")
    folder = tmp_path_factory.mktemp("image")
    _rootfs(folder / "rootfs.tar", python)
    imported = subprocess.run(
        [runtime, "import", str(folder / "rootfs.tar"), CONTAINER_IMAGE], capture_output=True, text=True
    )
    if imported.returncode != 0:
        pytest.skip(f"podman import failed: {imported.stderr.strip()}")
    saved = os.environ.get("CONTAINERS_CONF")
    code, stderr = _probe(runtime)
    if code != 0 and "hybrid mode" in stderr and shutil.which("runc"):
        # crun refuses hybrid cgroup hierarchies (some CI containers); runc runs there.
        (folder / "containers.conf").write_text('[engine]\nruntime = "runc"\n')
        os.environ["CONTAINERS_CONF"] = str(folder / "containers.conf")
        code, stderr = _probe(runtime)
    try:
        if code != 0:
            pytest.skip(f"podman cannot run a container here: {stderr.strip()}")
        yield CONTAINER_IMAGE
    finally:
        if saved is None:
            os.environ.pop("CONTAINERS_CONF", None)
        else:
            os.environ["CONTAINERS_CONF"] = saved


def _renamed(old: str, new: str) -> None:
    warnings.warn(
        f"the fixture '{old}' is deprecated and will be removed in the next release: use '{new}'",
        DeprecationWarning,
        stacklevel=2,
    )


@pytest.fixture
def suite_file(bench_suite_file: Callable[..., Path]) -> Callable[..., Path]:
    """Deprecated: the old name of ``bench_suite_file``."""
    _renamed("suite_file", "bench_suite_file")
    return bench_suite_file


@pytest.fixture
def fake_llm(bench_fake_llm: FakeLLMServer) -> FakeLLMServer:
    """Deprecated: the old name of ``bench_fake_llm``."""
    _renamed("fake_llm", "bench_fake_llm")
    return bench_fake_llm


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("bench")
    group.addoption(
        "--bench-suites",
        action="store_true",
        help="Collect the YAML files named on the command line as bench suites (one test per task).",
    )
    parser.addini(
        "bench_suites",
        type="linelist",
        help="Glob patterns of bench suite files to collect as tests, one per task (evals/*.yaml).",
    )


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> SuiteFile | None:
    if file_path.suffix not in (".yaml", ".yml") or not _is_suite(file_path, parent.config):
        return None
    from bench.testing.collect import SuiteFile

    return SuiteFile.from_parent(parent, path=file_path)


def _is_suite(path: Path, config: pytest.Config) -> bool:
    """Whether the user opted this file in: an ini pattern matches it, or it was named with
    ``--bench-suites``."""
    try:
        relative = path.relative_to(config.rootpath).as_posix()
    except ValueError:
        relative = path.as_posix()
    patterns: list[str] = config.getini("bench_suites")
    if any(fnmatch(relative, p) or fnmatch(path.name, p) for p in patterns):
        return True
    if not config.getoption("bench_suites", False):
        return False
    here = config.invocation_params.dir
    named = {(here / arg.split("::", 1)[0]).resolve() for arg in config.args}
    return path.resolve() in named
