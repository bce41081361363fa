"""docs/reliability.md group F: interrupted runs, killed runs and resume."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from bench.testing import run_suite
from bench.vocabulary.errors import StoreError
from bench.vocabulary.store import RunStore

# Behaviour that differs between Python versions: these run on every Python (noxfile.py).
pytestmark = pytest.mark.every_python

N_TASKS = 40


def _slow_suite(tmp_path: Path, seconds: float = 0.05, hold_from: int | None = None) -> Path:
    """A suite of N_TASKS tasks of ``seconds`` each; with ``hold_from``, tasks from that index on
    wait until the file ``release`` exists, so they are surely in flight when a signal lands."""
    (tmp_path / "slow_agent.py").write_text(
        "import os, time\n"
        "def answer(task):\n"
        "    with open('calls.log', 'a') as log:\n"
        "        log.write(task.id + '\\n')\n"
        f"    time.sleep({seconds})\n"
        f"    while {hold_from!r} is not None and int(task.id[1:]) >= {hold_from!r} and not os.path.exists('release'):\n"
        "        time.sleep(0.01)\n"
        "    return 'answer ' + task.id\n"
    )
    rows = "".join(
        f"  - {{id: t{i:02d}, prompt: q, evaluate: {{expected: answer}}}}\n" for i in range(N_TASKS)
    )
    path = tmp_path / "suite.yaml"
    path.write_text("name: slow\ntarget: {type: python, function: 'slow_agent:answer'}\ntasks:\n" + rows)
    return path


def _bench(tmp_path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bench", "run", "suite.yaml", "-q", "-j", "2", *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _wait_for_lines(results: Path, n: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if results.exists() and results.read_text().count("\n") >= n:
            return
        time.sleep(0.02)
    raise AssertionError(f"fewer than {n} results after {timeout} s")


def _wait_for_a_task_in_flight(tmp_path: Path, results: Path, timeout: float = 30) -> None:
    """Until more tasks have started (calls.log) than have finished (results)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        started = (tmp_path / "calls.log").read_text().count("\n")
        if started > results.read_text().count("\n"):
            return
        time.sleep(0.01)
    raise AssertionError(f"no task in flight within {timeout} s")


def _run_dir(tmp_path: Path, timeout: float = 30) -> Path:
    runs = tmp_path / ".bench" / "runs"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        folders = list(runs.iterdir()) if runs.is_dir() else []
        if folders:
            (folder,) = folders
            return folder
        time.sleep(0.02)
    raise AssertionError("the run folder never appeared")


