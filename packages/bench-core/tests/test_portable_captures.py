"""Portable captures (docs/scale.md): captured files travel in the result, redacted where the
task ran, and the process owning the run store writes them (``land_captures``), redacted again.
The files and the results are the same as when the runner writes them itself."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.execution import local
from bench.execution.runner import Runner
from bench.testing import git_repo, run_suite, write_suite
from bench.workspace.captures import PORTABLE

CANARY = "sk-canary-7f3a9b2c4d5e6f708192a3b4"
TIMING = ("duration_ms", "usage")


class PortableRunner(Runner):
    """The runner as a worker would run it: nothing written to a captures folder."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs["captures_dir"] = None
        kwargs["portable_captures"] = True
        super().__init__(*args, **kwargs)


def _run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, portable: bool
) -> tuple[dict[str, bytes], list[Any]]:
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    if portable:
        monkeypatch.setattr(local, "Runner", PortableRunner)
    git_repo(tmp_path / "repo", {"a.txt": "one\n"})
    agent = tmp_path / "agent.py"
    agent.write_text(
        "import os\nfrom pathlib import Path\n"
        "Path('env.txt').write_text('key=' + os.environ['OPENAI_API_KEY'])\n"
        "Path('out').mkdir()\nPath('out/b.txt').write_text('b' * 5000)\n"
        "os.symlink('/etc/passwd', 'link')\nprint('done')\n"
    )
    command = json.dumps([sys.executable, str(agent)])
    suite = write_suite(
        tmp_path,
        f"""
        name: ws
        repo: repo
        target: {{type: command, command: {command}}}
        defaults: {{timeout: 20}}
        post_execution_checks:
          - {{type: file_capture, path: env.txt}}
          - {{type: file_capture, path: out/b.txt, max_bytes: 1000}}
          - {{type: file_capture, path: link}}
          - {{type: file_capture, path: missing.txt}}
        tasks:
          - {{id: t, prompt: go, evaluate: {{type: contains, value: done}}}}
          - {{id: u, prompt: go, repeat: 2, evaluate: {{type: contains, value: done}}}}
        """,
    )
    run_suite(suite)
    run = next((tmp_path / ".bench" / "runs").iterdir())
    files = {str(p.relative_to(run)): p.read_bytes() for p in (run / "captures").rglob("*") if p.is_file()}
    lines = []
    for line in (run / "results.jsonl").read_text().splitlines():
        result = {k: v for k, v in json.loads(line).items() if k not in TIMING}
        result["workspace"]["base_commit"] = "BASE"  # each run's repository is committed anew
        text = json.dumps(result).replace(str(run), "RUN").replace(str(tmp_path), "ROOT")
        lines.append(json.loads(text))
    return files, sorted(lines, key=lambda r: (r["id"], r["repeat"]))  # tasks finish in any order


def test_portable_captures_write_the_same_files_and_results_as_local_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = _run(tmp_path / "local", monkeypatch, portable=False)
    portable = _run(tmp_path / "portable", monkeypatch, portable=True)
    files, lines = portable
    assert len(files) == 6  # env.txt and out/b.txt for t, u and u@1
    assert set(files.values()) == {b"key=[REDACTED:OPENAI_API_KEY]", b"b" * 1000}
    assert portable == local
    assert PORTABLE not in json.dumps(lines)
    captured = lines[0]["workspace"]["captured"]
    assert captured["env.txt"]["stored"].startswith("RUN/captures/")
    assert captured["link"] == {"exists": True, "link": "/etc/passwd"}


def test_carried_captures_are_redacted_where_they_were_taken() -> None:
    from bench.workspace.captures import carry_captures

    files = {
        "a.txt": {"exists": True, "content": f"key {CANARY}", "size": 40, "truncated": False},
        "link": {"exists": True, "link": "/etc/passwd", "content": ""},
        "../up": {"exists": True, "content": "x", "size": 1, "truncated": False},
    }
    carry_captures(files, lambda text: text.replace(CANARY, "[REDACTED]"))
    assert files["a.txt"][PORTABLE] == "key [REDACTED]"
    assert PORTABLE not in files["link"]  # never written anywhere
    assert PORTABLE not in files["../up"]


def test_a_result_landed_from_elsewhere_has_its_carried_captures_written(tmp_path: Path) -> None:
    # A worker's result reaches the driver as a line (Sink.land): its carried captures are written
    # under the run's captures folder, redacted again, and the line keeps where, not the text.
    from bench.execution.sink import StoreSink, serialize_result, statistics_row
    from bench.scoring.run_stats import StatsCollector
    from bench.vocabulary.results import Summary, TaskResult
    from bench.vocabulary.store import RunStore
    from bench.workspace.captures import carry_captures, task_folder

    files = {"a.txt": {"exists": True, "content": f"key {CANARY}", "size": 40, "truncated": False}}
    carry_captures(files, None)  # the worker's environment did not know the secret
    result = TaskResult(id="t", repeat=1, status="passed", passed=True, workspace={"captured": files})
    store = RunStore.create(tmp_path / "runs")
    landed: list[TaskResult] = []
    sink = StoreSink(
        store, lambda text: text.replace(CANARY, "[REDACTED]"), Summary(), StatsCollector(False),
        landed.append, lambda: None,
    )  # fmt: skip
    try:
        sink.land(serialize_result(result), "passed", statistics_row(result, False))
    finally:
        store.close()
    written = task_folder(store.folder / "captures", "t@1") / "a.txt"
    assert written.read_text() == "key [REDACTED]"
    [line] = store.results_path.read_text().splitlines()
    assert PORTABLE not in line
    assert json.loads(line)["workspace"]["captured"]["a.txt"]["stored"] == str(written)
    assert landed[0].workspace == json.loads(line)["workspace"]
