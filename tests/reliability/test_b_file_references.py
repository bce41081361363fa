"""docs/reliability.md group B and seed 001: evaluator definition files referenced with ``file:``."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench.suite.loader import load_suite
from bench.vocabulary.errors import BenchError

DEFINITION = """
name: polite
description: Opens politely.
config:
  type: expected
  expected: {regex: "^(Sure|Certainly)"}
"""


def _suite(tmp_path: Path, ref: str, folder: str = "testcases") -> Path:
    path = tmp_path / folder / "suite.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "tasks:\n"
        "  - id: a\n"
        "    response: Sure, here it is.\n"
        f"    evaluate: [{{file: {ref}}}, {{expected: here}}]\n"
    )
    return path


def test_definition_resolved_relative_to_the_referencing_file(tmp_path):
    (tmp_path / "evaluators").mkdir()
    (tmp_path / "evaluators" / "polite.yaml").write_text(DEFINITION)
    plan = load_suite(_suite(tmp_path, "../evaluators/polite.yaml"))
    names = [(e.name, e.type) for e in plan.tasks[0].evaluators]
    assert names == [("polite", "expected"), ("expected", "expected")]
    assert plan.referenced_files == [(tmp_path / "evaluators" / "polite.yaml").resolve()]


def test_b02_same_result_from_another_working_directory(tmp_path, monkeypatch):
    (tmp_path / "evaluators").mkdir()
    (tmp_path / "evaluators" / "polite.yaml").write_text(DEFINITION)
    suite = _suite(tmp_path, "../evaluators/polite.yaml")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    plan = load_suite(os.path.relpath(suite, elsewhere))
    assert plan.tasks[0].evaluators[0].name == "polite"


def test_absolute_definition_path(tmp_path):
    definition = tmp_path / "shared" / "polite.yaml"
    definition.parent.mkdir()
    definition.write_text(DEFINITION)
    plan = load_suite(_suite(tmp_path, str(definition)))
    assert plan.tasks[0].evaluators[0].origin == f"{definition}:2"


def test_b01_missing_definition_says_failed_to_load(tmp_path):
    suite = _suite(tmp_path, "./evaluators/missing.yaml")
    with pytest.raises(BenchError) as info:
        load_suite(suite)
    resolved = tmp_path / "testcases" / "evaluators" / "missing.yaml"
    assert str(info.value) == (
        f"{suite}:4:17: tasks[0].evaluate[0].file: Failed to load evaluator definition from "
        f"./evaluators/missing.yaml: no such file (resolved to {resolved})"
    )


def test_definition_without_name_is_invalid(tmp_path):
    definition = tmp_path / "noname.yaml"
    definition.write_text("description: x\nconfig: {type: expected, expected: a}\n")
    with pytest.raises(BenchError) as info:
        load_suite(_suite(tmp_path, str(definition)))
    assert str(info.value) == f"{definition}:1:1: Invalid evaluator definition: name: Required"


def test_name_and_file_together_is_an_error(tmp_path):
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "tasks:\n  - id: a\n    response: x\n    evaluate:\n"
        "      - name: git-diff\n        file: ./evaluators/git-diff.yaml\n"
    )
    with pytest.raises(BenchError) as info:
        load_suite(suite)
    assert str(info.value) == f"{suite}:5:9: tasks[0].evaluate[0]: Evaluator config with both name and file"


def test_b04_definition_referencing_another_is_rejected_with_the_chain(tmp_path):
    first = tmp_path / "a.yaml"
    first.write_text("name: a\nconfig:\n  file: ./b.yaml\n")
    (tmp_path / "b.yaml").write_text(DEFINITION)
    with pytest.raises(BenchError) as info:
        load_suite(_suite(tmp_path, str(first)))
    assert str(info.value) == (
        f"{first}:3:3: config.file: a definition file cannot reference another definition file "
        f"({first} -> ./b.yaml)"
    )


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: p.write_bytes(b"\xff\xfe\x00binary"), "not UTF-8 text (invalid byte at offset 0)"),
        (lambda p: p.write_bytes(b"x" * (10 * 1024 * 1024 + 1)), "larger than 10 MiB"),
        (lambda p: os.mkfifo(p), "is not a regular file"),
    ],
    ids=["directory", "binary", "too-large", "fifo"],
)
def test_b03_unreadable_definitions_fail_fast(tmp_path, make, reason):
    target = tmp_path / "def.yaml"
    make(target)
    with pytest.raises(BenchError) as info:
        load_suite(_suite(tmp_path, str(target)))
    assert f"Failed to load evaluator definition from {target}: {reason}" in str(info.value)


def test_definition_with_yaml_error_names_its_own_line(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: x\nconfig: {type: expected\n")
    with pytest.raises(BenchError) as info:
        load_suite(_suite(tmp_path, str(broken)))
    assert (
        f"Failed to load evaluator definition from {broken}: {broken}:3:1: while parsing a flow mapping"
        in str(info.value)
    )


def test_definition_config_errors_point_into_the_definition_file(tmp_path):
    definition = tmp_path / "bad.yaml"
    definition.write_text("name: bad\nconfig:\n  type: expected\n  expectd: x\n")
    with pytest.raises(BenchError) as info:
        load_suite(_suite(tmp_path, str(definition)))
    assert str(info.value) == (
        f"{definition}:4:3: config.expectd: unknown field (did you mean 'expected'?) "
        "[evaluator 'expected' from bench-deterministic]"
    )


def test_definition_type_comes_from_its_name(tmp_path):
    definition = tmp_path / "typed-by-name.yaml"
    definition.write_text("name: expected\ndescription: the type is the name\nconfig: {expected: here}\n")
    plan = load_suite(_suite(tmp_path, str(definition)))
    assert plan.tasks[0].evaluators[0].type == "expected"


def test_definition_loaded_once_for_many_tasks(tmp_path):
    (tmp_path / "polite.yaml").write_text(DEFINITION)
    suite = tmp_path / "suite.yaml"
    rows = "".join(
        f"  - {{id: t{i}, response: 'Sure {i}', evaluate: {{file: ./polite.yaml}}}}\n" for i in range(50)
    )
    suite.write_text("tasks:\n" + rows)
    plan = load_suite(suite)
    assert len(plan.referenced_files) == 1
    assert len(plan.tasks) == 50


def test_b05_suite_level_file_outside_the_folder_is_allowed_and_recorded(bench_cli, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "polite.yaml").write_text(DEFINITION)
    (shared / "strict.yaml").write_text(DEFINITION.replace("name: polite", "name: strict"))
    (tmp_path / "testcases").mkdir()
    (tmp_path / "testcases" / "alias.yaml").symlink_to(shared / "strict.yaml")
    suite = tmp_path / "testcases" / "suite.yaml"
    suite.write_text(
        "tasks:\n  - id: a\n    response: Sure, here it is.\n"
        f"    evaluate: [{{file: ../shared/polite.yaml}}, {{file: {shared / 'polite.yaml'}}}, {{file: alias.yaml}}]\n"
    )
    shown = bench_cli("validate", suite)
    assert shown.exit_code == 0, shown.output
    lines = [line for line in shown.stdout.splitlines() if line.startswith("definition file:")]
    assert lines == [
        f"definition file: {(shared / 'polite.yaml').resolve()} (outside the suite folder)",
        f"definition file: {(shared / 'strict.yaml').resolve()} (outside the suite folder)",
    ]
    ran = bench_cli("run", suite, "--runs-dir", tmp_path / "runs")
    assert ran.exit_code == 0, ran.output
    (manifest,) = (tmp_path / "runs").glob("*/manifest.json")
    recorded = json.loads(manifest.read_text())["referenced_files"]
    assert recorded == [str((shared / "polite.yaml").resolve()), str((shared / "strict.yaml").resolve())]


def _rows_suite(tmp_path: Path, row: dict[str, object], extra: str = "") -> tuple[Path, Path]:
    """A suite in ``tmp_path/suite`` whose tasks come from ``rows.jsonl`` (data, not trusted)."""
    folder = tmp_path / "suite"
    folder.mkdir(exist_ok=True)
    (folder / "inside").mkdir(exist_ok=True)
    (folder / "inside" / "notes.txt").write_text("inside the suite\n")
    rows = folder / "rows.jsonl"
    rows.write_text(json.dumps({"id": "ok", "response": "x", "evaluate": {"expected": "x"}}) + "\n")
    with rows.open("a") as out:
        out.write(json.dumps({"id": "r1", "response": "x", **row}) + "\n")
    suite = folder / "suite.yaml"
    suite.write_text(f"{extra}tasks: rows.jsonl\n")
    return suite, rows


FILE_CHECK = {"type": "file_content_match", "path": "notes.txt", "value": "secret"}


def _outside(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "notes.txt").write_text("host secret\n")
    return outside


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink"])
def test_b06_dataset_row_workspace_outside_suite_is_refused(bench_cli, tmp_path, kind):
    outside = _outside(tmp_path)
    if kind == "symlink":
        (tmp_path / "suite").mkdir()
        (tmp_path / "suite" / "link").symlink_to(outside)
    value = {"dotdot": "../outside", "absolute": str(outside), "symlink": "link"}[kind]
    suite, rows = _rows_suite(tmp_path, {"workspace": value, "evaluate": FILE_CHECK})
    for command in ("validate", "run"):
        result = bench_cli(command, suite, *(["--runs-dir", tmp_path / "runs"] if command == "run" else []))
        assert result.exit_code == 2, result.output
        assert result.stderr == (
            f"error: {rows}:2:1: tasks[1].workspace: path escapes the suite folder: task 'r1' sets workspace "
            f"{value} (resolved to {outside.resolve()}); a data row may only name paths inside "
            f"{suite.parent.resolve()} (pass --allow-outside-root to allow it)\n"
        )
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("form", ["path", "file-url", "localhost-url"])
def test_b06_dataset_row_repo_outside_suite_is_refused(bench_cli, tmp_path, form):
    outside = _outside(tmp_path)
    value = {
        "path": "../outside",
        "file-url": f"file://{outside}",
        "localhost-url": f"file://localhost{outside}",
    }
    suite, rows = _rows_suite(tmp_path, {"repo": value[form], "evaluate": {"expected": "x"}})
    result = bench_cli("validate", suite)
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: {rows}:2:1: tasks[1].repo: path escapes the suite folder: task 'r1' sets repo "
        f"{value[form]} (resolved to {outside.resolve()}); a data row may only name paths inside "
        f"{suite.parent.resolve()} (pass --allow-outside-root to allow it)\n"
    )


def test_b06_dataset_row_evaluator_file_outside_suite_is_refused(bench_cli, tmp_path):
    (tmp_path / "polite.yaml").write_text(DEFINITION)
    suite, rows = _rows_suite(tmp_path, {"evaluate": {"file": "../polite.yaml"}})
    result = bench_cli("validate", suite)
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: {rows}:2:1: tasks[1].evaluate.file: path escapes the suite folder: task 'r1' sets file "
        f"../polite.yaml (resolved to {(tmp_path / 'polite.yaml').resolve()}); a data row may only name "
        f"paths inside {suite.parent.resolve()} (pass --allow-outside-root to allow it)\n"
    )


def test_b06_allow_outside_root_lets_a_row_read_outside(bench_cli, tmp_path):
    outside = _outside(tmp_path)
    suite, _ = _rows_suite(tmp_path, {"workspace": "../outside", "evaluate": FILE_CHECK})
    shown = bench_cli("validate", suite, "--allow-outside-root")
    assert shown.exit_code == 0, shown.output
    ran = bench_cli("run", suite, "--allow-outside-root", "--runs-dir", tmp_path / "runs", "-o", "out.json")
    assert ran.exit_code == 0, ran.output
    tasks = {t["id"]: t for t in json.loads((tmp_path / "out.json").read_text())["tasks"]}
    assert tasks["r1"]["status"] == "passed"
    assert outside.is_dir()


def test_b06_rows_inside_the_suite_folder_and_suite_level_paths_are_allowed(bench_cli, tmp_path):
    _outside(tmp_path)
    suite, _ = _rows_suite(
        tmp_path,
        {"workspace": "inside", "evaluate": {**FILE_CHECK, "value": "inside"}},
        extra="",
    )
    assert bench_cli("validate", suite).exit_code == 0
    trusted = tmp_path / "suite" / "trusted.yaml"  # the suite file itself may name any folder
    trusted.write_text(
        "tasks:\n  - id: t\n    response: x\n    workspace: ../outside\n"
        "    evaluate: {type: file_content_match, path: notes.txt, value: secret}\n"
    )
    result = bench_cli("run", trusted, "--runs-dir", tmp_path / "runs")
    assert result.exit_code == 0, result.output


def test_b06_dataset_row_evaluator_path_setting_outside_suite_is_refused(bench_cli, tmp_path):
    pytest.importorskip("bench_agent")
    outside = _outside(tmp_path)
    check = {"type": "expected_diff", "config": {"reference_dir": "../outside"}}
    suite, rows = _rows_suite(tmp_path, {"workspace": "inside", "evaluate": check})
    result = bench_cli("validate", suite)
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: {rows}:2:1: tasks[1].evaluate.config.reference_dir: path escapes the suite folder: "
        f"task 'r1' sets reference_dir ../outside (resolved to {outside.resolve()}); a data row may only "
        f"name paths inside {suite.parent.resolve()} (pass --allow-outside-root to allow it)\n"
    )