def _resume(tmp_path: Path, run_id: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench", "run", "suite.yaml", "-q", "--resume", run_id, "-o", "out.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.slow
def test_f04_sigkill_midway_then_resume_runs_each_task_exactly_once(tmp_path):
    _slow_suite(tmp_path)
    proc = _bench(tmp_path)
    run_dir = _run_dir(tmp_path)
    _wait_for_lines(run_dir / "results.jsonl", 10)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    kept = run_dir.joinpath("results.jsonl").read_text().count("\n")
    assert 10 <= kept < N_TASKS

    done = _resume(tmp_path, run_dir.name)
    assert done.returncode == 0, done.stderr
    assert f"resuming run {run_dir.name}: {kept} kept, {N_TASKS - kept} to run" in done.stderr

    lines = [json.loads(x) for x in run_dir.joinpath("results.jsonl").read_text().splitlines()]
    ids = [line["id"] for line in lines]
    assert sorted(ids) == [f"t{i:02d}" for i in range(N_TASKS)]  # each exactly once
    report = json.loads((tmp_path / "out.json").read_text())
    assert [t["id"] for t in report["tasks"]] == [f"t{i:02d}" for i in range(N_TASKS)]
    assert report["summary"] == {"total": 40, "passed": 40, "failed": 0, "errors": 0, "interrupted": 0}
    calls = (tmp_path / "calls.log").read_text().split()
    assert len(calls) - N_TASKS <= 2  # only the tasks in flight at the kill were redone
    manifest = json.loads(run_dir.joinpath("manifest.json").read_text())
    assert manifest["status"] == "finished"


def _signal_stops_cleanly_and_says_how_to_resume(tmp_path: Path, sig: signal.Signals) -> None:
    # Tasks from t05 on wait for a release that comes only after the signal, so tasks are surely
    # in flight when it lands (on a loaded CI machine, timing alone did not make sure of it).
    _slow_suite(tmp_path, hold_from=5)
    proc = _bench(tmp_path)
    run_dir = _run_dir(tmp_path)
    _wait_for_lines(run_dir / "results.jsonl", 5)
    _wait_for_a_task_in_flight(tmp_path, run_dir / "results.jsonl")
    started = time.monotonic()
    proc.send_signal(sig)
    stdout, _ = proc.communicate(timeout=10)
    assert time.monotonic() - started < 5
    assert proc.returncode == 130
    assert (
        f"interrupted; finish it with: bench run suite.yaml --concurrency 2 --quiet --resume {run_dir.name}"
        in stdout
    )
    manifest = json.loads(run_dir.joinpath("manifest.json").read_text())
    assert manifest["status"] == "interrupted"
    statuses = [json.loads(x)["status"] for x in run_dir.joinpath("results.jsonl").read_text().splitlines()]
    assert "interrupted" in statuses

    (tmp_path / "release").touch()
    done = _resume(tmp_path, run_dir.name)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out.json").read_text())
    assert sorted(t["id"] for t in report["tasks"]) == [f"t{i:02d}" for i in range(N_TASKS)]
    assert {t["status"] for t in report["tasks"]} == {"passed"}


@pytest.mark.slow
def test_f01_sigint_stops_cleanly_and_says_how_to_resume(tmp_path):
    _signal_stops_cleanly_and_says_how_to_resume(tmp_path, signal.SIGINT)


@pytest.mark.slow
def test_f03_sigterm_stops_cleanly_and_says_how_to_resume(tmp_path):
    _signal_stops_cleanly_and_says_how_to_resume(tmp_path, signal.SIGTERM)


@pytest.mark.slow
def test_f01_the_resume_hint_pasted_resumes_the_run_with_its_options(tmp_path):
    # The run's options matter to its resume: another runs folder, vars the prompts use.
    (tmp_path / "held.py").write_text(
        "import os, time\n"
        "def answer(task):\n"
        "    with open('calls.log', 'a') as log:\n"
        "        log.write(task.id + '\\n')\n"
        "    while task.id != 't0' and not os.path.exists('release'):\n"
        "        time.sleep(0.01)\n"
        "    return task.prompt\n"
    )
    rows = "".join(
        f"  - {{id: t{i}, prompt: 'hi {{who}}', evaluate: {{expected: hi ann}}}}\n" for i in range(4)
    )
    (tmp_path / "suite.yaml").write_text(
        "name: held\ntarget: {type: python, function: 'held:answer'}\ntasks:\n" + rows
    )
    options = ["-q", "-j", "1", "--var", "who=ann", "--runs-dir", "my runs"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench", "run", "suite.yaml", *options],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    runs = tmp_path / "my runs"
    deadline = time.monotonic() + 30
    while not (runs.is_dir() and any(runs.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.02)
    (run_dir,) = runs.iterdir()
    _wait_for_lines(run_dir / "results.jsonl", 1)
    _wait_for_a_task_in_flight(tmp_path, run_dir / "results.jsonl")
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    (hint,) = [line for line in stdout.splitlines() if line.startswith("interrupted; finish it with: ")]
    command = shlex.split(hint.removeprefix("interrupted; finish it with: "))
    assert command[:3] == ["bench", "run", "suite.yaml"]
    assert command[-2:] == ["--resume", run_dir.name]

    (tmp_path / "release").touch()
    done = subprocess.run(
        [sys.executable, "-m", "bench", *command[1:]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert f"resuming run {run_dir.name}: 1 kept, 3 to run" in done.stderr
    assert "4 tasks: 4 passed, 0 failed, 0 errors" in done.stdout


def _leftovers(session: int) -> list[psutil.Process]:
    """Processes still alive in the session bench was started in (its workers, say)."""
    found = []
    for process in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if os.getsid(process.pid) == session and process.status() != psutil.STATUS_ZOMBIE:
                found.append(process)
    return found


def _assert_resume_runs_each_task_once(tmp_path: Path, run_dir: Path, ids: list[str]) -> None:
    done = _resume(tmp_path, run_dir.name)
    assert done.returncode == 0, done.stderr
    report = json.loads((tmp_path / "out.json").read_text())
    assert [t["id"] for t in report["tasks"]] == ids
    assert {t["status"] for t in report["tasks"]} == {"passed"}
    lines = [json.loads(x) for x in run_dir.joinpath("results.jsonl").read_text().splitlines()]
    finished = sorted(line["id"] for line in lines if line["status"] != "interrupted")
    assert finished == sorted(ids)  # each task finished exactly once, across both runs


def _stop_within_2_s(proc: subprocess.Popen[str], sig: signal.Signals) -> str:
    started = time.monotonic()
    proc.send_signal(sig)
    try:
        stdout, stderr = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raise
    elapsed = time.monotonic() - started
    assert proc.returncode == 130, stderr
    assert elapsed < 2, f"bench took {elapsed:.1f} s to stop"
    assert _leftovers(proc.pid) == []
    return stdout


N_BUSY = 20_000


@pytest.mark.scale  # a size or load test: once, on 3.11
@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["sigint", "sigterm"])
def test_n03_signal_stops_a_cpu_bound_20000_task_recorded_suite_within_2_s(tmp_path, sig):
    ids = [f"t{i}" for i in range(N_BUSY)]
    rows = "".join(
        json.dumps({"id": i, "response": "ok", "evaluate": {"expected": "ok"}}) + "\n" for i in ids
    )
    (tmp_path / "tasks.jsonl").write_text(rows)
    (tmp_path / "suite.yaml").write_text("name: busy\ntasks: tasks.jsonl\n")
    proc = _bench(tmp_path)
    run_dir = _run_dir(tmp_path)
    _wait_for_lines(run_dir / "results.jsonl", 2_560)
    stdout = _stop_within_2_s(proc, sig)
    assert (
        f"interrupted; finish it with: bench run suite.yaml --concurrency 2 --quiet --resume {run_dir.name}"
        in stdout
    )
    assert json.loads(run_dir.joinpath("manifest.json").read_text())["status"] == "interrupted"
    assert run_dir.joinpath("results.jsonl").read_text().count("\n") < N_BUSY
    _assert_resume_runs_each_task_once(tmp_path, run_dir, ids)


def _words(seed: int, n: int) -> str:
    return " ".join(f"w{(i * seed) % 997}" for i in range(n))


@pytest.mark.scale  # a size or load test: once, on 3.11
@pytest.mark.slow
def test_n06_sigint_stops_a_run_blocked_in_rouge_on_two_6000_word_texts_within_2_s(tmp_path):
    # ROUGE-Lsum on two long one-line texts is rouge-score's quadratic table in pure Python:
    # seconds per task, off the event loop (bench's own ROUGE-L takes milliseconds).
    evaluate = {"type": "rouge", "rouge_type": "rougeLsum", "reference": _words(13, 6_000), "threshold": 0.0}
    rows = "".join(
        json.dumps({"id": f"t{i}", "response": _words(7, 6_000), "evaluate": evaluate}) + "\n"
        for i in range(4)
    )
    (tmp_path / "tasks.jsonl").write_text(rows)
    (tmp_path / "suite.yaml").write_text("name: blocked\ntasks: tasks.jsonl\n")
    proc = _bench(tmp_path)
    run_dir = _run_dir(tmp_path)
    deadline = time.monotonic() + 30
    while not _spinning(proc.pid) and time.monotonic() < deadline:  # a worker is inside ROUGE
        time.sleep(0.05)
    _stop_within_2_s(proc, signal.SIGINT)
    assert json.loads(run_dir.joinpath("manifest.json").read_text())["status"] == "interrupted"
    _assert_resume_runs_each_task_once(tmp_path, run_dir, [f"t{i}" for i in range(4)])


_HANG_PLUGIN = """
from bench import Evaluator, Result
from bench.hookspecs import hookimpl


class Hang(Evaluator):
    name = "hang"

    def evaluate(self, sample):
        while sample.output == "hang":
            pass
        return Result(passed=True)


@hookimpl
def bench_register_evaluators(register):
    register(Hang)
"""


def _with_plugin(tmp_path: Path, module: str, source: str) -> dict[str, str]:
    """An environment in which bench finds one more evaluator plugin (an installed distribution)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / f"{module}.py").write_text(source)
    info = site / f"{module}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[bench]\n{module} = {module}\n")
    return {**os.environ, "PYTHONPATH": str(site)}


_ISOLATED_HANG_PLUGIN = _HANG_PLUGIN.replace(
    '    name = "hang"\n', '    name = "hang"\n    isolate_above = 0\n'
)


def _spinning(pid: int) -> bool:
    """Whether a child of ``pid`` has run the hanging evaluator for a while (a busy worker)."""
    with contextlib.suppress(psutil.Error):
        return any(child.cpu_times().user > 0.3 for child in psutil.Process(pid).children())
    return False


@pytest.mark.slow
def test_n10_sigkill_to_bench_takes_its_evaluator_worker_processes_with_it(tmp_path):
    (tmp_path / "suite.yaml").write_text("tasks:\n  - {id: z, response: hang, evaluate: {type: hang}}\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench", "run", "suite.yaml", "-q"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=_with_plugin(tmp_path, "bench_test_hang", _ISOLATED_HANG_PLUGIN),
    )
    try:
        deadline = time.monotonic() + 30
        while not _spinning(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _spinning(proc.pid), "no worker process is running the evaluator"
        proc.kill()  # bench alone, as the OOM killer would: not its process group
        proc.wait(timeout=10)
        deadline = time.monotonic() + 2
        while _leftovers(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _leftovers(proc.pid) == []
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.mark.slow
def test_f02_second_sigint_exits_at_once_and_every_written_line_is_intact(tmp_path):
    rows = "".join(f"  - {{id: t{i}, response: ok, evaluate: {{type: hang}}}}\n" for i in range(30))
    (tmp_path / "suite.yaml").write_text(
        f"name: stuck\ntasks:\n{rows}  - {{id: z, response: hang, evaluate: {{type: hang}}}}\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench", "run", "suite.yaml", "-q", "-j", "1"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=_with_plugin(tmp_path, "bench_test_hang", _HANG_PLUGIN),
    )
    run_dir = _run_dir(tmp_path)
    _wait_for_lines(run_dir / "results.jsonl", 30)
    time.sleep(0.3)  # the last task is stuck in a plugin that never returns
    proc.send_signal(signal.SIGINT)
    time.sleep(0.3)
    assert proc.poll() is None  # the first Ctrl-C waits for the task in flight
    _stop_within_2_s(proc, signal.SIGINT)
    text = run_dir.joinpath("results.jsonl").read_text()
    assert text.endswith("\n")
    assert [json.loads(line)["id"] for line in text.splitlines()] == [f"t{i}" for i in range(30)]


def test_n11_one_sigint_stops_a_run_stuck_in_a_plugins_uninterruptible_code(tmp_path):
    rows = "".join(f"  - {{id: t{i}, response: ok, evaluate: {{expected: ok}}}}\n" for i in range(5))
    (tmp_path / "suite.yaml").write_text(
        f"name: stuck\ntasks:\n{rows}  - {{id: z, response: hang, evaluate: {{type: hang}}}}\n"
    )
    env = _with_plugin(tmp_path, "bench_test_hang", _HANG_PLUGIN)
    command = [sys.executable, "-m", "bench", "run", "suite.yaml", "-q", "-j", "1"]
    proc = subprocess.Popen(
        command,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        env=env,
    )
    run_dir = _run_dir(tmp_path)
    _wait_for_lines(run_dir / "results.jsonl", 5)
    time.sleep(0.3)  # the last task is stuck in a plugin that never returns
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        _, stderr = proc.communicate(timeout=10)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130
    assert time.monotonic() - started < 4  # the 2 s the loop gets to answer, plus the exit
    assert (
        "bench: the run did not stop within 2 s (a task is stuck in code that cannot be interrupted); "
        f"exiting now: the results written so far are kept, finish the run with --resume {run_dir.name}"
    ) in stderr
    assert [json.loads(line)["id"] for line in (run_dir / "results.jsonl").read_text().splitlines()] == [
        f"t{i}" for i in range(5)
    ]
    (tmp_path / "suite.yaml").write_text(
        f"name: stuck\ntasks:\n{rows}  - {{id: z, response: hang, evaluate: {{expected: hang}}}}\n"
    )
    resumed = subprocess.run(
        [*command, "--resume", run_dir.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "5 kept, 1 to run" in resumed.stderr


def _quick_suite(tmp_path: Path, expected: str = "a") -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: quick\ntasks:\n"
        f"  - {{id: one, response: a, evaluate: {{expected: {expected}}}}}\n"
        "  - {id: two, response: b, evaluate: {expected: b}}\n"
    )
    return path


def test_f05_torn_last_line_is_set_aside_and_its_task_rerun(tmp_path):
    path = _quick_suite(tmp_path)
    first = run_suite(path)
    results = first.folder / "results.jsonl"
    lines = results.read_text().splitlines()
    results.write_text(lines[0] + "\n" + lines[1][:20])  # killed in the middle of the second write
    again = run_suite(path, resume=first.report.run_id)
    assert again.resumed is not None
    assert again.resumed.kept == 1
    assert again.to_run == 1
    assert (first.folder / "results.torn.jsonl").read_text() == lines[1][:20] + "\n"
    assert [t["id"] for t in again.report.tasks()] == ["one", "two"]


def test_f06_edited_task_is_rerun_on_resume(tmp_path):
    first = run_suite(_quick_suite(tmp_path, expected="a"))
    again = run_suite(_quick_suite(tmp_path, expected="zzz"), resume=first.report.run_id)
    assert again.resumed is not None
    assert (again.resumed.kept, again.resumed.changed) == (1, 1)
    assert again.report.summary.failed == 1


def test_f07_second_process_on_the_same_run_is_refused(tmp_path):
    first = run_suite(_quick_suite(tmp_path))
    runs = tmp_path / ".bench" / "runs"
    holder = RunStore.open_existing(runs, first.report.run_id)
    try:
        with pytest.raises(StoreError) as info:
            RunStore.open_existing(runs, first.report.run_id)
        assert str(info.value) == f"run {first.report.run_id} is in use by PID {os.getpid()}"
    finally:
        holder.close()


def test_f07_a_run_locked_by_filelock_is_refused(tmp_path):
    # The run folder's lock is the lock file's flock, as filelock (which earlier versions used,
    # and which still takes it where there is no flock) holds it: each refuses the other.
    from filelock import FileLock

    first = run_suite(_quick_suite(tmp_path))
    runs = tmp_path / ".bench" / "runs"
    (first.folder / "pid").write_text("4242")
    with FileLock(str(first.folder / "lock"), timeout=0), pytest.raises(StoreError) as info:
        RunStore.open_existing(runs, first.report.run_id)
    assert str(info.value) == f"run {first.report.run_id} is in use by PID 4242"
    RunStore.open_existing(runs, first.report.run_id).close()  # released: it opens again


@pytest.mark.parametrize("no_flock", ["no fcntl module", "flock is ENOSYS"])
def test_f07_without_flock_the_run_is_still_locked(tmp_path, monkeypatch, no_flock):
    # Windows has no fcntl; some network file systems no flock: filelock locks the run there.
    import errno
    import fcntl

    if no_flock == "no fcntl module":
        monkeypatch.setitem(sys.modules, "fcntl", None)
    else:

        def missing(fd, operation):
            raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS))

        monkeypatch.setattr(fcntl, "flock", missing)
    first = run_suite(_quick_suite(tmp_path))
    runs = tmp_path / ".bench" / "runs"
    holder = RunStore.open_existing(runs, first.report.run_id)
    try:
        assert type(holder._held).__module__.startswith("filelock")
        assert holder._held.is_locked
        with pytest.raises(StoreError) as info:
            RunStore.open_existing(runs, first.report.run_id)
        assert str(info.value) == f"run {first.report.run_id} is in use by PID {os.getpid()}"
    finally:
        holder.close()
    RunStore.open_existing(runs, first.report.run_id).close()  # released: it opens again


def test_f08_unknown_run_lists_the_runs_found(bench_cli, tmp_path):
    first = run_suite(_quick_suite(tmp_path))
    result = bench_cli("run", "suite.yaml", "--resume", "nope")
    assert result.exit_code == 2
    assert result.stderr == f"error: no run 'nope' in .bench/runs (runs found: {first.report.run_id})\n"


def test_f08_corrupt_manifest(bench_cli, tmp_path):
    first = run_suite(_quick_suite(tmp_path))
    (first.folder / "manifest.json").write_text("{not json")
    result = bench_cli("run", "suite.yaml", "--resume", first.report.run_id)
    assert result.exit_code == 2
    assert f"error: run {first.report.run_id}: manifest.json is unreadable" in result.stderr


def test_large_suites_are_rebuilt_lazily_and_run_the_same(tmp_path, monkeypatch):
    from bench.suite.plan import TaskList

    path = tmp_path / "suite.yaml"
    rows = "".join(f"  - {{id: t{i}, response: 'n {i}', evaluate: {{expected: {i}}}}}\n" for i in range(30))
    path.write_text("tasks:\n" + rows)
    kept = run_suite(path)
    monkeypatch.setattr(TaskList, "KEEP_LIMIT", 10)
    from bench.suite.loader import load_suite

    assert not load_suite(path).tasks.kept
    lazy = run_suite(path)
    strip = lambda t: {k: v for k, v in t.items() if k != "duration_ms"}  # noqa: E731
    assert [strip(t) for t in lazy.report.tasks()] == [strip(t) for t in kept.report.tasks()]
    assert lazy.report.summary.passed == 30


def test_f11_a_failing_disk_stops_the_run_with_exit_4_and_keeps_what_was_written(tmp_path):
    import resource

    first = run_suite(_quick_suite(tmp_path, expected="zzz"))
    _quick_suite(tmp_path, expected="a")  # a task edited since: the resume has to run it again
    results = first.folder / "results.jsonl"
    with results.open("a") as padding:  # blank lines are skipped on read; they make the file big
        padding.write("\n" * 20_000)
    kept = results.read_bytes()

    def limit_file_size() -> None:  # any write past the current size fails: EFBIG, like a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (len(kept), len(kept)))

    done = subprocess.run(
        [sys.executable, "-m", "bench", "run", "suite.yaml", "-q", "--resume", first.report.run_id],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        preexec_fn=limit_file_size,
    )
    assert done.returncode == 4, done.stderr
    assert done.stderr.endswith(
        f"error: cannot write results to .bench/runs/{first.report.run_id}/results.jsonl: File too large\n"
    )
    assert results.read_bytes() == kept  # nothing torn, nothing lost
    assert json.loads((first.folder / "manifest.json").read_text())["status"] == "failed"


def test_results_that_are_not_a_regular_file_are_refused(bench_cli, tmp_path):
    first = run_suite(_quick_suite(tmp_path))
    results = first.folder / "results.jsonl"
    results.unlink()
    results.symlink_to("/dev/zero")
    result = bench_cli("run", "suite.yaml", "--resume", first.report.run_id)
    assert result.exit_code == 2
    relative = f".bench/runs/{first.report.run_id}/results.jsonl"
    assert result.stderr == f"error: run {first.report.run_id}: {relative} is not a regular file\n"
