"""youBencha eval configs: yb eval on a local folder, no agent run."""

from __future__ import annotations

from pathlib import Path

import pytest
from youbencha_helpers import bench, by_name, run

from bench import ConfigError
from bench.testing import git_repo, load_suite

EVAL = """\
name: review-output
description: Check an agent's output folder
directory: ./output
expected_directory: ./expected
evaluators:
  - name: git-diff
    config:
      assertions:
        max_files_changed: 1
  - name: expected-diff
    config:
      threshold: 0.9
"""


def _folders(root: Path, output: dict[str, str], expected: dict[str, str]) -> None:
    for folder, files in (("output", output), ("expected", expected)):
        (root / folder).mkdir(exist_ok=True)
        for name, text in files.items():
            (root / folder / name).write_text(text)


def test_a_plain_folder_skips_git_diff_and_the_outcome_is_partial(demo: Path):
    _folders(demo, {"a.txt": "1\n2\n"}, {"a.txt": "1\n2\n"})
    (demo / "eval.yaml").write_text(EVAL)
    task = run(demo / "eval.yaml")
    found = by_name(task)
    assert found["git-diff"]["reason"] == (
        "skipped: Git repository not found or not accessible "
        "(youBencha outcome: partial unless another evaluator failed)"
    )
    assert found["git-diff"]["details"]["youbencha_outcome"] == "partial"
    # the one file is equal on both sides: 1.0 >= 0.9
    assert found["expected-diff"]["passed"] is True
    assert found["expected-diff"]["score"] == 1.0
    assert task["status"] == "passed"


def test_a_skip_and_a_failure_is_failed(demo: Path):
    # a.txt: 1 of 2 lines kept, ratio 2*1/(2+2) = 0.5; b.txt only in output:
    # 0.5 / 1 - 1 / 2 = 0.0 < 0.9
    _folders(demo, {"a.txt": "1\n2\n", "b.txt": "x\n"}, {"a.txt": "1\n3\n"})
    (demo / "eval.yaml").write_text(EVAL)
    task = run(demo / "eval.yaml")
    assert by_name(task)["expected-diff"]["score"] == 0.0
    assert task["status"] == "failed"


def test_a_git_repository_root_is_diffed_against_head_untracked_files_included(demo: Path):
    output = git_repo(demo / "output", {"a.txt": "1\n"})
    (output / "a.txt").write_text("1\n2\n")
    (output / "new.txt").write_text("n\n")
    (demo / "eval.yaml").write_text(EVAL.replace("expected_directory: ./expected\n", ""))
    task = run(demo / "eval.yaml")
    found = by_name(task)
    assert found["git-diff"]["reason"] == (
        "2 changed files (+2/-0 lines) | Violations: files_changed (2) exceeds max_files_changed (1)"
    )
    assert found["expected-diff"]["reason"].startswith(
        "skipped: Expected reference directory not available or not accessible"
    )
    # the user's index is untouched: new.txt is still untracked
    import subprocess

    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=output, capture_output=True, text=True
    ).stdout
    assert "?? new.txt" in status


def test_an_eval_config_is_inline_only(demo: Path):
    _folders(demo, {}, {})
    (demo / "eval.yaml").write_text(
        EVAL.replace("  - name: expected-diff\n    config:\n      threshold: 0.9\n", "  - file: x.yaml\n")
    )
    with pytest.raises(ConfigError) as caught:
        load_suite(demo / "eval.yaml")
    assert caught.value.message == "Invalid eval configuration: evaluators.1.name: Required"


def test_a_missing_directory_is_refused(demo: Path):
    (demo / "eval.yaml").write_text(EVAL)
    with pytest.raises(ConfigError) as caught:
        load_suite(demo / "eval.yaml")
    assert caught.value.message == f"Directory not found: {demo / 'output'}"


def test_bench_run_exits_1_where_yb_eval_exits_0(demo: Path):
    _folders(demo, {"a.txt": "1\n"}, {"a.txt": "2\n"})
    (demo / "eval.yaml").write_text(EVAL)
    code, output = bench("run", "eval.yaml", cwd=demo)
    assert code == 1, output
