"""docs/reliability.md group F for the response cache: a kill mid-write, and resume after a kill (F09, F10)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.llm.cache.local import ResponseCache
from bench.testing import run_suite
from bench.testing.server import Reply
from bench.testing.verdicts import judge_verdict

# Every test here runs on both paths of the LLM client (the root conftest.py).
pytestmark = pytest.mark.usefixtures("llm_transport")

# Writes 1 MiB entries as fast as it can and prints each key once put() has returned.
WRITER = """
import sys
from pathlib import Path
from bench.llm.cache.local import ResponseCache
cache = ResponseCache(Path(sys.argv[1]))
i = 0
while True:
    cache.put(f"k{i}", {"text": str(i % 10) * (1 << 20), "i": i})
    print(i, flush=True)
    i += 1
"""


def _suite(folder: Path, tasks: int, evaluate: str = "{expected: echo}") -> Path:
    rows = "".join(f"  - {{id: t{i}, prompt: 'question {i}', evaluate: {evaluate}}}\n" for i in range(tasks))
    path = folder / "suite.yaml"
    path.write_text(f"name: cached\ntarget: {{type: litellm, model: openai/fake}}\ntasks:\n{rows}")
    return path


def test_f09_kill_while_writing_the_cache_leaves_entries_absent_or_whole(tmp_path, bench_fake_llm):
    cache_file = tmp_path / ".bench" / "cache" / "llm.sqlite3"
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(cache_file)], stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    for _ in range(5):
        done = int(writer.stdout.readline())  # entries 0..done are committed
    time.sleep(0.05)  # now mid-way through a later put()
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=10)

    db = sqlite3.connect(cache_file)
    assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    db.close()
    cache = ResponseCache(cache_file)
    stored = [cache.get(f"k{i}") for i in range(done + 200)]
    assert all(stored[i] is not None for i in range(done + 1))
    for i, value in enumerate(stored):
        assert value is None or value == {"text": str(i % 10) * (1 << 20), "i": i}
    cache.close()

    # The next run finds its own entries missing, asks the model, and stores them.
    path = _suite(tmp_path, 3)
    first = run_suite(path)
    assert first.report.summary.passed == 3
    assert bench_fake_llm.count() == 3
    again = run_suite(path)
    assert again.report.extra["llm"]["cached"] == 3
    assert bench_fake_llm.count() == 3


@pytest.mark.slow
def test_f10_resume_serves_a_task_cached_before_the_kill_from_the_cache(tmp_path, bench_fake_llm):
    judging = 'prompt: "ok? {response}", model: openai/judge'
    path = _suite(tmp_path, 3, evaluate="{" + judging + "}")
    bench_fake_llm.add(Reply("never", latency_s=60), model="judge")  # judges hang: no result is written
    command = [sys.executable, "-m", "bench", "run", path.name, "-q", "-j", "3"]
    bench = subprocess.Popen(command, cwd=tmp_path, start_new_session=True)
    deadline = time.monotonic() + 60
    while bench_fake_llm.count() < 6 and time.monotonic() < deadline:  # 3 answers cached, 3 judges asked
        time.sleep(0.05)
    os.killpg(bench.pid, signal.SIGKILL)
    bench.wait(timeout=10)
    (run_dir,) = (tmp_path / ".bench" / "runs").iterdir()
    results = run_dir / "results.jsonl"
    assert not results.exists() or results.read_text() == ""  # no task finished
    answered = [r.last_user_text for r in bench_fake_llm.requests if r.body["model"] == "fake"]
    assert sorted(answered) == ["question 0", "question 1", "question 2"]

    bench_fake_llm.rules.clear()
    bench_fake_llm.add(judge_verdict(passed=True), model="judge")
    resumed = subprocess.run(
        [*command, "--resume", run_dir.name, "-o", "out.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert resumed.returncode == 0, resumed.stderr
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["summary"]["passed"] == 3
    assert report["llm"]["cached"] == 3
    assert [r for r in bench_fake_llm.requests if r.body["model"] == "fake"][3:] == []  # 0 new target calls
