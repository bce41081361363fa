"""Workspaces on real git repositories: a fresh copy per task, the diff, captures, escapes, cleanup.

Named after RELIABILITY's cases where one applies (B08-B10 captures and file names, H08/W1/W2
hostile git configuration).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from bench.testing import commit, git_repo, run_suite, write_suite
from bench.workspace.captures import task_folder

# Behaviour that differs between Python versions: these run on every Python (noxfile.py).
pytestmark = pytest.mark.every_python

PY = sys.executable


def agent(tmp_path: Path, body: str) -> str:
    """A command-target agent: a Python script run in the workspace."""
    script = tmp_path / "agent.py"
    script.write_text("import os, sys\nfrom pathlib import Path\n" + body)
    return f"[{json.dumps(PY)}, {json.dumps(str(script))}]"


def suite(tmp_path: Path, command: str, extra: str = "", task: str = "") -> Path:
    return write_suite(
        tmp_path,
        f"""
        name: ws
        repo: repo
        target: {{type: command, command: {command}}}
        defaults: {{timeout: 20}}
        {extra}
        tasks:
          - id: t
            prompt: go
            {task}
            evaluate: {{type: contains, value: done}}
        """,
    )


def result(outcome) -> dict:
    return next(iter(outcome.report.tasks()))


def workspace_roots() -> set[str]:
    return {p for p in os.listdir(tempfile.gettempdir()) if p.startswith("bench-ws-")}


pytestmark = pytest.mark.usefixtures("private_tmpdir")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return git_repo(
        tmp_path / "repo",
        {
            "a.txt": "one\ntwo\nthree\n",
            "old.txt": "moved\n" * 20,
            "gone.txt": "bye\n",
            "img.bin": b"\x00\x01\x02",
        },
    )


def test_diff_records_renames_binary_and_deleted_files(tmp_path, repo):
    command = agent(
        tmp_path,
        "Path('a.txt').write_text('one\\nTWO\\nthree\\nfour\\n')\n"
        "os.rename('old.txt', 'new.txt')\n"
        "Path('img.bin').write_bytes(b'\\x00\\x09\\x09')\n"
        "os.unlink('gone.txt')\n"
        "Path('added.txt').write_text('fresh\\n')\n"
        "print('done')\n",
    )
    before = workspace_roots()
    ws = result(run_suite(suite(tmp_path, command)))["workspace"]
    files = {f["path"]: f for f in ws["files"]}
    assert files["a.txt"] == {"path": "a.txt", "status": "modified", "added": 2, "removed": 1}
    assert files["new.txt"] == {
        "path": "new.txt",
        "status": "renamed",
        "added": 0,
        "removed": 0,
        "old_path": "old.txt",
    }
    assert files["img.bin"] == {
        "path": "img.bin",
        "status": "modified",
        "added": 0,
        "removed": 0,
        "binary": True,
    }
    assert files["gone.txt"]["status"] == "deleted"
    assert (
        files["added.txt"]["status"] == "added"
    )  # untracked files count (youBencha's `git diff HEAD` misses them)
    assert (ws["files_changed"], ws["lines_added"], ws["lines_removed"]) == (5, 3, 2)
    assert ws["escapes"] == []
    assert (repo / "old.txt").exists()  # the source is untouched
    assert not (repo / "added.txt").exists()
    assert workspace_roots() == before  # cleaned up


def test_each_task_gets_a_fresh_copy_at_its_ref(tmp_path, repo):
    first = commit(repo, {"a.txt": "v2\n"})
    commit(repo, {"a.txt": "v3\n"})
    command = agent(
        tmp_path, "print('done', Path('a.txt').read_text().strip())\nPath('a.txt').write_text('mine\\n')\n"
    )
    path = write_suite(
        tmp_path,
        f"""
        repo: repo
        target: {{type: command, command: {command}}}
        tasks:
          - {{id: head, prompt: go, evaluate: {{type: contains, value: done v3}}}}
          - {{id: again, prompt: go, evaluate: {{type: contains, value: done v3}}}}
          - {{id: pinned, prompt: go, ref: {first}, evaluate: {{type: contains, value: done v2}}}}
        """,
    )
    outcome = run_suite(path)
    tasks = {t["id"]: t for t in outcome.report.tasks()}
    assert all(t["passed"] for t in tasks.values()), tasks
    assert tasks["pinned"]["workspace"]["base_commit"] == first


def test_b10_odd_file_names_are_handled_as_bytes(tmp_path, repo):
    command = agent(
        tmp_path,
        "Path('-rf').write_text('dash\\n')\n"
        "Path('new\\nline.txt').write_text('x\\n')\n"
        "open(os.fsencode('caf') + b'\\xe9.txt', 'w').write('latin-1 name\\n')\n"
        "print('done')\n",
    )
    ws = result(run_suite(suite(tmp_path, command)))["workspace"]
    assert sorted(f["path"] for f in ws["files"]) == ["-rf", "caf\\xe9.txt", "new\nline.txt"]


def test_h08_hostile_git_config_in_the_workspace_runs_nothing(tmp_path, repo):
    marker = tmp_path / "PWNED"
    command = agent(
        tmp_path,
        f"m = {str(marker)!r}\n"
        "cfg = Path('.git/config')\n"
        "cfg.write_text(cfg.read_text() + f'[core]\\n\\tfsmonitor = touch {m}-fsmonitor\\n\\thooksPath = hooks\\n'\n"
        "    f'[filter \"evil\"]\\n\\tclean = touch {m}-clean\\n\\tsmudge = touch {m}-smudge\\n'\n"
        "    f'[diff]\\n\\texternal = touch {m}-diff\\n')\n"
        "Path('.gitattributes').write_text('* filter=evil diff=evil\\n')\n"
        "Path('a.txt').write_text('changed\\n')\n"
        "print('done')\n",
    )
    ws = result(run_suite(suite(tmp_path, command)))["workspace"]
    assert not list(tmp_path.glob("PWNED*"))
    assert {f["path"] for f in ws["files"]} == {"a.txt", ".gitattributes"}


def test_b08_b09_captures_report_links_and_respect_both_caps(tmp_path, repo):
    command = agent(
        tmp_path,
        "Path('big.txt').write_bytes(b'x' * 3_000_000)\n"
        "Path('second.txt').write_bytes(b'y' * 900_000)\n"
        "os.symlink('/etc/passwd', 'secrets')\n"
        "print('done')\n",
    )
    extra = """post_execution_checks:
          - {type: file_capture, path: big.txt}
          - {type: file_capture, path: second.txt}
          - {type: file_capture, path: secrets}
          - {type: file_capture, path: missing.txt}
          - {type: directory_listing, path: .}
        max_capture_bytes: 1500000"""
    outcome = run_suite(suite(tmp_path, command, extra))
    ws = result(outcome)["workspace"]
    captured = ws["captured"]
    stored = Path(captured["big.txt"].pop("stored"))  # kept in the run folder
    assert captured["big.txt"] == {"exists": True, "size": 3_000_000, "truncated": True}  # 1 MiB per file
    run_folder = next((tmp_path / ".bench" / "runs").iterdir())
    assert stored == task_folder(run_folder / "captures", "t") / "big.txt"
    assert stored.read_text() == "x" * 1024 * 1024
    assert captured["second.txt"]["truncated"] is True  # only 1,500,000 - 1 MiB left in the total
    assert captured["second.txt"]["reason"] == "the run's total capture cap was reached"
    assert captured["secrets"] == {"exists": True, "link": "/etc/passwd"}  # reported, never followed
    assert captured["missing.txt"] == {"exists": False}
    assert ws["escapes"] == [{"path": "secrets", "kind": "symlink leading outside", "target": "/etc/passwd"}]
    root = tmp_path / ".bench"
    assert "root:x:0:0" not in "".join(p.read_text() for p in root.rglob("*") if p.is_file())


def test_b09_a_sparse_5_gb_file_is_not_snapshotted_whole(tmp_path, repo):
    command = agent(
        tmp_path,
        "with open('huge.bin', 'wb') as f:\n    f.truncate(5 * 1024**3)\n"
        "with open('a.txt', 'r+b') as f:\n    f.truncate(3 * 1024**3)\n"
        "Path('.gitignore').write_text('ignored.bin\\n')\n"
        "with open('ignored.bin', 'wb') as f:\n    f.truncate(1024**3)\n"
        "print('done')\n",
    )
    started = time.monotonic()
    outcome = run_suite(suite(tmp_path, command))
    assert time.monotonic() - started < 30  # hashing 8 GiB took minutes and gigabytes of memory
    task = result(outcome)
    assert task["status"] == "passed"
    files = {f["path"]: f for f in task["workspace"]["files"]}
    assert files["huge.bin"] == {
        "path": "huge.bin",
        "status": "added",
        "added": 0,
        "removed": 0,
        "truncated": True,
        "size": 5 * 1024**3,
        "reason": "larger than the 100 MiB snapshot cap: not compared",
    }
    assert files["a.txt"]["status"] == "modified"  # a tracked file that grew past the cap
    assert files["a.txt"]["size"] == 3 * 1024**3
    assert files["a.txt"]["truncated"] is True
    assert set(files) == {"huge.bin", "a.txt", ".gitignore"}  # ignored files stay ignored


def test_b09_a_huge_file_inside_a_nested_repository_leaves_the_repository_in_the_diff(tmp_path, repo):
    command = agent(
        tmp_path,
        "import subprocess\nPath('sub').mkdir()\n"
        "subprocess.run(['git', 'init', '-q', 'sub'], check=True)\n"
        "Path('sub/a.txt').write_text('x')\n"
        "subprocess.run(['git', '-C', 'sub', 'add', 'a.txt'], check=True)\n"
        "subprocess.run(['git', '-C', 'sub', '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qm', 'x'], check=True)\n"
        "with open('sub/big.bin', 'wb') as f:\n    f.truncate(101 * 1024**2)\n"
        "print('done')\n",
    )
    files = {f["path"]: f for f in result(run_suite(suite(tmp_path, command)))["workspace"]["files"]}
    assert set(files) == {"sub"}  # git records a nested repository as one commit, big file or not
    assert files["sub"]["status"] == "added"


def test_writes_outside_the_workspace_through_dotdot_or_a_symlink_are_reported(tmp_path, repo):
    command = agent(
        tmp_path,
        "Path('../escaped.txt').write_text('out')\nos.symlink('../../..', 'up')\nprint('done')\n",
    )
    ws = result(run_suite(suite(tmp_path, command)))["workspace"]
    assert ws["escapes"] == [
        {"path": "../escaped.txt", "kind": "written outside the workspace"},
        {"path": "up", "kind": "symlink leading outside", "target": "../../.."},
    ]


def test_a_hanging_agent_is_killed_at_the_timeout_and_its_workspace_removed(tmp_path, repo):
    command = agent(tmp_path, "import time\nPath('partial.txt').write_text('half')\ntime.sleep(600)\n")
    before = workspace_roots()
    started = time.monotonic()
    outcome = run_suite(suite(tmp_path, command, task="timeout: 1"))
    assert time.monotonic() - started < 15
    task = result(outcome)
    assert (task["status"], task["error"]) == ("error", "timed out after 1 s")
    assert [f["path"] for f in task["workspace"]["files"]] == ["partial.txt"]  # what it did is kept
    assert workspace_roots() == before


def test_keep_workspaces_leaves_the_copy_and_says_where(tmp_path, repo):
    command = agent(tmp_path, "Path('a.txt').write_text('kept\\n')\nprint('done')\n")
    outcome = run_suite(suite(tmp_path, command), keep_workspaces=True)
    kept = Path(result(outcome)["workspace"]["path"])
    try:
        assert (kept / "a.txt").read_text() == "kept\n"
    finally:
        shutil.rmtree(kept.parents[2])


def test_a_repository_that_cannot_be_cloned_is_a_task_error(tmp_path):
    (tmp_path / "repo").mkdir()  # a folder, but not a git repository
    outcome = run_suite(suite(tmp_path, agent(tmp_path, "print('done')\n")))
    task = result(outcome)
    assert task["status"] == "error"
    assert task["error"].startswith("workspace: git clone failed: fatal: repository")


def test_an_unknown_ref_is_a_task_error(tmp_path, repo):
    outcome = run_suite(suite(tmp_path, agent(tmp_path, "print('done')\n"), task="ref: no-such-branch"))
    assert result(outcome)["error"].startswith("workspace: git rev-parse failed")


def test_the_agent_reports_its_trajectory_and_usage(tmp_path, repo):
    command = agent(
        tmp_path,
        "import json\n"
        "call = {'id': 'c1', 'type': 'function', 'function': {'name': 'read_file', 'arguments': '{\"path\": \"a.txt\"}'}}\n"
        "lines = [{'role': 'user', 'content': sys.stdin.read()},\n"
        "         {'role': 'assistant', 'content': None, 'tool_calls': [call]},\n"
        "         {'role': 'tool', 'tool_call_id': 'c1', 'content': 'one'},\n"
        "         {'role': 'assistant', 'content': 'done'},\n"
        "         {'usage': {'prompt_tokens': 120, 'completion_tokens': 30, 'cost_usd': 0.002}}]\n"
        "Path(os.environ['BENCH_TRAJECTORY_FILE']).write_text('\\n'.join(json.dumps(x) for x in lines))\n"
        "print('done in', os.getcwd() == os.environ['BENCH_WORKSPACE'])\n",
    )
    task = result(run_suite(suite(tmp_path, command)))
    assert task["response"] == "done in True"
    assert task["tool_calls"] == [{"name": "read_file", "arguments": {"path": "a.txt"}, "id": "c1"}]
    usage = task["usage"]
    assert (usage["input_tokens"], usage["output_tokens"], usage["total_tokens"], usage["cost_usd"]) == (
        120,
        30,
        150,
        0.002,
    )


def test_a_malformed_trajectory_is_the_tasks_error(tmp_path, repo):
    command = agent(
        tmp_path,
        "Path(os.environ['BENCH_TRAJECTORY_FILE']).write_text('{\"role\": \"user\"}\\nnot json\\n')\n",
    )
    task = result(run_suite(suite(tmp_path, command)))
    assert task["error"].startswith("trajectory line 2 is not JSON")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "repo: nowhere\ntasks: [{id: t, response: x, evaluate: {expected: x}}]",
            "1:1: repo: repository nowhere is not a directory (resolved to {tmp}/nowhere)",
        ),
        (
            "repo: repo\ndefaults: {workspace: repo}\ntasks: [{id: t, response: x, evaluate: {expected: x}}]",
            "1:1: repo: give workspace or repo, not both",
        ),
        (
            "tasks: [{id: t, response: x, evaluate: {expected: x}, post_execution_checks: [{type: file_capture, path: a}]}]",
            "1:55: tasks[0].post_execution_checks: this needs a repository: give 'repo:' (here or at the top)",
        ),
        (
            "repo: repo\npost_execution_checks: [{type: file_grab, path: a}]\ntasks: [{id: t, response: x, evaluate: {expected: x}}]",
            "2:26: post_execution_checks[0].type: Input should be 'file_capture' or 'directory_listing' (got 'file_grab')",
        ),
    ],
)
def test_workspace_settings_are_checked_at_load(bench_cli, tmp_path, repo, text, message):
    path = tmp_path / "suite.yaml"
    path.write_text(text + "\n")
    outcome = bench_cli("validate", path)
    assert outcome.exit_code == 2
    assert outcome.stderr == f"error: {path}:{message.format(tmp=tmp_path)}\n"


def test_the_console_warns_about_escapes_and_says_where_kept_workspaces_are(bench_cli, tmp_path, repo):
    command = agent(tmp_path, "Path('../escaped.txt').write_text('out')\nprint('done')\n")
    outcome = bench_cli("run", suite(tmp_path, command), "--keep-workspaces")
    assert outcome.exit_code == 0, outcome.output
    assert (
        "warning: task t left its workspace: written outside the workspace: ../escaped.txt" in outcome.stdout
    )
    kept = next(line for line in outcome.stdout.splitlines() if line.startswith("workspaces kept (1): "))
    tasks = Path(kept.split(": ", 1)[1])
    assert (tasks / "1" / "work" / "a.txt").exists()
    shutil.rmtree(tasks.parent)


def test_h05_secrets_an_agent_writes_into_a_captured_file_are_redacted(tmp_path, repo, monkeypatch):
    canary = "sk-canary-7f3a9b2c4d5e6f708192a3b4"
    monkeypatch.setenv("OPENAI_API_KEY", canary)
    command = agent(tmp_path, "Path('env.txt').write_text(os.environ['OPENAI_API_KEY'])\nprint('done')\n")
    extra = "post_execution_checks: [{type: file_capture, path: env.txt}]"
    ws = result(run_suite(suite(tmp_path, command, extra)))["workspace"]
    assert Path(ws["captured"]["env.txt"]["stored"]).read_text() == "[REDACTED:OPENAI_API_KEY]"
    stored = [p.read_bytes() for p in (tmp_path / ".bench").rglob("*") if p.is_file()]
    assert not any(canary.encode() in data for data in stored)


def hanging_run(tmp_path: Path) -> tuple[subprocess.Popen[str], Path]:
    """``bench run`` in a process of its own, its agent asleep in its workspace; the agent's pid file."""
    pid_file = tmp_path / "agent.pid"
    command = agent(
        tmp_path, f"Path({str(pid_file)!r}).write_text(str(os.getpid()))\nimport time\ntime.sleep(600)\n"
    )
    suite(tmp_path, command)
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench", "run", "suite.yaml", "-q"],
        cwd=tmp_path,
        env={**os.environ, "TMPDIR": str(tmp_path / "tmp")},  # made by private_tmpdir
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 30
    while not pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pid_file.exists(), proc.stderr.read() if proc.poll() is not None else "the agent never started"
    return proc, pid_file


