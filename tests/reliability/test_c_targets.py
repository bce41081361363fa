"""docs/reliability.md group C, the parts that concern the built-in targets (C21-C23)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest

from bench.testing import run_suite, write_suite
from bench.testing.processes import processes_with
from bench.vocabulary.errors import BenchError

# Behaviour that differs between Python versions: these run on every Python (noxfile.py).
pytestmark = pytest.mark.every_python


def _command_suite(bench_suite_file, command, extra="", timeout=5):
    return bench_suite_file(
        f"""
        target: {{type: command, command: {json.dumps(command)}}}
        tasks:
          - id: t
            prompt: "hello world"
            timeout: {timeout}
            evaluate: {{expected: "hello"}}{extra}
        """
    )


def _only(outcome):
    return next(outcome.report.tasks())


def test_command_prompt_on_stdin(bench_suite_file):
    outcome = run_suite(
        _command_suite(bench_suite_file, f"{sys.executable} -c 'import sys; print(sys.stdin.read().upper())'")
    )
    task = _only(outcome)
    assert task["response"] == "HELLO WORLD"
    assert task["status"] == "failed"  # "hello" is case-sensitive


def test_command_prompt_substituted_into_argv_never_through_a_shell(bench_suite_file, tmp_path):
    marker = tmp_path / "PWNED"
    path = bench_suite_file(
        f"""
        target: {{type: command, command: ["{sys.executable}", "-c", "import sys; print(sys.argv[1])", "{{prompt}}"]}}
        tasks:
          - id: t
            prompt: "hello; touch {marker}"
            evaluate: {{expected: "touch"}}
        """
    )
    task = _only(run_suite(path))
    assert task["response"] == f"hello; touch {marker}"
    assert not marker.exists()


def test_c21_non_zero_exit_is_a_task_error_with_stderr(bench_suite_file):
    script = "import sys; sys.stderr.write('boom'); sys.exit(3)"
    task = _only(run_suite(_command_suite(bench_suite_file, [sys.executable, "-c", script])))
    assert task["status"] == "error"
    assert task["error"] == "command exited with status 3: boom"


def test_c21_non_zero_exit_with_expect_error_is_evaluated(bench_suite_file):
    path = bench_suite_file(
        f"""
        target: {{type: command, command: ["{sys.executable}", "-c", "import sys; sys.exit('bad input')"]}}
        tasks:
          - id: t
            prompt: x
            evaluate: {{expect_error: true, expected: "bad input"}}
        """
    )
    task = _only(run_suite(path))
    assert task["status"] == "passed"
    assert task["error"] == "command exited with status 1: bad input"


def test_c21_timeout_kills_the_whole_process_group(bench_suite_file, tmp_path):
    pidfile = tmp_path / "child.pid"
    script = (
        "import subprocess, sys, time; "
        f"p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
        f"open({str(pidfile)!r}, 'w').write(str(p.pid)); time.sleep(60)"
    )
    path = bench_suite_file(
        f"""
        target: {{type: command, command: ["{sys.executable}", "-c", "{script}"]}}
        tasks:
          - id: t
            prompt: x
            timeout: 1
            evaluate: {{expected: x}}
        """
    )
    started = time.monotonic()
    task = _only(run_suite(path))
    assert time.monotonic() - started < 5
    assert task["status"] == "error"
    assert task["error"] == "timed out after 1 s"
    child = int(pidfile.read_text())
    deadline = time.monotonic() + 3
    while psutil.pid_exists(child) and psutil.Process(child).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the grandchild outlived the timeout"
        time.sleep(0.05)


DAEMONS = """
import os, sys, time
marker, mode = sys.argv[1], sys.argv[2]
pids = open(sys.argv[3], "a")
def daemon(tag, detach):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            if detach:  # a well-behaved daemon: its own session, stdio on /dev/null
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
            pids.write(f"{os.getpid()}\\n")
            pids.flush()
            os.execv("/bin/sh", ["sh", "-c", f"sleep 60; echo {marker}-{tag}"])
        os._exit(0)
    os.wait()
daemon("detached", True)
daemon("holding-stdout", False)
while len(open(sys.argv[3]).read().split()) < 2:  # both daemons run before the command exits
    time.sleep(0.01)
print("hello", flush=True)
if mode == "linger":
    time.sleep(60)
