"""bench on a local Ray cluster gives the verdicts of a local run: every offline example suite, a
10,000-task recorded suite, after a killed worker (F04) and after a killed driver and --resume (F04).

The verdict digest is ``bench.testing.verdict_digest``: each key's latest result line without the
timing fields, hashed in key order.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import bench
from bench.testing import verdict_digest

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
#: The example suites that run without a model or a network.
OFFLINE = [
    "quickstart/suite.yaml",
    "deterministic/suite.yaml",
    "scorecard/suite.yaml",
    "security/suite.yaml",
    "from-promptfoo/promptfooconfig.yaml",
    "nlp-metrics/metrics.yaml",
]
TASKS = 10_000
WORKERS = 2
#: A Ray start and each run's actors take tens of seconds on a loaded 2-core machine.
pytestmark = pytest.mark.timeout(900)


def _task(i: int) -> dict[str, object]:
    """A row of benchmarks/run_recorded.py's suite: int or str expected, 10% failing."""
    expected: object = i if i % 2 else f"item-{i}"
    response = f"The answer is {i}." if i % 2 else f"Here is item-{i}, as asked."
    if i % 10 == 0:
        response = "I do not know."
    return {
        "id": f"t{i}",
        "prompt": f"Question {i}?",
        "response": response,
        "evaluate": {"expected": expected},
    }


def recorded_suite(folder: Path, n: int) -> Path:
    rows = folder / f"tasks-{n}.jsonl"
    rows.write_text("".join(json.dumps(_task(i)) + "\n" for i in range(n)))
    suite = folder / f"recorded-{n}.yaml"
    suite.write_text(f"name: recorded-{n}\ntasks: {rows.name}\n")
    return suite


def figures(result: bench.RunResult) -> dict[str, Any]:
    """What the JSON report says about the whole run besides the tasks."""
    extra = result.report.extra
    return {
        "summary": result.summary.as_dict(),
        "statistics": extra.get("statistics"),
        "aggregates": extra.get("aggregates"),
        "pass_at_k": extra.get("pass_at_k"),
    }


def results_file(result: bench.RunResult) -> Path:
    return result.folder / "results.jsonl"


def line_count(path: Path) -> int:
    try:
        with path.open("rb") as lines:
            return sum(1 for _ in lines)
    except FileNotFoundError:
        return 0


@pytest.mark.parametrize("suite", OFFLINE)
def test_every_offline_example_gives_the_local_verdicts(suite, cluster, in_tmp):
    path = EXAMPLES / suite
    local = bench.run(path, runs_dir="local")
    ray = bench.run(path, runs_dir="ray", executor="ray", workers=WORKERS, chunk=2)
    assert verdict_digest(results_file(ray)) == verdict_digest(results_file(local))
    mine, theirs = figures(ray), figures(local)
    if suite == "nlp-metrics/metrics.yaml":  # the driver computes them from the stored rows
        assert theirs["aggregates"], "the example has suite-level figures"
    assert mine == theirs
    manifest = json.loads((ray.folder / "manifest.json").read_text())
    assert (manifest["executor"], manifest["status"]) == ("ray", "finished")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The 10,000-task recorded suite and its local run's digest and figures."""
    folder = tmp_path_factory.mktemp("recorded")
    suite = recorded_suite(folder, TASKS)
    started = time.perf_counter()
    local = bench.run(suite, runs_dir=folder / "local")
    seconds = time.perf_counter() - started
    return {
        "suite": suite,
        "digest": verdict_digest(results_file(local)),
        "figures": figures(local),
        "seconds": seconds,
    }


def test_g01_ten_thousand_recorded_tasks_give_the_local_verdicts(recorded, cluster, in_tmp):
    started = time.perf_counter()
    ray = bench.run(recorded["suite"], runs_dir="ray", executor="ray", workers=WORKERS)
    seconds = time.perf_counter() - started
    print(f"\n10k recorded tasks: local {recorded['seconds']:.1f} s, ray {seconds:.1f} s (cluster running)")
    assert line_count(results_file(ray)) == TASKS
    assert verdict_digest(results_file(ray)) == recorded["digest"]
    assert figures(ray) == recorded["figures"]


def _bench_workers() -> list[Any]:
    """This test cluster's worker actors (never another Ray run's on the same machine)."""
    import psutil

    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            if any("BenchWorker" in part for part in proc.cmdline()):
                found.append(proc)
        except psutil.Error:
            continue
    return found


