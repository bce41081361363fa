"""youBencha test cases run as yb run runs them: a real repository, a fake copilot/claude CLI."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from youbencha_helpers import URL, by_name, run

from bench import ConfigError
from bench.testing import load_suite

TEST_CASE = f"""\
name: add-readme-comment
description: Add a helpful comment to the README
repo: {URL}
branch: main
agent:
  type: copilot-cli
  config:
    prompt: Add a helpful comment to README.md
expected_source: branch
expected: solution
evaluators:
  - name: git-diff
    config:
      assertions:
        max_files_changed: 1
        max_change_entropy: 0.9
  - name: expected-diff
    config:
      threshold: 0.5
"""


def test_a_test_case_runs_the_agent_in_its_repository_and_judges_the_change(demo: Path, monkeypatch):
    monkeypatch.setenv(
        "FAKE_AGENT_FILES", json.dumps({"README.md": "# Demo\n\nA helpful comment.\n", "NOTES.md": "a\nb\n"})
    )
    path = demo / "testcase.yaml"
    path.write_text(TEST_CASE)
    task = run(path)
    found = by_name(task)
    # README.md +2 lines ("" and "A helpful comment."), NOTES.md +2: 2 files, shares 1/2 each,
    # entropy = -2 * 0.5 * log2(0.5) = 1.00 > 0.9.
    assert found["git-diff"]["reason"] == (
        "2 changed files (+4/-0 lines) | Violations: files_changed (2) exceeds max_files_changed (1); "
        "change_entropy (1.00) exceeds max_change_entropy (0.9)"
    )
    assert found["git-diff"]["passed"] is False
    # Against branch solution: README.md and app.py equal (1.0 each), NOTES.md only in the
    # workspace: (1 + 1) / 2 - 1 / 3 = 0.667 >= 0.5.
    assert found["expected-diff"]["passed"] is True
    assert round(found["expected-diff"]["score"], 3) == 0.667
    assert task["status"] == "failed"


def test_the_copilot_cli_is_invoked_as_youbenchas_adapter_invokes_it(demo: Path, monkeypatch):
    log = demo / "argv.jsonl"
    monkeypatch.setenv("FAKE_AGENT_LOG", str(log))
    monkeypatch.setenv("FAKE_AGENT_FILES", json.dumps({"README.md": "# Demo\nmore\n"}))
    path = demo / "testcase.yaml"
    path.write_text(
        TEST_CASE.replace(
            "  type: copilot-cli\n", "  type: copilot-cli\n  model: gpt-5\n  agent_name: doc-writer\n"
        )
    )
    task = run(path)
    (argv,) = [json.loads(line) for line in log.read_text().splitlines()]
    workspace = argv[-1]
    assert argv == [
        "-p",
        "Add a helpful comment to README.md",
        "--model",
        "gpt-5",
        "--agent",
        "doc-writer",
        "--allow-all-tools",
        "--allow-all-paths",
        "--log-level",
        "all",
        "--add-dir",
        workspace,
    ]
    # one file with every change: entropy 0 (-1 * log2(1)); 1 file <= 1.
    assert by_name(task)["git-diff"]["passed"] is True


def test_claude_code_gets_print_mode_its_options_and_the_prompt_last(demo: Path, monkeypatch):
    log = demo / "argv.jsonl"
    monkeypatch.setenv("FAKE_AGENT_LOG", str(log))
    (demo / "cases" / "prompts").mkdir(parents=True)
    (demo / "cases" / "prompts" / "task.md").write_text("Fix the README")
    path = demo / "cases" / "testcase.yaml"
    path.write_text(
        TEST_CASE.replace("  type: copilot-cli\n", "  type: claude-code\n  agent_name: fixer\n").replace(
            "    prompt: Add a helpful comment to README.md\n",
            "    prompt_file: prompts/task.md\n    max_tokens: 100\n    allowed_tools: [Read, Edit]\n",
        )
    )
    run(path)
    (argv,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert argv == [
        "-p",
        "--output-format",
        "text",
        "--dangerously-skip-permissions",
        "--verbose",
        "--allowedTools",
        "Read,Edit",
        "--max-tokens",
        "100",
        'Use the "fixer" agent for this task.\n\nFix the README',
    ]


def _refusal(demo: Path, text: str, name: str = "testcase.yaml") -> str:
    path = demo / name
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    return caught.value.message


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("name: add-readme-comment", 'name: ""'), "name: Test case name is required"),
        (
            ("name: add-readme-comment", "name: " + "x" * 201),
            "name: Test case name exceeds maximum length of 200 characters",
        ),
        (
            ("description: Add a helpful comment to the README", 'description: ""'),
            "description: Test case description is required",
        ),
        (
            (URL, "git@github.com:example/demo.git"),
            "repo: Repository must be a valid HTTP(S) URL to a public repository",
        ),
        (
            (URL, "http://192.168.1.4/demo.git"),
            "repo: Repository must be a valid HTTP(S) URL to a public repository",
        ),
        (
            (URL, "http://localhost/demo.git"),
            "repo: Repository must be a valid HTTP(S) URL to a public repository",
        ),
        (
            ("type: copilot-cli", "type: codex"),
            "agent.type: Invalid enum value. Expected 'copilot-cli' | 'claude-code', received 'codex'",
        ),
        (
            ("expected: solution\n", ""),
            "expected: When expected_source is provided, expected value must also be provided",
        ),
        (
            ("    prompt: Add a helpful comment to README.md\n", "    prompt: x\n    prompt_file: p.md\n"),
            'agent.config: Cannot specify both "prompt" and "prompt_file". Please use only one.',
        ),
        (
            ("  - name: expected-diff\n", "  - name: expected-diff\n    file: x.yaml\n"),
            "evaluators.1: Unrecognized key(s) in object: 'file'",
        ),
        (
            ("branch: main", "branch: main\nworkspace_name: -bad"),
            "workspace_name: Workspace name must start with alphanumeric and contain only letters, numbers, dots, underscores, and hyphens",
        ),
        (("branch: main", "branch: main\ntimeout: 0"), "timeout: Number must be greater than 0"),
    ],
)
def test_youbenchas_schema_refuses_with_its_own_words(demo: Path, edit: tuple[str, str], message: str):
    assert _refusal(demo, TEST_CASE.replace(*edit)) == f"Invalid test case configuration: {message}"


def test_no_evaluators_is_refused(demo: Path):
    text = TEST_CASE.split("evaluators:")[0] + "evaluators: []\n"
    assert (
        _refusal(demo, text)
        == "Invalid test case configuration: evaluators: At least one evaluator is required"
    )


def test_a_model_outside_youbenchas_list_is_refused(demo: Path):
    text = TEST_CASE.replace("  type: copilot-cli\n", "  type: copilot-cli\n  model: gpt-4\n")
    assert _refusal(demo, text).endswith("received 'gpt-4'")
    assert "agent.model: Invalid enum value. Expected 'claude-sonnet-4.5' | 'claude-sonnet-4'" in _refusal(
        demo, text
    )


def test_a_json_test_case_loads_and_its_prompt_is_text(demo: Path):
    case = {
        "name": "json-case",
        "description": "d",
        "repo": URL,
        "agent": {"type": "copilot-cli", "config": {"prompt": "Print {x}"}},
        "evaluators": [{"name": "git-diff"}],
    }
    (demo / "case.json").write_text(json.dumps(case))
    planned = next(iter(load_suite(demo / "case.json").tasks))
    assert planned.task.prompt == "Print {x}"  # youBencha's prompt is text, not a template


def test_bench_validate_and_run_exit_2_with_the_message(demo: Path):
    from youbencha_helpers import bench

    path = demo / "testcase.yaml"
    path.write_text(TEST_CASE.replace("type: copilot-cli", "type: codex"))
    code, output = bench("validate", str(path), cwd=demo)
    assert code == 2
    assert output.strip() == (
        f"error: {path}: Invalid test case configuration: agent.type: Invalid enum value. "
        "Expected 'copilot-cli' | 'claude-code', received 'codex'"
    )


def test_an_evaluator_file_resolves_against_the_test_case_folder(demo: Path, monkeypatch):
    monkeypatch.setenv("FAKE_AGENT_FILES", json.dumps({"a.txt": "1\n2\n3\n", "b.txt": "1\n"}))
    (demo / "cases" / "evaluators").mkdir(parents=True)
    (demo / "cases" / "evaluators" / "focused.yaml").write_text(
        "name: git-diff\ndescription: focused\nconfig:\n  include_entropy: true\n"
        "  assertions:\n    min_change_entropy: 0.9\n    max_lines_changed: 3\n"
    )
    path = demo / "cases" / "testcase.yaml"
    path.write_text(TEST_CASE.split("evaluators:")[0] + "evaluators:\n  - file: ./evaluators/focused.yaml\n")
    suite = load_suite(path)
    assert suite.template_warnings == [
        "evaluator 'git-diff': youBencha ignores include_entropy, assertions.max_lines_changed; dropped"
    ]
    task = run(path)
    # shares 3/4 and 1/4: -(0.75 log2 0.75 + 0.25 log2 0.25) = 0.311 + 0.5 = 0.811 < 0.9
    entropy = -(0.75 * math.log2(0.75) + 0.25 * math.log2(0.25))
    assert round(entropy, 2) == 0.81
    assert task["evaluators"][0]["reason"] == (
        "2 changed files (+4/-0 lines) | Violations: change_entropy (0.81) below min_change_entropy (0.9)"
    )


def test_an_unknown_evaluator_is_skipped_and_the_outcome_is_partial(demo: Path, monkeypatch):
    monkeypatch.setenv("FAKE_AGENT_FILES", json.dumps({"README.md": "# Demo\n\nA helpful comment.\n"}))
    path = demo / "testcase.yaml"
    path.write_text(TEST_CASE + "  - name: lint\n")
    task = run(path)
    lint = by_name(task)["lint"]
    assert lint["passed"] is True
    assert lint["score"] is None
    assert (
        lint["reason"]
        == "skipped: Unknown evaluator: lint (youBencha outcome: partial unless another evaluator failed)"
    )
    assert lint["details"]["youbencha_status"] == "skipped"
    assert lint["details"]["youbencha_outcome"] == "partial"
    assert task["status"] == "passed"  # youBencha: passed + skipped, no failure = partial


def test_expected_diff_without_an_expected_branch_is_skipped(demo: Path):
    path = demo / "testcase.yaml"
    path.write_text(TEST_CASE.replace("expected_source: branch\nexpected: solution\n", ""))
    expected = by_name(run(path))["expected-diff"]
    assert expected["reason"].startswith(
        "skipped: Expected reference directory not available or not accessible"
    )


def test_youbencharc_variables_project_over_user_unknown_kept(demo: Path, monkeypatch):
    (demo / "home" / ".youbencharc").write_text("variables:\n  PROMPT: from user\n  BRANCH: main\n")
    (demo / ".youbencharc").write_text("variables:\n  PROMPT: from project\n")
    path = demo / "testcase.yaml"
    path.write_text(
        TEST_CASE.replace(
            "prompt: Add a helpful comment to README.md", "prompt: ${PROMPT} ${UNKNOWN}"
        ).replace("branch: main", "branch: ${BRANCH}")
    )
    data = next(iter(load_suite(path).tasks)).task
    assert data.prompt == "from project ${UNKNOWN}"


def test_an_invalid_youbencharc_is_ignored_with_youbenchas_warning(demo: Path):
    (demo / ".youbencharc").write_text("variables:\n  PROMPT: p\ncolour: red\n")
    path = demo / "testcase.yaml"
    path.write_text(TEST_CASE.replace("prompt: Add a helpful comment to README.md", "prompt: ${PROMPT}"))
    suite = load_suite(path)
    assert suite.template_warnings == [
        f"Failed to load config from {demo / '.youbencharc'}: Unrecognized key(s) in object: 'colour'"
    ]
    assert next(iter(suite.tasks)).task.prompt == "${PROMPT}"


PRE_EXECUTION = """\
pre_execution:
  - name: script
    config:
      command: sh
      args: ["-c", "'printf %s:%s:%s \\"$TEST_CASE_NAME\\" \\"$GREETING\\" \\"${BENCH_X:-unset}\\" > \\"$HOME/env.txt\\"; touch seeded.txt; echo set-up'"]
      env: {GREETING: hello}
  - name: script
    config: {command: echo, args: ["${WORKSPACE_DIR}", ">", "$HOME/where.txt"]}
