"""A suite's ``workspace_dir``/``workspace_name``: each task's workspace made and kept in a named
run folder (``NAME-YYYY-MM-DD-MS/src-modified``), refused where it would land in its own source."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from bench.testing import git_repo, run_suite, write_suite
from bench.vocabulary.errors import InvalidSuite

PY = json.dumps(sys.executable)


pytestmark = pytest.mark.usefixtures("private_tmpdir")


def _suite(tmp_path: Path, placement: str) -> Path:
    git_repo(tmp_path / "repo", {"a.txt": "one\n"})
    agent = tmp_path / "agent.py"
    agent.write_text("from pathlib import Path\nPath('made.txt').write_text('hi')\nprint('done')\n")
    placement = placement.replace("\n", "\n        ")  # kept at the suite's indentation
    return write_suite(
        tmp_path,
        f"""
        repo: repo
        {placement}
        repeat: 2
        target: {{type: command, command: [{PY}, {json.dumps(str(agent))}]}}
        tasks:
          - id: t
            prompt: go
            evaluate: {{type: contains, value: done}}
        """,
    )


def test_workspace_dir_places_and_keeps_each_run_in_its_own_named_folder(tmp_path: Path) -> None:
    outcome = run_suite(_suite(tmp_path, "workspace_dir: ws\nworkspace_name: demo"))
    rows = list(outcome.report.tasks())
    assert [row["status"] for row in rows] == ["passed", "passed"]
    assert [row["workspace"]["escapes"] for row in rows] == [[], []]  # the run folder is not outside
    runs = sorted(p.name for p in (tmp_path / "ws").iterdir())
    assert len(runs) == 2
    assert all(re.fullmatch(r"demo-\d{4}-\d\d-\d\d-\d{13}(-2)?", name) for name in runs), runs
    for name in runs:
        assert (tmp_path / "ws" / name / "src-modified" / "made.txt").read_text() == "hi"
    assert sorted(row["workspace"]["path"] for row in rows) == [
        str(tmp_path / "ws" / name / "src-modified") for name in runs
    ]
    assert not (tmp_path / "repo" / "made.txt").exists()


def test_workspace_dir_inside_the_repository_it_copies_is_refused(tmp_path: Path) -> None:
    path = _suite(tmp_path, "workspace_dir: repo/runs")
    with pytest.raises(InvalidSuite) as caught:
        run_suite(path)
    assert str(caught.value) == (
        f"{path}:2:1: workspace_dir: repo/runs is inside the repository it copies "
        f"({tmp_path / 'repo'}): each task's copy would hold the copies before it; give a folder outside it"
    )
    assert not (tmp_path / "repo" / "runs").exists()


def test_a_workspace_name_that_could_leave_its_folder_is_refused(tmp_path: Path) -> None:
    path = _suite(tmp_path, "workspace_dir: ws\nworkspace_name: ../up")
    with pytest.raises(InvalidSuite) as caught:
        run_suite(path)
    assert "workspace_name: String should match pattern '^[a-zA-Z0-9][a-zA-Z0-9._-]*$'" in str(caught.value)