def _wait_for_lines(path: Path, count: int, running: Any, timeout: float = 300) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and running():
        seen = line_count(path)
        if seen >= count:
            return seen
        time.sleep(0.02)
    raise AssertionError(f"the run did not reach {count} results (it has {line_count(path)})")


def test_f04_a_killed_worker_loses_nothing_and_duplicates_nothing(recorded, cluster, in_tmp):
    outcome: list[bench.RunResult] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(bench.run(recorded["suite"], runs_dir="runs", executor="ray", workers=WORKERS))
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 300
    while not list(Path("runs").glob("*/results.jsonl")) and time.monotonic() < deadline:
        time.sleep(0.05)
    [results] = list(Path("runs").glob("*/results.jsonl"))
    _wait_for_lines(results, 2_000, thread.is_alive)
    victims = _bench_workers()
    assert len(victims) == WORKERS, victims
    victims[0].send_signal(signal.SIGKILL)
    killed_at = line_count(results)
    thread.join(300)
    assert not failure, failure
    assert killed_at < TASKS, "the worker was killed after the run had ended"
    assert line_count(results) == TASKS  # exactly one line per task
    assert verdict_digest(results) == recorded["digest"]
    assert figures(outcome[0]) == recorded["figures"]


def test_f04_a_killed_driver_then_resume_gives_the_local_verdicts(recorded, cluster, descendants, in_tmp):
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    argv = [sys.executable, "-m", "bench", "run", str(recorded["suite"]), "-q", "--runs-dir", "runs"]
    argv += ["--executor", "ray", "--address", cluster, "--workers", str(WORKERS)]
    driver = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    descendants.roots.append(driver.pid)
    try:
        deadline = time.monotonic() + 300
        while not list(Path("runs").glob("*/results.jsonl")) and time.monotonic() < deadline:
            assert driver.poll() is None, driver.stderr.read().decode() if driver.stderr else ""
            time.sleep(0.05)
        [results] = list(Path("runs").glob("*/results.jsonl"))
        _wait_for_lines(results, 3_000, lambda: driver.poll() is None)
        descendants.sample()
        driver.send_signal(signal.SIGKILL)
        driver.wait(30)
    finally:
        if driver.poll() is None:
            driver.kill()
        if driver.stderr is not None:
            driver.stderr.close()
    kept = line_count(results)
    assert 3_000 <= kept < TASKS
    run_id = results.parent.name
    resumed = bench.run(recorded["suite"], runs_dir="runs", resume=run_id, executor="ray", workers=WORKERS)
    assert verdict_digest(results) == recorded["digest"]
    assert figures(resumed) == recorded["figures"]
    manifest = json.loads((results.parent / "manifest.json").read_text())
    assert (manifest["executor"], manifest["status"]) == ("ray", "finished")


def test_f01_ctrl_c_stops_the_driver_cleanly_and_resume_finishes(recorded, cluster, in_tmp):
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    argv = [sys.executable, "-m", "bench", "run", str(recorded["suite"]), "-q", "--runs-dir", "runs"]
    argv += ["--executor", "ray", "--address", cluster, "--workers", str(WORKERS)]
    driver = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while not list(Path("runs").glob("*/results.jsonl")) and time.monotonic() < deadline:
            time.sleep(0.05)
        [results] = list(Path("runs").glob("*/results.jsonl"))
        _wait_for_lines(results, 2_000, lambda: driver.poll() is None)
        driver.send_signal(signal.SIGINT)
        _, stderr = driver.communicate(timeout=120)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.communicate()
    assert driver.returncode == 130, stderr
    manifest = json.loads((results.parent / "manifest.json").read_text())
    assert manifest["status"] == "interrupted"
    assert line_count(results) < TASKS
    bench.run(recorded["suite"], runs_dir="runs", resume=results.parent.name, executor="ray", workers=WORKERS)
    assert verdict_digest(results) == recorded["digest"]


