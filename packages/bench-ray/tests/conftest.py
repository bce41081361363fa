"""One local Ray cluster for the whole test session, and the check that nothing it started outlives it.

Ray's start takes 7-20 s on a small machine, so it is paid once. While the cluster runs, a thread
records every descendant of this process (re-parented orphans no longer show up as children);
at the end each one must have exited.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.testing import CONTAINER_IMAGE

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
#: The secret the security example's agent prints (tests/test_docs.py uses the same one).
DEMO_TOKEN = "tok-5b7c9d1e3f"
#: The workers' key for bench's fake LLM server (it takes any key; never a real one).
WORKER_KEY = "sk-fake-workers-3c8e1a"


class Descendants:
    """Every process seen below this one (or below ``extra`` roots) while it watches."""

    def __init__(self) -> None:
        import psutil

        self.psutil = psutil
        self.seen: dict[int, float] = {}  # pid -> create time (a reused pid is another process)
        self.roots: list[int] = [os.getpid()]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._watch, daemon=True)
        self.thread.start()

    def sample(self) -> None:
        for root in list(self.roots):
            try:
                children = self.psutil.Process(root).children(recursive=True)
            except self.psutil.Error:
                continue
            for child in children:
                try:
                    self.seen.setdefault(child.pid, child.create_time())
                except self.psutil.Error:
                    continue

    def _watch(self) -> None:
        while not self.stop.wait(0.25):
            self.sample()

    def alive(self) -> list[object]:
        found = []
        for pid, created in self.seen.items():
            try:
                proc = self.psutil.Process(pid)
                if proc.create_time() == created and proc.status() != self.psutil.STATUS_ZOMBIE:
                    found.append(proc)
            except self.psutil.Error:
                continue
        return found


@pytest.fixture(scope="session")
def descendants() -> Descendants:
    pytest.importorskip("psutil", reason="the process checks need psutil")
    return Descendants()


@pytest.fixture(scope="session")
def worker_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cluster's workers' local response cache folder (their ``BENCH_CACHE_DIR``): no local
    run of the tests uses it."""
    return tmp_path_factory.mktemp("worker-cache")


@pytest.fixture(scope="session")
def agent_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """What the container agent example reads from its workers' environment (test_container_pool.py):
    bench.testing's test image, a port and a file outside every workspace that the agent tries to
    reach (its ``network: none`` leaves it no port to reach), and the runtime Podman needs here."""
    folder = tmp_path_factory.mktemp("agent-env")
    (folder / "secret.txt").write_text("host secret\n")
    env = {"AGENT_IMAGE": CONTAINER_IMAGE, "PROBE_PORT": "9", "PROBE_FILE": str(folder / "secret.txt")}
    hybrid = (
        Path("/sys/fs/cgroup/unified").is_dir() and not Path("/sys/fs/cgroup/cgroup.controllers").exists()
    )
    if hybrid and shutil.which("runc"):  # crun refuses hybrid cgroups (bench_container_image uses runc)
        (folder / "containers.conf").write_text('[engine]\nruntime = "runc"\n')
        env["CONTAINERS_CONF"] = str(folder / "containers.conf")
    return env


#: What the test cluster's one node advertises besides its 2 CPUs: Ray accepts a GPU and custom
#: resources on a CPU-only machine (an actor asking num_gpus=1 sees CUDA_VISIBLE_DEVICES=0 and
#: ray.get_gpu_ids() == [0]), so the worker pools' routing runs here (test_routing.py).
FAKE_GPUS = 1
FAKE_RESOURCES = {"sandbox": 1.0}


@pytest.fixture(scope="session")
def cluster(descendants: Descendants, worker_cache: Path, agent_env: dict[str, str]) -> Iterator[str]:
    """A local Ray cluster (2 CPUs, a fake GPU and one ``sandbox``); yields its address. No
    process it started outlives it."""
    ray = pytest.importorskip("ray", reason="Ray cannot be imported here: bench-ray's cluster tests skip")
    # Workers inherit the environment their node started with (docs/scale.md): the security
    # example's secret and the workers' own response cache are set before the cluster starts.
    os.environ["DEMO_TOKEN"] = DEMO_TOKEN
    workers_only = {"BENCH_CACHE_DIR": str(worker_cache), "OPENAI_API_KEY": WORKER_KEY}
    workers_only.update(agent_env)
    before = {name: os.environ.get(name) for name in workers_only}
    os.environ.update(workers_only)
    started = time.monotonic()
    try:
        ray.init(
            num_cpus=2,
            num_gpus=FAKE_GPUS,
            resources=FAKE_RESOURCES,
            include_dashboard=False,
            log_to_driver=False,
            object_store_memory=256 * 2**20,
        )
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    os.environ["BENCH_RAY_TEST_STARTUP_S"] = f"{time.monotonic() - started:.1f}"
    address = ray.get_runtime_context().gcs_address
    try:
        yield address
    finally:
        descendants.sample()
        ray.shutdown()
        descendants.stop.set()
        deadline = time.monotonic() + 30
        while descendants.alive() and time.monotonic() < deadline:
            time.sleep(0.5)
        left = descendants.alive()
        for proc in left:
            proc.kill()  # type: ignore[attr-defined]
        assert left == [], f"processes outlived the Ray cluster: {left}"


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path