"""


def _gone(pids: list[int], deadline_s: float = 5.0) -> list[int]:
    """The pids still alive (not zombies) after waiting up to ``deadline_s``."""
    deadline = time.monotonic() + deadline_s
    while True:
        alive = []
        for pid in pids:
            try:
                if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    alive.append(pid)
            except psutil.NoSuchProcess:
                continue
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.05)


def _daemon_suite(tmp_path, marker: str, mode: str, timeout: int = 20) -> tuple[Path, Path]:
    (tmp_path / "agent.py").write_text(DAEMONS)
    pidfile = tmp_path / "daemons.pid"
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"target: {{type: command, command: [{json.dumps(sys.executable)}, agent.py, {marker}, {mode}, "
        f"{json.dumps(str(pidfile))}]}}\n"
        f"tasks:\n  - {{id: t, prompt: x, timeout: {timeout}, evaluate: {{expected: hello}}}}\n"
    )
    return suite, pidfile


def _bench(tmp_path, suite: Path) -> subprocess.Popen[bytes]:
    """``bench run`` in a process of its own, its temporary folders (the command target's
    ``bench-cmd-*`` scratch, which a SIGKILL leaves behind) in ``tmp_path``, not the host's /tmp."""
    return subprocess.Popen(
        [sys.executable, "-m", "bench", "run", str(suite), "--runs-dir", str(tmp_path / "runs"), "-q"],
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def test_c21_daemons_started_by_a_command_do_not_outlive_its_task(tmp_path):
    marker = f"c21-daemon-{uuid.uuid4().hex}"
    suite, pidfile = _daemon_suite(tmp_path, marker, "exit")
    started = time.monotonic()
    bench = _bench(tmp_path, suite)
    output, _ = bench.communicate(timeout=60)
    elapsed = time.monotonic() - started
    assert bench.returncode == 0, output.decode()
    assert elapsed < 15, "the task waited for a daemon holding its stdout"
    pids = [int(line) for line in pidfile.read_text().split()]
    assert len(pids) == 2, "the daemons never started"
    assert _gone(pids) == []
    assert processes_with(marker) == []


def test_n15_a_daemon_holding_stdout_does_not_hold_the_task(tmp_path):
    marker = f"n15-daemon-{uuid.uuid4().hex}"
    suite, _ = _daemon_suite(tmp_path, marker, "exit", timeout=20)
    started = time.monotonic()
    task = _only(run_suite(suite))
    assert time.monotonic() - started < 10, "the task waited for the daemon to close stdout"
    assert (task["status"], task["response"]) == ("passed", "hello")


def test_c21_timeout_kills_daemons_that_left_the_process_group(tmp_path):
    marker = f"c21-timeout-{uuid.uuid4().hex}"
    suite, pidfile = _daemon_suite(tmp_path, marker, "linger", timeout=2)
    started = time.monotonic()
    task = _only(run_suite(suite))
    assert time.monotonic() - started < 10
    assert task["error"] == "timed out after 2 s"
    pids = [int(line) for line in pidfile.read_text().split()]
    assert len(pids) == 2, "the daemons never started"
    assert _gone(pids) == []
    assert processes_with(marker) == []


def test_c21_killing_bench_kills_the_command_and_its_daemons(tmp_path):
    marker = f"c21-orphan-{uuid.uuid4().hex}"
    suite, pidfile = _daemon_suite(tmp_path, marker, "linger", timeout=60)
    bench = _bench(tmp_path, suite)
    try:
        deadline = time.monotonic() + 30  # a loaded machine may take a while to start them all

        def started() -> list[int]:
            written = pidfile.read_text().split() if pidfile.exists() else []
            return [int(pid) for pid in written if psutil.pid_exists(int(pid))]

        while len(started()) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(started()) == 2, "the two daemons never ran"
        assert processes_with(marker), "the command is not running"
    finally:
        bench.send_signal(signal.SIGKILL)
        bench.wait()
    # the killed run's scratch is left in tmp_path (removed with it), not in the host's /tmp
    assert [p.name[:10] for p in tmp_path.glob("bench-scratch-*/bench-cmd-*")] == ["bench-cmd-"]
    pids = [int(line) for line in pidfile.read_text().split()]
    assert _gone(pids) == []
    deadline = time.monotonic() + 5
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(marker) == []


def test_f21_the_scratch_of_a_killed_run_is_removed_by_the_next_run_and_no_others(tmp_path):
    from bench.workspace.roots.abandoned import hold, let_go

    started = tmp_path / "started"
    program = f"import pathlib, time; pathlib.Path({str(started)!r}).write_text('x'); time.sleep(600)"
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"target: {{type: command, command: [{json.dumps(sys.executable)}, -c, {json.dumps(program)}]}}\n"
        "tasks:\n  - {id: t, prompt: x, timeout: 60, evaluate: {expected: hello}}\n"
    )
    bench = _bench(tmp_path, suite)
    try:
        deadline = time.monotonic() + 30
        while not started.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), "the command never ran"
    finally:
        bench.send_signal(signal.SIGKILL)
        bench.wait()
    [killed] = tmp_path.glob("bench-scratch-*")
    assert sorted(p.name for p in killed.glob("bench-cmd-*/*")) == ["messages.json", "prompt.txt"]
    live = tmp_path / "bench-scratch-live"  # another process's, still running: its owner file is locked
    live.mkdir()
    held = hold(live)
    unowned = tmp_path / "bench-scratch-unowned"  # made where flock is missing: never swept
    unowned.mkdir()
    try:
        echo = tmp_path / "echo.yaml"
        echo.write_text(
            f"target: {{type: command, command: [{json.dumps(sys.executable)}, -c, 'print(\"hello\")']}}\n"
            "tasks:\n  - {id: t, prompt: x, evaluate: {expected: hello}}\n"
        )
        output, _ = _bench(tmp_path, echo).communicate(timeout=60)
        assert b"1 passed" in output, output.decode()
        # the killed run's root is gone, and so is the new run's own (removed as it exited)
        assert sorted(p.name for p in tmp_path.glob("bench-scratch-*")) == [
            "bench-scratch-live",
            "bench-scratch-unowned",
        ]
    finally:
        let_go(live, held)


