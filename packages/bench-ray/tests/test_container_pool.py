"""The container agent example (examples/agent/container.yaml) on the test cluster with a default
pool and a container pool: the agent runs only on the container pool's worker, with the verdicts,
the diff and the trajectory of a local run.

Where it ran is read from the processes themselves: while the Ray run lasts, a thread notes each
``podman run`` of the test image below this process and the Ray worker that started it; the
cluster's actor table then says which resources that worker asked for (Ray's state API needs the
dashboard, which the test cluster does not start).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import bench
from bench.testing import verdict_digest

pytest.importorskip("bench_ray", reason="bench-ray is not installed (its own nox session installs it)")

pytestmark = pytest.mark.timeout(300)

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "agent"
#: The container pool: one worker, which alone has the cluster's one ``sandbox``.
POOLS = {
    "pool.container.workers": "1",
    "pool.container.num_cpus": "0.5",
    "pool.container.resource.sandbox": "1",
}


@contextmanager
def podman_runs(image: str) -> Iterator[dict[int, int]]:
    """Each ``podman run`` of ``image`` below this process while the block lasts (its pid), with
    the Ray worker that started it (the pid of its nearest ``ray::`` ancestor; 0: none; -1: a run
    of another image)."""
    import psutil

    seen: dict[int, int] = {}
    stop = threading.Event()
    failed: list[BaseException] = []  # the watcher's own error fails the test, not a warning

    def worker_of(proc: Any) -> int:
        return next((p.pid for p in proc.parents() if p.name().startswith("ray::")), 0)

    def watch() -> None:
        try:
            look()
        except BaseException as exc:
            failed.append(exc)

    def look() -> None:
        while not stop.wait(0.02):
            for proc in psutil.Process().children(recursive=True):
                try:
                    words = proc.cmdline()
                    if (
                        proc.pid not in seen
                        and words[:1]
                        and Path(words[0]).name == "podman"
                        and words[1:2] == ["run"]
                    ):
                        seen[proc.pid] = worker_of(proc) if image in words else -1
                except psutil.Error:
                    continue

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        stop.set()
        thread.join()
    if failed:
        raise failed[0]


def asked_for(pid: int) -> set[str]:
    """The resources the cluster's bench worker with process ``pid`` asked Ray for."""
    from ray._private.state import state
    from ray.core.generated.gcs_pb2 import ActorTableData

    rows = [
        ActorTableData.FromString(raw)
        for raw in state._connect_and_get_accessor().get_actor_table(None, None)
    ]
    [row] = [r for r in rows if r.pid == pid and r.class_name == "BenchWorker"]
    return set(row.required_resources)


def _recorded(results: Path) -> dict[str, dict[str, Any]]:
    """Each task's verdicts, answer, diff and trajectory."""
    found = {}
    for line in results.read_text().splitlines():
        row = json.loads(line)
        found[row["id"]] = {
            "verdicts": [(e["type"], e["passed"]) for e in row["evaluators"]],
            "response": row["response"],
            "diff": row["workspace"],
            "trajectory": [row["tool_calls"], row["trajectory"]],
        }
    return found


def test_the_container_agent_runs_only_on_the_container_pool_with_the_local_verdicts(
    bench_container_image, cluster, agent_env, in_tmp, monkeypatch
):
    if os.environ.get("CONTAINERS_CONF") and "CONTAINERS_CONF" not in agent_env:
        pytest.skip("Podman needs runc here (CONTAINERS_CONF), which the cluster's workers were not given")
    shutil.copytree(EXAMPLE, in_tmp / "agent", ignore=shutil.ignore_patterns("repo", ".bench"))
    subprocess.run([sys.executable, str(in_tmp / "agent" / "make_repo.py")], check=True, capture_output=True)
    for name, value in agent_env.items():  # as the workers have them (conftest.py)
        monkeypatch.setenv(name, value)
    suite = in_tmp / "agent" / "container.yaml"
    local = bench.run(suite, runs_dir="local")
    with podman_runs(bench_container_image) as runs:
        ray = bench.run(suite, runs_dir="ray", executor="ray", workers=1, executor_options=POOLS)
    assert verdict_digest(ray.folder / "results.jsonl") == verdict_digest(local.folder / "results.jsonl")
    recorded = _recorded(ray.folder / "results.jsonl")
    assert recorded == _recorded(local.folder / "results.jsonl")
    [task] = recorded.values()
    assert len(task["verdicts"]) == 4
    assert all(passed for _, passed in task["verdicts"]), task["verdicts"]
    assert task["response"] == "Fixed add(). loopback: error; outside file: error"  # network: none
    assert task["diff"]["files"] == [{"path": "calc.py", "status": "modified", "added": 1, "removed": 1}]
    assert [call["name"] for call in task["trajectory"][0]] == [
        "read_file",
        "run_command",
        "run_command",
        "write_file",
    ]
    assert len(runs) == len(recorded), runs  # one container per agent task, each seen
    workers = set(runs.values())
    assert not workers & {0, -1}, runs  # each one of the image, started by a Ray worker, not this driver
    assert [asked_for(pid) for pid in workers] == [{"CPU", "sandbox"}]