"""


def test_pre_execution_scripts_prepare_the_workspace_before_the_agent(demo: Path, monkeypatch):
    """runPreExecutions then executeAgent (src/core/orchestrator.ts); ScriptPreExecution's shell,
    environment and placeholders (src/pre-execution/script.ts)."""
    monkeypatch.setenv("FAKE_AGENT_FILES", json.dumps({"README.md": "# Demo\n\nA helpful comment.\n"}))
    monkeypatch.setenv("BENCH_X", "not passed on")  # only PATH, HOME, USER of bench's environment
    path = demo / "testcase.yaml"
    path.write_text(TEST_CASE + PRE_EXECUTION)
    task = run(path)
    assert task["error"] is None, task["error"]
    assert task["response"] == "agent done"  # the hooks' output went to standard error
    assert (demo / "home" / "env.txt").read_text() == "add-readme-comment:hello:unset"
    workspace = (demo / "home" / "where.txt").read_text().strip()
    # the placeholder replaced by the task's own workspace (a fresh checkout, not the test's folder)
    assert Path(workspace).is_absolute()
    assert workspace != str(demo)
    # the scripts' files are part of the workspace the agent starts from, and of the diff, as in youBencha
    changed = {f["path"] for f in by_name(task)["git-diff"]["details"]["changed_files"]}
    assert changed == {"README.md", "seeded.txt"}


def test_a_failed_pre_execution_script_makes_the_case_an_error(demo: Path, monkeypatch):
    log = demo / "argv.jsonl"
    monkeypatch.setenv("FAKE_AGENT_LOG", str(log))
    path = demo / "testcase.yaml"
    path.write_text(
        TEST_CASE + "pre_execution:\n  - name: script\n    config: {command: exit, args: ['3']}\n"
    )
    task = run(path)
    assert task["status"] == "error"
    assert task["error"].endswith("Pre-execution failed: Script exited with code 3")
    assert not log.exists()  # the agent never ran


def test_a_failed_pre_execution_error_has_no_runpy_warning(demo: Path):
    # the wrapper module was imported with its package before runpy ran it, and Python's
    # RuntimeWarning about that led the task's error; the error is youBencha's message only
    path = demo / "testcase.yaml"
    path.write_text(
        TEST_CASE + "pre_execution:\n  - name: script\n    config: {command: exit, args: ['3']}\n"
    )
    task = run(path)
    assert task["error"] == "command exited with status 97: Pre-execution failed: Script exited with code 3"


def test_a_pre_execution_hook_youbencha_does_not_know_is_refused(demo: Path):
    text = TEST_CASE + "pre_execution:\n  - name: webhook\n    config: {command: x}\n"
    assert _refusal(demo, text) == (
        "Invalid test case configuration: pre_execution.0.name: Invalid enum value. Expected 'script', "
        "received 'webhook'"
    )