def _captures_suite(folder: Path) -> Path:
    """The portable-captures test's suite (bench-core): a command agent whose files are captured."""
    from bench.testing import git_repo, write_suite

    git_repo(folder / "repo", {"a.txt": "one\n"})
    agent = folder / "agent.py"
    agent.write_text(
        "from pathlib import Path\nimport os\n"
        "Path('env.txt').write_text('token=' + os.environ['DEMO_TOKEN'])\n"
        "Path('out').mkdir()\nPath('out/b.txt').write_text('b' * 5000)\nprint('done')\n"
    )
    command = json.dumps([sys.executable, str(agent)])
    return write_suite(
        folder,
        f"""
        name: ws
        repo: repo
        target: {{type: command, command: {command}}}
        defaults: {{timeout: 60}}
        post_execution_checks:
          - {{type: file_capture, path: env.txt}}
          - {{type: file_capture, path: out/b.txt, max_bytes: 1000}}
          - {{type: file_capture, path: missing.txt}}
        tasks:
          - {{id: t, prompt: go, evaluate: {{type: contains, value: done}}}}
          - {{id: u, prompt: go, repeat: 2, evaluate: {{type: contains, value: done}}}}
        """,
    )


def _captured(result: bench.RunResult) -> tuple[dict[str, bytes], dict[str, Any]]:
    """The captures folder's files, and each result's captured records (the run folder as RUN)."""
    folder = result.folder
    files = {
        str(p.relative_to(folder)): p.read_bytes() for p in (folder / "captures").rglob("*") if p.is_file()
    }
    records = {}
    for line in results_file(result).read_text().splitlines():
        row = json.loads(line.replace(str(folder), "RUN"))
        records[f"{row['id']}@{row['repeat']}"] = row["workspace"]["captured"]
    return files, records


def test_captured_files_travel_to_the_driver_and_land_as_a_local_run_writes_them(cluster, in_tmp):
    suite = _captures_suite(in_tmp)
    local = bench.run(suite, runs_dir="local")
    ray = bench.run(suite, runs_dir="ray", executor="ray", workers=WORKERS, chunk=1)
    files, records = _captured(ray)
    assert len(files) == 6  # env.txt and out/b.txt for t, u and u@1, written by the driver
    assert set(files.values()) == {b"token=[REDACTED:DEMO_TOKEN]", b"b" * 1000}  # redacted twice over
    assert (files, records) == _captured(local)
    assert "portable" not in results_file(ray).read_text()
    assert records["t@0"]["env.txt"]["stored"].startswith("RUN/captures/")


def test_a_selection_that_splits_rows_gives_the_local_verdicts(cluster, in_tmp):
    rows = [
        {"id": f"t{i}", "prompt": f"Say {i}", "repeat": 3, "evaluate": {"expected": f"Say {i}"}}
        for i in range(30)
    ]
    Path("tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    Path("suite.yaml").write_text(
        "name: split\ntargets: [{label: a, type: echo}, {label: b, type: echo}]\ntasks: tasks.jsonl\n"
    )
    select = bench.Selection(keyword="t1 or t2 or t17", sample=5, seed=4)
    local = bench.run("suite.yaml", runs_dir="local", select=select)
    ray = bench.run("suite.yaml", runs_dir="ray", select=select, executor="ray", workers=WORKERS, chunk=4)
    assert line_count(results_file(ray)) == line_count(results_file(local)) == 5 * 3
    assert verdict_digest(results_file(ray)) == verdict_digest(results_file(local))
    assert figures(ray) == figures(local)


def test_groups_are_decided_by_the_driver_as_a_local_run_decides_them(cluster, in_tmp):
    # promptfoo's max-score compares a test's rows (one per prompt column): each row ran on a
    # worker, and the driver re-decides each test's rows from the store after the tasks
    Path("promptfooconfig.yaml").write_text(
        "prompts: [{raw: 'hi {{n}}', label: short}, {raw: 'hello {{n}} from Paris', label: long}]\n"
        "providers: [echo]\n"
        "tests:\n"
        + "".join(
            f"  - {{vars: {{n: '{i}'}}, assert: [{{type: contains, value: Paris}}, {{type: max-score}}]}}\n"
            for i in range(6)
        )
    )
    local = bench.run("promptfooconfig.yaml", runs_dir="local")
    ray = bench.run("promptfooconfig.yaml", runs_dir="ray", executor="ray", workers=WORKERS, chunk=3)
    assert local.summary.as_dict() == {"total": 12, "passed": 6, "failed": 6, "errors": 0, "interrupted": 0}
    assert verdict_digest(results_file(ray)) == verdict_digest(results_file(local))
    assert figures(ray) == figures(local)