def test_c21_huge_output_is_capped_keeping_the_tail(bench_suite_file):
    path = bench_suite_file(
        f"""
        target:
          type: command
          command: ["{sys.executable}", "-c", "print('x' * 3_000_000 + 'hello')"]
          max_output_bytes: 1000
        tasks:
          - id: t
            prompt: x
            evaluate: {{expected: hello}}
        """
    )
    task = _only(run_suite(path))
    assert task["status"] == "passed"
    assert len(task["response"]) == 999  # the last 1,000 bytes, minus the trailing newline
    assert task["truncated"] is True
    assert task["truncation"] == "stdout over max_output_bytes (1000): the last 1000 bytes kept"
    assert task["response_bytes"] == 3_000_006
    assert task["response_sha256"] == hashlib.sha256(b"x" * 3_000_000 + b"hello\n").hexdigest()


def test_d02_binary_output_is_decoded_with_replacement_and_its_size_kept(bench_suite_file):
    script = "import sys; sys.stdout.buffer.write(b'ok \\xff\\xfe\\x00 end')"
    task = _only(run_suite(_command_suite(bench_suite_file, [sys.executable, "-c", script])))
    assert task["status"] == "failed"  # evaluated, never a UnicodeDecodeError
    assert task["response"] == "ok \ufffd\ufffd\x00 end"
    assert task["truncated"] is False
    assert task["response_bytes"] == 10
    assert task["response_sha256"] == hashlib.sha256(b"ok \xff\xfe\x00 end").hexdigest()


def test_c21_missing_program_is_invalid_input_before_running(bench_suite_file):
    with pytest.raises(BenchError) as info:
        run_suite(_command_suite(bench_suite_file, "no-such-program-xyz --flag"))
    assert str(info.value).endswith("target.command: command not found: no-such-program-xyz")


def test_c23_killed_by_signal_is_named(bench_suite_file):
    script = "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"
    task = _only(run_suite(_command_suite(bench_suite_file, [sys.executable, "-c", script])))
    assert task["error"] == "command killed by signal 9 (SIGKILL; possibly out of memory)"