@pytest.mark.slow
def test_f01_an_interrupted_run_kills_the_agent_and_removes_its_workspace(tmp_path, repo):
    scratch = tmp_path / "tmp"
    proc, pid_file = hanging_run(tmp_path)
    assert [p.name for p in scratch.iterdir() if p.name.startswith("bench-ws-")]  # the workspace exists
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=10)
    assert proc.returncode == 130
    assert not [p.name for p in scratch.iterdir() if p.name.startswith("bench-ws-")]
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)


@pytest.mark.slow
def test_f20_the_workspaces_of_a_killed_run_are_removed_by_the_next_run_and_no_others(tmp_path, repo):
    from bench.workspace.roots.abandoned import hold, let_go

    scratch = tmp_path / "tmp"  # made by private_tmpdir: this process's temp folder too
    proc, pid_file = hanging_run(tmp_path)
    proc.kill()
    proc.communicate()
    killed = {p.name for p in scratch.iterdir() if p.name.startswith("bench-ws-")}
    assert len(killed) == 1
    assert (scratch / killed.pop() / "tasks" / "1" / "work" / "a.txt").is_file()
    live = scratch / "bench-ws-live"  # another run's, still running: its owner file is locked
    live.mkdir()
    held = hold(live)
    kept = scratch / "bench-ws-kept"  # kept workspaces: no owner file
    (kept / "tasks").mkdir(parents=True)
    try:
        outcome = run_suite(suite(tmp_path, agent(tmp_path, "print('done')\n")))
        assert result(outcome)["status"] == "passed"
        assert sorted(p.name for p in scratch.iterdir() if p.name.startswith("bench-ws-")) == [
            "bench-ws-kept",
            "bench-ws-live",
        ]
    finally:
        let_go(live, held)
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


