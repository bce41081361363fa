"""docs/reliability.md group E: model-generated code runs in bench's sandbox and cannot harm the machine.

Each test runs hostile code through the ``code_execution`` evaluator and checks the verdict, the
time it took, and that nothing was left behind on the host (files, processes).
"""

from __future__ import annotations

import os
import textwrap
import time
import uuid
from pathlib import Path

import pytest

from bench.testing import run_evaluator
from bench.testing.processes import processes_with
from bench.vocabulary.errors import BenchError
from bench.workspace import sandbox

# Behaviour that differs between Python versions: these run on every Python (noxfile.py).
pytestmark = pytest.mark.every_python

NAMESPACES = sandbox.isolation_level() == "namespaces"
needs_namespaces = pytest.mark.skipif(
    not NAMESPACES, reason="needs root and unshare (the CI machines have both)"
)
LIMITS = {"timeout_ms": 3000, "cpu_seconds": 2}


def run_code(code: str, **settings: object):
    settings = {"type": "code_execution", **LIMITS, **settings}
    return run_evaluator(settings, f"```python\n{textwrap.dedent(code)}\n```")


def linger(marker: str) -> str:
    """Python that replaces the current process with a shell whose command line holds ``marker``."""
    return f"os.execv('/bin/sh', ['sh', '-c', 'sleep 60; echo {marker}'])"


class Watch:
    """Counts, from a thread, the most processes carrying ``marker`` seen at once."""

    def __init__(self, marker: str) -> None:
        import threading

        self.marker, self.most, self._stop = marker, 0, threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        while not self._stop.is_set():
            self.most = max(self.most, len(processes_with(self.marker)))
            time.sleep(0.05)

    def __enter__(self) -> Watch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def test_passing_and_failing_programs():
    ok = run_code("def add(a, b):\n    return a + b", test_code="assert add(2, 3) == 5")
    assert (ok.passed, ok.score) == (True, 1.0)
    assert ok.details["isolation"] == sandbox.isolation_level()
    bad = run_code("def add(a, b):\n    return a - b", test_code="assert add(2, 3) == 5")
    assert not bad.passed
    assert bad.reason.startswith("exit 1: AssertionError")
    assert "AssertionError" in bad.details["stderr"]


def test_e01_infinite_loop_is_stopped_by_the_cpu_limit_and_the_run_goes_on():
    started = time.perf_counter()
    outcome = run_code("while True: pass")
    assert time.perf_counter() - started < 5
    assert not outcome.passed
    assert outcome.reason.startswith(("killed by SIGXCPU (CPU limit 2 s exceeded)", "timed out after 3 s"))


def test_e02_sleep_hits_the_wall_clock_and_input_gets_eof():
    started = time.perf_counter()
    outcome = run_code("import time\ntime.sleep(1e9)")
    assert time.perf_counter() - started < 5
    assert outcome.reason == "timed out after 3 s"
    eof = run_code("input()")
    assert not eof.passed
    assert "EOFError" in eof.details["stderr"]


@needs_namespaces
def test_e03_fork_bomb_is_stopped_by_the_process_limit_and_nothing_is_left():
    marker = f"bomb-{uuid.uuid4().hex}"
    code = f"""
    import os, time
    n = 0
    try:
        while True:
            if os.fork() == 0:
                {linger(marker)}
            n += 1
    except OSError as exc:
        print("forks refused after", n, exc.errno)
    time.sleep(0.5)
    """
    started = time.perf_counter()
    with Watch(marker) as watch:
        outcome = run_code(code, max_processes=32)
    assert time.perf_counter() - started < 5
    assert watch.most > 0, "the forked processes were never seen"
    assert "forks refused after" in outcome.details["stdout"]
    refused_after = int(outcome.details["stdout"].split()[3])
    assert refused_after < 32
    time.sleep(0.2)
    assert processes_with(marker) == []


@needs_namespaces
def test_e04_no_network_not_even_the_hosts_loopback(bench_fake_llm):
    port = int(bench_fake_llm.url.rsplit(":", 1)[1].split("/")[0])
    code = f"""
    import socket
    for host in ("127.0.0.1", "1.1.1.1"):
        try:
            socket.create_connection((host, {port}), timeout=2)
            print(host, "CONNECTED")
        except OSError as exc:
            print(host, "refused", exc.errno)
    """
    outcome = run_code(code)
    assert "CONNECTED" not in outcome.details["stdout"]
    assert outcome.details["stdout"].count("refused") == 2
    assert outcome.details["network"] == "off"


