"""git-diff and expected-diff: youBencha's figures, by hand and on real repositories."""

from __future__ import annotations

import json
import math
import sys

import pytest

from bench import Response
from bench.testing import commit, git_repo, run_evaluator, run_suite, write_suite
from bench_agent.diffs import change_entropy
from bench_agent.expected import compare


def recorded(*files: tuple[str, int, int]) -> Response:
    return Response(
        output="ok",
        artifacts={
            "diff": {
                "files": [{"path": p, "status": "modified", "added": a, "removed": r} for p, a, r in files]
            }
        },
    )


def test_change_entropy_matches_youbencha_by_hand():
    assert change_entropy([]) == 0.0
    assert change_entropy([{"added": 10, "removed": 0}]) == 0.0  # one file: concentrated
    assert change_entropy([{"added": 3, "removed": 1}, {"added": 2, "removed": 2}]) == pytest.approx(1.0)
    four = [{"added": 1, "removed": 0}] * 4
    assert change_entropy(four) == pytest.approx(2.0)  # log2(4)
    expected = -(2 / 7 * math.log2(2 / 7) + 5 / 7 * math.log2(5 / 7))
    assert change_entropy(
        [{"added": 1, "removed": 1}, {"added": 5, "removed": 0}, {"added": 0, "removed": 0}]
    ) == (pytest.approx(expected))


def test_git_diff_reports_every_violation_like_youbencha():
    settings = {
        "name": "git-diff",
        "config": {"assertions": {"max_files_changed": 1, "max_lines_added": 4, "max_change_entropy": 0.5}},
    }
    outcome = run_evaluator(settings, recorded(("a.py", 3, 1), ("b.py", 2, 2)))
    assert not outcome.passed
    assert outcome.reason == (
        "2 changed files (+5/-3 lines) | Violations: files_changed (2) exceeds max_files_changed (1); "
        "lines_added (5) exceeds max_lines_added (4); change_entropy (1.00) exceeds max_change_entropy (0.5)"
    )
    assert outcome.score == 0.0
    assert outcome.details["total_changes"] == 8


def test_git_diff_passes_within_limits_and_scores_the_share_met():
    outcome = run_evaluator(
        {"type": "git-diff", "max_files_changed": 3, "min_change_entropy": 1.5}, recorded(("a", 1, 0))
    )
    assert (outcome.passed, outcome.score) == (False, 0.5)
    assert outcome.reason.endswith("change_entropy (0.00) below min_change_entropy (1.5)")


def test_git_diff_without_a_diff_says_what_it_needs():
    outcome = run_evaluator({"type": "git-diff", "max_files_changed": 1}, "text only")
    assert outcome.error == (
        "git-diff needs the task's workspace diff: give the task a repo: (bench records the agent's change), "
        "or a recorded response with artifacts.diff"
    )


def test_git_diff_limits_flat_and_nested_cannot_both_be_given(bench_cli, bench_suite_file):
    path = bench_suite_file(
        "tasks:\n  - id: a\n    response: x\n    evaluate:\n      type: git-diff\n"
        "      max_files_changed: 1\n      assertions: {max_files_changed: 2}\n"
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert "max_files_changed is given both flat and under assertions" in result.stderr


def agent_writing(tmp_path, files: dict[str, str]) -> str:
    script = tmp_path / "agent.py"
    body = "".join(f"Path({name!r}).write_text({text!r})\n" for name, text in files.items())
    script.write_text(f"from pathlib import Path\n{body}print('done')\n")
    return json.dumps([sys.executable, str(script)])


def test_base_commit_diffs_against_an_older_commit_of_the_repository(tmp_path):
    repo = git_repo(tmp_path / "repo", {"a.txt": "1\n"})
    base = commit(repo, {"b.txt": "2\n"})
    commit(repo, {"c.txt": "3\n"})
    command = agent_writing(tmp_path, {"d.txt": "4\n"})
    path = write_suite(
        tmp_path,
        f"""
        repo: repo
        target: {{type: command, command: {command}}}
        tasks:
          - id: t
            prompt: go
            evaluate:
              - {{name: since-start, type: git-diff, max_files_changed: 1}}
              - {{name: since-base, type: git-diff, base_commit: {base}, max_files_changed: 1}}
              - {{name: bad-base, type: git-diff, base_commit: nope}}
        """,
    )
    task = next(iter(run_suite(path).report.tasks()))
    start, since_base, bad = task["evaluators"]
    assert (start["passed"], start["details"]["files_changed"]) == (True, 1)
    assert (since_base["passed"], since_base["details"]["files_changed"]) == (False, 2)  # c.txt and d.txt
    assert since_base["details"]["base_commit"] == base
    assert bad["error"].startswith("git-diff: base_commit nope: git rev-parse failed")


def test_expected_diff_aggregate_by_hand():
    same = {"a.py": b"x\ny\n", "b.py": b"1\n2\n3\n4\n"}
    assert compare(same, dict(same))["aggregate_similarity"] == 1.0
    half = compare({"a.py": b"x\ny\n", "b.py": b"1\n2\n"}, {"a.py": b"x\ny\n", "b.py": b"1\n9\n"})
    assert half["aggregate_similarity"] == pytest.approx((1 + 0.5) / 2)  # difflib ratio 2*1/4 = 0.5
    extra = compare({"a.py": b"x\n", "new.py": b"n\n"}, {"a.py": b"x\n", "gone.py": b"g\n"})
    assert extra["aggregate_similarity"] == pytest.approx(1 - 2 / 3)  # one added, one removed of three
    assert (extra["files_added"], extra["files_removed"], extra["files_matched"]) == (1, 1, 1)
    assert compare({}, {})["aggregate_similarity"] == 1.0
    assert compare({"a": b"1"}, {"b": b"1"})["aggregate_similarity"] == 0.0


def test_expected_diff_against_a_reference_branch_with_ignore_patterns(tmp_path):
    repo = git_repo(tmp_path / "repo", {"calc.py": "def add(a, b):\n    return a - b\n"})
    commit(repo, {"calc.py": "def add(a, b):\n    return a + b\n", "poetry.lock": "x\n"}, branch="solution")
    command = agent_writing(tmp_path, {"calc.py": "def add(a, b):\n    return a + b\n"})
    path = write_suite(
        tmp_path,
        f"""
        repo: repo
        target: {{type: command, command: {command}}}
        tasks:
          - id: t
            prompt: go
            evaluate:
              - {{name: strict, type: expected-diff, reference_branch: solution}}
              - {{name: lenient, type: expected-diff, reference_branch: solution, ignore_patterns: ["*.lock"]}}
              - {{name: wrong-branch, type: expected-diff, reference_branch: nope}}
        """,
    )
    strict, lenient, wrong = next(iter(run_suite(path).report.tasks()))["evaluators"]
    assert strict["score"] == 0.5  # calc.py matches; poetry.lock only in the reference: 1 - 1/2
    assert strict["reason"] == "Similarity: 50.0% | Files: 1 matched, 0 changed | 1 removed"
    assert (lenient["passed"], lenient["score"]) == (True, 1.0)
    assert wrong["error"].startswith("expected-diff: reference_branch nope: git archive failed")


def test_expected_diff_needs_a_reference_folder_that_exists(bench_cli, bench_suite_file):
    path = bench_suite_file(
        "tasks:\n  - id: a\n    response: x\n    workspace: .\n"
        "    evaluate: {type: expected-diff, reference_dir: missing}\n"
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert (
        "reference_dir missing is not a folder [evaluator 'expected-diff' from bench-agent]" in result.stderr
    )
