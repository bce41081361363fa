"""Several targets in one suite (``targets:``), and ``--target`` replacing them for one run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SUITE = """\
name: multi
targets:
  - {label: same, type: echo}
  - {label: upper, type: command, command: [tr, a-z, A-Z]}
tasks:
  - {id: a, prompt: hello, evaluate: {expected: hello}}
  - {id: b, prompt: bye, target: upper, evaluate: {expected: BYE}}
"""


def _tasks(path: Path) -> dict[str, dict]:
    return {t["id"]: t for t in json.loads(path.read_text())["tasks"]}


def test_a_task_runs_on_each_target_or_on_the_one_it_names(bench_cli, bench_suite_file, tmp_path):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "-o", "out.json")
    assert result.exit_code == 1, result.stderr
    tasks = _tasks(tmp_path / "out.json")
    assert list(tasks) == ["a[same]", "a[upper]", "b"]
    assert [(t["response"], t["passed"], t["target"]) for t in tasks.values()] == [
        ("hello", True, {"type": "echo", "label": "same"}),
        ("HELLO", False, {"type": "command", "label": "upper"}),
        ("BYE", True, {"type": "command", "label": "upper"}),
    ]


def test_target_replaces_every_target_and_ignores_the_tasks_labels(bench_cli, bench_suite_file, tmp_path):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "--target", "echo", "-o", "out.json")
    assert result.exit_code == 1, result.stderr
    tasks = _tasks(tmp_path / "out.json")
    assert [(i, t["response"], t["target"]) for i, t in tasks.items()] == [
        ("a", "hello", {"type": "echo"}),
        ("b", "bye", {"type": "echo"}),
    ]
    manifest = json.loads(next((tmp_path / ".bench" / "runs").glob("*/manifest.json")).read_text())
    assert manifest["target_override"] == {"type": "echo"}


def test_target_takes_an_inline_mapping_with_paths_relative_to_the_suite(
    bench_cli, bench_suite_file, tmp_path
):
    (tmp_path / "answers.jsonl").write_text(
        '{"id": "a", "response": "hello"}\n{"id": "b", "response": "BYE"}\n'
    )
    spec = "{type: recorded, file: answers.jsonl}"
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "--target", spec, "-o", "out.json")
    assert result.exit_code == 0, result.stderr
    assert [t["response"] for t in _tasks(tmp_path / "out.json").values()] == ["hello", "BYE"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("[1]", "--target: got '[1]': "),
        ("{file: x}", "--target: the mapping has no 'type': "),
        ("{type: [", "--target: expected the node content, but found '<stream end>': "),
    ],
)
def test_a_bad_target_spec_is_refused_before_loading(bench_cli, bench_suite_file, spec, message):
    result = bench_cli("validate", bench_suite_file(SUITE), "--target", spec)
    usage = (
        "give a target type name (echo) or a mapping with 'type' ('{type: recorded, file: answers.jsonl}')"
    )
    assert result.exit_code == 2
    assert result.stderr == f"error: {message}{usage}\n"


def test_an_unknown_target_type_in_target_names_the_field(bench_cli, bench_suite_file):
    result = bench_cli("validate", bench_suite_file(SUITE), "--target", "ech")
    assert result.exit_code == 2
    assert "target.type: unknown target type 'ech'" in result.stderr


def test_a_resumed_run_must_give_the_same_target(bench_cli, bench_suite_file, tmp_path):
    suite = bench_suite_file(SUITE)
    assert bench_cli("run", suite, "-q", "--target", "echo").exit_code == 1
    (run_id,) = [p.name for p in (tmp_path / ".bench" / "runs").iterdir()]
    again = bench_cli("run", suite, "-q", "--resume", run_id)
    assert again.exit_code == 2
    assert (
        again.stderr
        == f'error: run {run_id} was started with --target \'{{"type": "echo"}}\'; resume it with the same --target\n'
    )
    assert bench_cli("run", suite, "-q", "--resume", run_id, "--target", "echo").exit_code == 1


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "target: {type: echo}\ntargets: [{label: x, type: echo}]\ntasks: [{id: a, prompt: p, evaluate: {expected: p}}]\n",
            "2:1: targets: give target or targets, not both",
        ),
        (
            "targets: [{type: echo}, {type: echo}]\ntasks: [{id: a, prompt: p, evaluate: {expected: p}}]\n",
            "1:25: targets[1].label: target label 'echo' is used twice (give each target a label)",
        ),
        (
            "targets: [{label: x, type: echo}, {label: x, type: echo}]\ntasks: [{id: a, prompt: p, evaluate: {expected: p}}]\n",
            "1:36: targets[1].label: target label 'x' is used twice",
        ),
        (
            "targets: [{label: x, type: echo}]\ntasks: [{id: a, prompt: p, target: y, evaluate: {expected: p}}]\n",
            "2:28: tasks[0].target: unknown target 'y'; the suite's targets are x",
        ),
        (
            "target: {type: echo}\ntasks: [{id: a, prompt: p, target: y, evaluate: {expected: p}}]\n",
            "2:28: tasks[0].target: the task names target 'y', but the suite has no 'targets:'",
        ),
    ],
)
def test_targets_refusals(bench_cli, bench_suite_file, body, message):
    suite = bench_suite_file(body)
    result = bench_cli("validate", suite)
    assert result.exit_code == 2
    assert result.stderr == f"error: {suite}:{message}\n"


def test_the_docs_example_runs_as_its_comments_say(bench_cli, bench_suite_file, tmp_path):
    text = (Path(__file__).resolve().parents[1] / "docs" / "suites.md").read_text()
    section = text[text.index("### Several targets") :]
    block = section[section.index("```yaml\n") + 8 : section.index("```\n", section.index("```yaml"))]
    result = bench_cli("run", bench_suite_file(block), "-q", "-o", "out.json")
    assert result.exit_code == 1, result.stderr
    assert [(i, t["passed"]) for i, t in _tasks(tmp_path / "out.json").items()] == [
        ("a[same]", True),
        ("a[upper]", False),
        ("b", True),
    ]


def test_a_target_without_a_label_is_named_by_its_model_or_type(bench_cli, bench_suite_file, tmp_path):
    body = "targets: [{type: echo}, {type: command, command: [rev]}]\ntasks: [{id: a, prompt: ab, evaluate: {expected: ab}}]\n"
    assert bench_cli("run", bench_suite_file(body), "-q", "-o", "out.json").exit_code == 1
    assert list(_tasks(tmp_path / "out.json")) == ["a[echo]", "a[command]"]


def test_target_naming_a_label_runs_that_target_only(bench_cli, bench_suite_file, tmp_path):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "--target", "upper", "-o", "out.json")
    assert result.exit_code == 1, result.stderr
    tasks = _tasks(tmp_path / "out.json")
    assert [(i, t["response"]) for i, t in tasks.items()] == [("a[upper]", "HELLO"), ("b", "BYE")]
    same = bench_cli("run", bench_suite_file(SUITE), "-q", "--target", "same", "-o", "same.json")
    assert same.exit_code == 0, same.stderr
    assert list(_tasks(tmp_path / "same.json")) == ["a[same]"]  # b runs on upper only


def test_several_recorded_targets_each_answer_from_their_own_file(bench_cli, bench_suite_file, tmp_path):
    # The file is keyed by the task's id as the suite writes it, not by the run's id 'one[A]'.
    (tmp_path / "a.jsonl").write_text('{"id": "one", "response": "paris"}\n{"id": "two", "response": "4"}\n')
    (tmp_path / "b.jsonl").write_text('{"id": "one", "response": "lyon"}\n{"id": "two", "response": "4"}\n')
    body = (
        "targets:\n"
        "  - {type: recorded, label: A, file: a.jsonl}\n"
        "  - {type: recorded, label: B, file: b.jsonl}\n"
        "tasks:\n"
        "  - {id: one, prompt: capital?, evaluate: {expected: paris}}\n"
        "  - {id: two, prompt: 2+2?, evaluate: {expected: '4'}}\n"
    )
    result = bench_cli("run", bench_suite_file(body), "-q", "-o", "out.json")
    assert result.exit_code == 1, result.stderr
    assert [(i, t["response"], t["passed"]) for i, t in _tasks(tmp_path / "out.json").items()] == [
        ("one[A]", "paris", True),
        ("one[B]", "lyon", False),
        ("two[A]", "4", True),
        ("two[B]", "4", True),
    ]


def test_a_command_named_through_a_symlink_runs_as_that_name(bench_cli, bench_suite_file, tmp_path):
    """A virtual environment's ``bin/python`` is a symlink whose path decides which packages the
    interpreter sees: the program keeps the path it was named by, made absolute, not the link's target."""
    real = tmp_path / "real"
    real.mkdir()
    (real / "prog.sh").write_text('#!/bin/sh\nprintf %s "$(basename "$0")"\n')
    (real / "prog.sh").chmod(0o755)
    (tmp_path / "link.sh").symlink_to(real / "prog.sh")
    suite = "name: s\ntarget: {type: command, command: [./link.sh]}\ntasks: [{id: a, prompt: x, evaluate: {expected: link.sh}}]\n"
    result = bench_cli("run", bench_suite_file(suite), "-q", "-o", "out.json")
    assert result.exit_code == 0, result.stderr
    assert _tasks(tmp_path / "out.json")["a"]["response"] == "link.sh"
