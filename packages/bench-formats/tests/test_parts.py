"""Files that belong to another tool's suite are refused with what they are and what loads them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def _validate(path: Path) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "bench", "validate", str(path)], capture_output=True, text=True, check=False
    )
    return done.returncode, done.stdout + done.stderr


def test_a_csv_of_tests_names_the_config_that_loads_it(tmp_path: Path):
    (tmp_path / "tests.csv").write_text("question,__expected\nhi,contains:hello\n")
    (tmp_path / "promptfooconfig.yaml").write_text("prompts: [x]\ntests: file://tests.csv\n")
    code, output = _validate(tmp_path / "tests.csv")
    assert code == 2
    assert output.strip() == (
        f"error: {tmp_path / 'tests.csv'}: this is a CSV of promptfoo tests, not a suite: a promptfoo "
        f"config loads it with `tests: file://tests.csv`; run '{tmp_path / 'promptfooconfig.yaml'}'"
    )


def test_a_prompt_file_says_what_it_is(tmp_path: Path):
    (tmp_path / "prompt.txt").write_text("Say {{x}}\n---\nWrite {{x}}\n")
    code, output = _validate(tmp_path / "prompt.txt")
    assert code == 2
    assert output.strip() == (
        f"error: {tmp_path / 'prompt.txt'}: this is a prompt file, not a suite: a promptfoo config "
        "loads it with `prompts: [file://prompt.txt]`"
    )


def test_a_youbencha_evaluator_definition_says_what_it_is(tmp_path: Path):
    (tmp_path / "grammar.yaml").write_text("name: agentic-judge\ndescription: grammar\nconfig: {}\n")
    code, output = _validate(tmp_path / "grammar.yaml")
    assert code == 2
    assert (
        "this is a youBencha evaluator definition, not a suite: a youBencha test case loads it with `evaluators: [{file: grammar.yaml}]`"
        in output
    )


def test_an_ai_eval_prompt_says_what_it_is(tmp_path: Path):
    (tmp_path / "greet.yaml").write_text("name: greet\nversion: '1'\ntemplate: Hello {{NAME}}\n")
    code, output = _validate(tmp_path / "greet.yaml")
    assert code == 2
    assert (
        "this is an AI Eval prompt, not a suite: AI Eval suites in ../tests/ name it with `prompt: <its name>`"
        in output
    )


@pytest.mark.parametrize("name", ["suite.yaml", "suite.json"])
def test_a_native_suite_is_left_to_the_native_loader(tmp_path: Path, name: str):
    body = '{"name": "s", "tasks": [{"id": "a", "response": "x", "evaluate": {"expected": "x"}}]}'
    (tmp_path / name).write_text(body)
    code, output = _validate(tmp_path / name)
    assert code == 0, output