def test_c22_python_target_errors_name_the_callable_and_type(bench_suite_file, tmp_path):
    (tmp_path / "agent.py").write_text(
        "import asyncio\n"
        "def raises(task): raise ValueError('nope')\n"
        "def returns_none(task): return None\n"
        "def returns_bytes(task): return b'x'\n"
        "def returns_dict(task): return {'text': 'x'}\n"
        "def structured(task): return {'output': 'hi', 'tool_calls': [{'name': 'f', 'arguments': {'a': 1}}]}\n"
        "async def is_async(task):\n    await asyncio.sleep(0)\n    return 'async ' + task.text\n"
    )
    results = {}
    for name in ["raises", "returns_none", "returns_bytes", "returns_dict", "structured", "is_async"]:
        path = bench_suite_file(
            f"target: {{type: python, function: 'agent:{name}'}}\n"
            "tasks:\n  - {id: t, prompt: hi, evaluate: {expected: hi}}\n",
            name=f"{name}.yaml",
        )
        results[name] = _only(run_suite(path))
    assert results["raises"]["error"] == "agent:raises raised ValueError: nope"
    assert results["returns_none"]["error"] == (
        "agent:returns_none returned NoneType; return a str, a dict with 'output', or a bench.Response"
    )
    assert results["returns_bytes"]["error"].startswith("agent:returns_bytes returned bytes;")
    assert (
        results["returns_dict"]["error"]
        == "agent:returns_dict returned a dict without 'output' (keys: ['text'])"
    )
    assert results["structured"]["tool_calls"] == [{"name": "f", "arguments": {"a": 1}, "id": None}]
    assert results["is_async"]["response"] == "async hi"


def test_c22_blocking_sync_target_does_not_stall_other_tasks(bench_suite_file, tmp_path):
    (tmp_path / "slow.py").write_text(
        "import time\ndef answer(task):\n    if task.id == 'stuck':\n        time.sleep(30)\n    return 'ok'\n"
    )
    rows = "".join(f"  - {{id: t{i}, prompt: x, evaluate: {{expected: ok}}}}\n" for i in range(5))
    path = bench_suite_file(
        "target: {type: python, function: 'slow:answer'}\n"
        "tasks:\n  - {id: stuck, prompt: x, timeout: 1, evaluate: {expected: ok}}\n" + rows
    )
    started = time.monotonic()
    outcome = run_suite(path, concurrency=2)
    assert time.monotonic() - started < 5
    assert outcome.report.summary.passed == 5
    assert outcome.report.summary.errors == 1


def test_c22_two_suites_with_an_assistant_py_each_call_their_own(tmp_path):
    """One process, two suites, each with its own ``assistant.py`` (bench.run twice, a test
    session): each suite's target is its own module, not the one imported first."""
    answers = {}
    for name in ("first", "second", "first"):
        folder = tmp_path / name
        folder.mkdir(exist_ok=True)
        (folder / "assistant.py").write_text(f"def answer(task):\n    return {name!r}\n")
        suite = write_suite(
            folder,
            "target: {type: python, function: 'assistant:answer'}\n"
            "tasks:\n  - {id: t, prompt: hi, evaluate: {expected: hi}}\n",
        )
        answers.setdefault(name, []).append(_only(run_suite(suite))["response"])
    assert answers == {"first": ["first", "first"], "second": ["second"]}


def test_recorded_file_and_task_response_precedence(bench_suite_file, tmp_path):
    (tmp_path / "responses.jsonl").write_text(
        '{"id": "a", "response": "from file"}\n{"id": "b", "response": {"output": "structured"}}\n'
    )
    path = bench_suite_file(
        """
        target: {type: recorded, file: responses.jsonl}
        tasks:
          - {id: a, evaluate: {expected: file}}
          - {id: b, evaluate: {expected: structured}}
          - {id: c, response: "own wins", evaluate: {expected: own}}
          - {id: d, evaluate: {expected: x}}
        """
    )
    tasks = {t["id"]: t for t in run_suite(path).report.tasks()}
    assert [tasks[i]["status"] for i in "abc"] == ["passed", "passed", "passed"]
    assert tasks["d"]["error"] == "no recorded response for task 'd'"


def test_echo_target_renders_vars_into_the_prompt(bench_suite_file):
    path = bench_suite_file(
        """
        target: {type: echo}
        defaults: {vars: {city: Paris}}
        tasks:
          - {id: a, prompt: "Visit {city} in {season}", vars: {season: May}, evaluate: {expected: "Visit Paris in May"}}
          - id: chat
            input: [{role: system, content: "be brief"}, {role: user, content: "hi {city}"}]
            evaluate: {expected: "hi Paris"}
          - {id: literal, prompt: 'JSON {"a": 1} and {{city}}', evaluate: {expected: '{"a": 1} and {{city}}'}}
        """
    )
    assert run_suite(path).report.summary.passed == 3