def _write_each(targets: list[str]) -> str:
    """Sandboxed code that tries to write each path and prints "wrote" or "refused" for it."""
    return f"""
    for path in {targets!r}:
        try:
            open(path, "w").write("x")
            print("wrote", path)
        except OSError as exc:
            print("refused", path, type(exc).__name__)
    """


@needs_namespaces
def test_e05_writes_outside_the_work_folder_are_refused_or_private(tmp_path):
    marker = f"bench-escape-{uuid.uuid4().hex}"
    targets = ["../escape", f"/tmp/{marker}", os.path.expanduser(f"~/{marker}"), str(tmp_path / marker)]
    code = _write_each(targets)
    outcome = run_code(code)
    for path in targets[2:]:
        assert f"refused {path}" in outcome.details["stdout"]
    # /tmp inside the sandbox is a private tmpfs: the write succeeds there and never reaches the host.
    assert not Path(f"/tmp/{marker}").exists()
    assert not Path(os.path.expanduser(f"~/{marker}")).exists()
    assert not (tmp_path / marker).exists()


@needs_namespaces
def test_e05_world_writable_host_folders_stay_untouched():
    marker = f"bench-escape-{uuid.uuid4().hex}"
    shared = Path("/run") / marker  # a world-writable folder no list of temp folders names
    shared.mkdir(mode=0o777)
    shared.chmod(0o1777)
    folders = [shared, *(Path(p) for p in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock") if Path(p).is_dir())]
    targets = [str(folder / f"{marker}.txt") for folder in folders]
    code = _write_each(targets)
    try:
        outcome = run_code(code)
        assert f"refused {targets[0]} OSError" in outcome.details["stdout"]  # EROFS: the host is read-only
        left = [path for path in targets if Path(path).exists()]
    finally:
        for path in targets:
            Path(path).unlink(missing_ok=True)
        shared.rmdir()
    assert left == []
    assert outcome.passed, outcome.details["stderr"]


def test_e05_weaker_sandbox_says_world_writable_folders_stay_writable(monkeypatch):
    monkeypatch.setattr(sandbox, "isolation_level", lambda: "rlimits-only")
    outcome = run_code("print('hello')")
    assert outcome.details["isolation"] == "rlimits-only"
    assert (
        "world-writable host folders (/tmp, /var/tmp, /dev/shm, /run/lock) stay writable"
        in outcome.details["notes"]
    )


def test_e06_allocating_10_gb_hits_the_memory_limit():
    outcome = run_code("x = bytearray(10 * 1024**3)", memory_mb=256)
    assert not outcome.passed
    assert "MemoryError" in outcome.details["stderr"]
    assert "memory limit 256 MiB exceeded" in outcome.reason


def test_e07_printing_without_end_is_cut_and_stopped():
    started = time.perf_counter()
    outcome = run_code("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)", max_output_bytes=200_000)
    assert time.perf_counter() - started < 3
    assert outcome.reason.startswith("stopped: printed more than 200,000 bytes")
    assert outcome.details["output_truncated"] is True
    assert len(outcome.details["stdout"]) <= 2000


def test_e08_environment_is_scrubbed(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-canary-e08")
    outcome = run_code("import os\nprint(sorted(os.environ))\nprint(os.environ.get('OPENAI_API_KEY'))")
    assert "sk-canary-e08" not in outcome.details["stdout"]
    assert "OPENAI_API_KEY" not in outcome.details["stdout"]


@needs_namespaces
def test_e08_host_processes_and_bench_environment_are_not_visible(monkeypatch):
    monkeypatch.setenv("BENCH_CANARY", "canary-e08-proc")
    code = f"""
    import os
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    print("pids", len(pids))
    try:
        print(open("/proc/{os.getpid()}/environ").read())
    except OSError as exc:
        print("hidden", type(exc).__name__)
    """
    outcome = run_code(code)
    assert int(outcome.details["stdout"].split()[1]) < 10  # a fresh /proc: only the sandbox's processes
    assert "canary-e08-proc" not in outcome.details["stdout"]


@needs_namespaces
def test_e09_a_setsid_daemon_dies_with_the_sandbox():
    marker = f"daemon-{uuid.uuid4().hex}"
    code = f"""
    import os, time
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            {linger(marker)}
        os._exit(0)

    def running():
        for pid in filter(str.isdigit, os.listdir("/proc")):
            if int(pid) == os.getpid():
                continue
            try:
                if b"{marker}" in open(f"/proc/{{pid}}/cmdline", "rb").read():
                    return True
            except OSError:
                pass
        return False

    deadline = time.time() + 5  # a loaded machine may take a while to start the daemon
    while not running() and time.time() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)  # long enough for the watcher, which polls every 50 ms
    print("parent done")
    """
    with Watch(marker) as watch:
        outcome = run_code(code)
    assert outcome.passed
    assert watch.most >= 1, "the daemon was never seen"  # (a fork mid-exec may show the marker too)
    time.sleep(0.3)
    assert processes_with(marker) == []


def test_e11_file_size_limit():
    outcome = run_code("open('big', 'wb').write(b'x' * (64 * 1024 * 1024))", max_file_mb=8)
    assert not outcome.passed
    assert "File too large" in outcome.details["stderr"]


def test_e12_missing_interpreter_is_an_error_when_the_suite_is_loaded(monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(BenchError, match="node not found: install it to run javascript code"):
        run_evaluator({"type": "code_execution", "language": "javascript"}, "console.log(1)")
    with pytest.raises(BenchError, match="unsupported language 'rust'"):
        run_evaluator({"type": "code_execution", "language": "rust"}, "fn main() {}")


def test_e13_programs_run_at_most_one_per_core(tmp_path, bench_cli, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 2)  # the same bound on any machine: two at a time
    tasks = "\n".join(
        f"  - {{id: t{i}, response: 'import time; time.sleep(0.5)', evaluate: {{type: code_execution}}}}"
        for i in range(4)
    )
    (tmp_path / "suite.yaml").write_text(f"tasks:\n{tasks}\n")
    started = time.perf_counter()
    result = bench_cli("run", tmp_path / "suite.yaml", "--concurrency", "8", "--runs-dir", tmp_path / "runs")
    elapsed = time.perf_counter() - started
    assert result.exit_code == 0, result.stdout
    assert elapsed >= 0.95  # four half-second programs, two at a time: at least two rounds


HARNESS = """
import json
from main import add
results = [add(1, 2) == 3, add(10, 2) == 12]
print(json.dumps({"passed": sum(results), "failed": len(results) - sum(results)}))
"""


def test_test_command_counts_score_the_fraction_passed():
    code = "def add(a, b):\n    return a + b if a < 10 else 0"
    outcome = run_code(code, test_code=HARNESS, test_command="python test_main.py")
    assert outcome.score == 0.5
    assert outcome.details["total_tests"] == 2
    assert not outcome.passed
    assert outcome.reason == "1 of 2 tests passed; exit 0"
    lenient = run_code(code, test_code=HARNESS, test_command="python test_main.py", pass_threshold=0.5)
    assert lenient.passed
    strict = run_code(code, test_code=HARNESS, test_command="python test_main.py", scoring="all_or_nothing")
    assert strict.score == 0.0


def test_a_program_cannot_claim_test_counts_without_a_test_command():
    outcome = run_code("print('10 passed')\nraise SystemExit(1)")
    assert (outcome.passed, outcome.score) == (False, 0.0)


def test_require_isolation_refuses_a_weaker_sandbox():
    outcome = run_code("print(1)", require_isolation=True)
    if NAMESPACES:
        assert outcome.passed
    else:
        assert outcome.error == "require_isolation: no namespace sandbox here (needs root and unshare)"


def test_weaker_sandbox_still_limits_and_says_so(monkeypatch):
    monkeypatch.setattr(sandbox, "isolation_level", lambda: "rlimits-only")
    ok = run_code("print('hello')")
    assert ok.passed
    assert ok.details["isolation"] == "rlimits-only"
    assert ok.details["network"] == "on"
    assert "network and file system not isolated (needs root and unshare)" in ok.details["notes"]
    started = time.perf_counter()
    assert run_code("import time\ntime.sleep(1e9)").reason.startswith("timed out after 3 s")
    assert time.perf_counter() - started < 5


@needs_namespaces
def test_e10_killing_bench_kills_the_sandboxed_program(tmp_path):
    import signal
    import subprocess
    import sys

    marker = f"orphan-{uuid.uuid4().hex}"
    code = f"import os\\n{linger(marker)}"
    (tmp_path / "suite.yaml").write_text(
        "tasks:\n"
        f'  - id: slow\n    response: "{code}"\n'
        "    evaluate: {type: code_execution, timeout_ms: 60000, cpu_seconds: 60}\n"
    )
    bench = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bench",
            "run",
            str(tmp_path / "suite.yaml"),
            "--runs-dir",
            str(tmp_path / "runs"),
        ],
        env={**os.environ, "TMPDIR": str(tmp_path)},  # a killed run cannot remove its scratch
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while not processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(marker), "the program never started"
    bench.send_signal(signal.SIGKILL)
    bench.wait()
    deadline = time.monotonic() + 5
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(marker) == []
