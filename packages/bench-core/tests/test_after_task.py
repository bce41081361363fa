"""A task's ``after_task`` command: run once the task is decided, in its workspace, with its result.

It never changes the result: a failing or hanging command is a warning on standard error.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from bench.testing import git_repo, run_suite, write_suite

PY = json.dumps(sys.executable)

#: An after-task command that records what it was given.
RECORD = """
import json, os, sys
from pathlib import Path
result = json.loads(Path(os.environ["BENCH_RESULT"]).read_text())
Path(sys.argv[1]).write_text(json.dumps({
    "cwd": os.getcwd(),
    "workspace": os.environ["BENCH_WORKSPACE"],
    "status": os.environ["BENCH_TASK_STATUS"],
    "id": os.environ["BENCH_TASK_ID"],
    "mine": os.environ["MINE"],
    "result": result,
    "agent_file": Path("made.txt").read_text(),
}))
"""


pytestmark = pytest.mark.usefixtures("private_tmpdir")


def test_after_task_runs_in_the_workspace_with_the_decided_result(tmp_path: Path) -> None:
    git_repo(tmp_path / "repo", {"a.txt": "one\n"})
    (tmp_path / "record.py").write_text(RECORD)
    (tmp_path / "agent.py").write_text(
        "from pathlib import Path\nPath('made.txt').write_text('hi')\nprint('done')\n"
    )
    seen = tmp_path / "seen.json"
    path = write_suite(
        tmp_path,
        f"""
        repo: repo
        target: {{type: command, command: [{PY}, {json.dumps(str(tmp_path / "agent.py"))}]}}
        tasks:
          - id: t
            prompt: go
            evaluate: {{type: contains, value: done}}
            after_task:
              command: [{PY}, {json.dumps(str(tmp_path / "record.py"))}, {json.dumps(str(seen))}]
              env: {{MINE: "yes"}}
        """,
    )
    outcome = run_suite(path)
    row = next(iter(outcome.report.tasks()))
    got = json.loads(seen.read_text())
    assert row["status"] == "passed"
    assert got["agent_file"] == "hi"  # the agent's workspace, before it is removed
    assert got["cwd"] == got["workspace"]
    assert Path(got["cwd"]).name != "repo"
    assert not Path(got["workspace"]).exists()  # removed after the command ran
    assert (got["status"], got["id"], got["mine"]) == ("passed", "t", "yes")
    assert got["result"]["status"] == "passed"
    assert got["result"]["evaluators"][0]["passed"] is True  # it runs after the evaluators
    assert "after_task" not in row  # it went well: nothing to keep


def test_after_task_failure_or_timeout_is_a_warning_kept_in_the_result_beside_its_verdict(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    path = write_suite(
        tmp_path,
        f"""
        target: {{type: echo}}
        tasks:
          - id: fails
            prompt: done
            evaluate: {{type: contains, value: done}}
            after_task: {{command: [{PY}, -c, "import sys; sys.exit(3)"]}}
          - id: hangs
            prompt: done
            evaluate: {{type: contains, value: done}}
            after_task: {{command: [{PY}, -c, "import time; time.sleep(60)"], timeout: 0.5}}
          - id: missing
            prompt: done
            evaluate: {{type: contains, value: done}}
            after_task: {{command: [{json.dumps(str(tmp_path / "nope"))}]}}
        """,
    )
    started = time.monotonic()
    outcome = run_suite(path)
    assert time.monotonic() - started < 20
    rows = {row["id"]: row["status"] for row in outcome.report.tasks()}
    assert rows == {"fails": "passed", "hangs": "passed", "missing": "passed"}
    kept = {row["id"]: row.get("after_task") for row in outcome.report.tasks()}
    assert kept["fails"] == "exited with code 3"
    assert kept["hangs"] == "timed out after 0.5 s"  # stored, not only printed
    err = capfd.readouterr().err
    assert "bench: after_task of fails: exited with code 3" in err
    assert "bench: after_task of hangs: timed out after 0.5 s" in err
    assert "bench: after_task of missing: exited with code 1" in err or (
        "bench: after_task of missing: cannot start" in err
    )


def test_after_task_is_refused_with_a_clear_message_when_malformed(tmp_path: Path) -> None:
    from bench.vocabulary.errors import InvalidSuite

    path = write_suite(
        tmp_path,
        """
        target: {type: echo}
        tasks:
          - id: t
            prompt: done
            evaluate: {type: contains, value: done}
            after_task: {command: []}
        """,
    )
    with pytest.raises(InvalidSuite) as caught:
        run_suite(path)
    assert str(caught.value) == (
        f"{path}:6:18: tasks[0].after_task.command: List should have at least 1 item after validation,"
        " not 0 (got [])"
    )


def test_f19_an_after_task_command_dies_with_bench_and_runs_again_on_resume(tmp_path: Path) -> None:
    """SIGKILL of bench while the command runs: the reaper kills it (PR_SET_PDEATHSIG); the task
    was not recorded, so ``--resume`` runs it again, command included."""
    import os
    import signal
    import subprocess

    marks = tmp_path / "marks"
    marks.mkdir()
    script = tmp_path / "after.py"
    script.write_text(
        "import os, sys, time\nfrom pathlib import Path\n"
        "marks = Path(sys.argv[1])\nn = len(list(marks.iterdir()))\n"
        "(marks / str(os.getpid())).write_text('')\n"
        "if n == 0:\n    time.sleep(60)\n"
    )
    path = write_suite(
        tmp_path,
        f"""
        target: {{type: echo}}
        tasks:
          - id: t
            prompt: done
            evaluate: {{type: contains, value: done}}
            after_task: {{command: [{PY}, {json.dumps(str(script))}, {json.dumps(str(marks))}]}}
        """,
    )
    runs = tmp_path / "runs"
    bench = subprocess.Popen(
        [sys.executable, "-m", "bench", "run", str(path), "--runs-dir", str(runs)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while not list(marks.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    (first,) = [int(p.name) for p in marks.iterdir()]
    bench.send_signal(signal.SIGKILL)
    bench.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(first, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("the after_task command outlived bench")
    (run_id,) = [p.name for p in runs.iterdir()]
    done = subprocess.run(
        [sys.executable, "-m", "bench", "run", str(path), "--runs-dir", str(runs), "--resume", run_id],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert len(list(marks.iterdir())) == 2  # the command ran again with the task


#: An after-task command that keeps what it was given and prints it, as a debugging script might.
DUMP = """
import json, os, sys
from pathlib import Path
text = Path(os.environ["BENCH_RESULT"]).read_text()
given = {k: v for k, v in os.environ.items() if k.startswith("BENCH_")}
Path(sys.argv[1]).write_text(json.dumps({"result": text, "bench_env": given}))
print("result:", text)
print("key:", os.environ["OPENAI_API_KEY"], file=sys.stderr)
"""


def test_h25_a_key_in_the_result_reaches_the_after_task_command_and_console_redacted(
    bench_cli, bench_suite_file, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd
) -> None:
    """The command gets the result as the store keeps it; what it prints is redacted as bench's own
    output is (it is its user's program: its environment is bench's, key included)."""
    from bench.testing.pytest_plugin import CANARY_KEY

    monkeypatch.setenv("OPENAI_API_KEY", CANARY_KEY)
    (tmp_path / "dump.py").write_text(DUMP)
    seen = tmp_path / "seen.json"
    path = bench_suite_file(
        f"""
        target: {{type: echo}}
        tasks:
          - id: t
            prompt: 'my key is ${{OPENAI_API_KEY}}'
            evaluate: {{type: contains, value: key}}
            after_task: {{command: [{PY}, {json.dumps(str(tmp_path / "dump.py"))}, {json.dumps(str(seen))}]}}
        """
    )
    outcome = bench_cli("run", path, "-o", "out.json")
    assert outcome.exit_code == 0, outcome.output
    printed = outcome.output + "".join(capfd.readouterr())
    got = json.loads(seen.read_text())
    (stored,) = (tmp_path / ".bench" / "runs").glob("*/results.jsonl")
    assert "my key is [REDACTED:OPENAI_API_KEY]" in stored.read_text()
    assert json.loads(got["result"]) == json.loads(stored.read_text().splitlines()[0])
    assert CANARY_KEY not in json.dumps(got["bench_env"])
    assert "key: [REDACTED:OPENAI_API_KEY]" in printed  # the command's own stderr
    assert "my key is [REDACTED:OPENAI_API_KEY]" in printed  # and its stdout
    assert CANARY_KEY not in printed
    written = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file() and p.suffix != ".yaml")
    assert CANARY_KEY.encode() not in written


def test_h25_output_split_anywhere_is_passed_on_whole_and_redacted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The relay's reads end anywhere (inside a key, inside a UTF-8 character); a long line without
    a newline is cut after whitespace, so the key is still whole when it is redacted."""
    import asyncio

    from bench.execution.after import task_command
    from bench.vocabulary.redact import Redactor

    secret = "tok-0123456789abcdef"
    redact = Redactor({"MY_TOKEN": secret})
    text = f"first {secret} é\n" + "word " * 10 + secret + " ü tail"
    monkeypatch.setattr(task_command, "LONG_LINE", 16)

    async def relay() -> None:
        stream = asyncio.StreamReader()
        passing = asyncio.ensure_future(task_command._relay(stream, redact))
        data = text.encode()
        for start in range(0, len(data), 7):
            stream.feed_data(data[start : start + 7])
            await asyncio.sleep(0)  # the relay reads each piece on its own
        stream.feed_eof()
        await passing

    asyncio.run(relay())
    assert capsys.readouterr().err == text.replace(secret, "[REDACTED:MY_TOKEN]")


def test_after_task_gets_a_response_with_a_lone_surrogate_as_the_store_writes_it(tmp_path: Path) -> None:
    """A Python target may answer a string UTF-8 cannot encode: the command gets the result as
    the store writes it (escaped) where serialising it raised and ended the run."""
    import asyncio

    from bench.execution.after.task_command import run_after_task
    from bench.vocabulary.models import AfterTask, Task
    from bench.vocabulary.results import TaskResult

    seen = tmp_path / "seen.json"
    copy = "import os, sys, shutil; shutil.copy(os.environ['BENCH_RESULT'], sys.argv[1])"
    task = Task(id="t", prompt="go", after_task=AfterTask(command=[sys.executable, "-c", copy, str(seen)]))
    result = TaskResult(id="t", status="passed", passed=True, response="a\ud800b")
    asyncio.run(run_after_task(task, result, None))
    assert result.after_task is None
    assert json.loads(seen.read_text())["response"] == "a\ud800b"