def test_f21_scratch_folders_share_one_held_private_root_per_temp_folder_and_go_when_their_block_ends(
    tmp_path, monkeypatch
):
    from bench.workspace import scratch_folder

    with scratch_folder("bench-x-") as one, scratch_folder("bench-y-") as two:
        root = one.parent
        assert (root.parent, two.parent) == (tmp_path / "tmp", root)
        assert root.name.startswith("bench-scratch-")
        assert (root / ".owner").is_file()
        # a prompt file may hold secrets: no other user reads the root or a task's folder
        assert [p.stat().st_mode & 0o777 for p in (root, one, two)] == [0o700] * 3
        assert (one.name[:8], two.name[:8]) == ("bench-x-", "bench-y-")
        (one / "left.txt").write_text("x")
    assert (one.exists(), two.exists(), root.is_dir()) == (False, False, True)
    elsewhere = tmp_path / "elsewhere"  # TMPDIR changed: the next folders go there
    elsewhere.mkdir()
    monkeypatch.setenv("TMPDIR", str(elsewhere))
    monkeypatch.setattr(tempfile, "tempdir", None)
    with scratch_folder("bench-x-") as three:
        assert three.parent.parent == elsewhere


def test_f20_a_killed_runs_root_is_removed_off_the_event_loop_and_gone_when_the_run_ends(
    tmp_path, monkeypatch
):
    import threading

    from bench.workspace import checkout as checkout_module
    from bench.workspace.checkout import Workspaces

    dead = tmp_path / "tmp" / "bench-ws-dead"  # its run was killed: the owner file is not locked
    dead.mkdir()
    (dead / ".owner").touch()
    removing, release = threading.Event(), threading.Event()
    remove = checkout_module.remove_tree

    def slow_remove(path: Path) -> None:  # a mirror of gigabytes
        removing.set()
        assert release.wait(10)
        remove(path)

    monkeypatch.setattr(checkout_module, "remove_tree", slow_remove)
    workspaces = Workspaces()  # returns while the removal is still going on
    assert removing.wait(10)
    assert dead.is_dir()
    release.set()
    workspaces.close()
    assert not dead.exists()
    assert not workspaces.root.exists()


@pytest.mark.parametrize("prefix", ["", "../out-", "a/b-", ".owner", ".."])
def test_f21_a_scratch_prefix_that_is_not_a_name_is_refused_and_makes_nothing(tmp_path, prefix):
    from bench.workspace import scratch_folder

    with (
        pytest.raises(ValueError, match="is not the start of a folder's name") as refused,
        scratch_folder(prefix),
    ):
        pass
    assert str(refused.value) == f"scratch_folder: {prefix!r} is not the start of a folder's name"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["tmp"]


def test_f21_threads_asking_for_scratch_at_once_share_one_root(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from bench.workspace import scratch_folder

    def parent(_: int) -> Path:
        with scratch_folder("bench-t-") as folder:
            return folder.parent

    with ThreadPoolExecutor(8) as pool:
        parents = set(pool.map(parent, range(32)))
    [root] = (tmp_path / "tmp").iterdir()
    assert root.name.startswith("bench-scratch-")
    assert parents == {root}
    assert [p.name for p in root.iterdir()] == [".owner"]  # every task's folder went with its block
