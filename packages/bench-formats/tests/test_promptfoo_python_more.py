"""promptfoo's Python beyond assertions and providers: transforms, ``transformVars``, test generators,
prompt functions and a Python provider's ``call_embedding_api``, each in the run's Python worker.
Verdicts on promptfoo's own output: the python-transforms, python-test-generators,
python-prompt-functions and python-embeddings conformance cases; here the messages a user sees."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from bench import ConfigError, TaskResult
from bench.testing import run_evaluator, run_suite
from bench_formats.promptfoo.loader import PromptfooLoader


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def _load(folder: Path, config: str) -> list[dict[str, Any]]:
    """The tasks the loader writes for ``config``."""
    return list(PromptfooLoader().load(_write(folder, "promptfooconfig.yaml", config)).data["tasks"])


def _refusal(folder: Path, config: str) -> str:
    with pytest.raises(ConfigError) as caught:
        _load(folder, config)
    return caught.value.message


# --- transforms -----------------------------------------------------------------------------


def test_python_transform_file_is_run_not_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # run_evaluator's scripts are found from the working folder
    # was "Unsupported transform file format": now get_transform(output, context) gives the output
    _write(tmp_path, "t.py", "def get_transform(output, context):\n    return output.upper()\n")
    out = run_evaluator(
        {"type": "promptfoo", "assert": [{"type": "equals", "value": "HI", "transform": "file://t.py"}]},
        "hi",
    )
    assert (out.passed, out.score) == (True, 1.0)


def test_python_transform_that_raises_is_an_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # run_evaluator's scripts are found from the working folder
    _write(tmp_path, "t.py", "def boom(output, context):\n    return {}['x']\n")
    asserts = [{"type": "equals", "value": "x", "transform": "file://t.py:boom"}]
    out = run_evaluator({"type": "promptfoo", "assert": asserts}, "hi")
    assert out.error is not None
    assert out.error.splitlines()[0] == (
        "equals: its transform: Transform failed ([file transform]): Error running Python script: KeyError: 'x'"
    )


def test_python_transform_returning_none_is_promptfoos_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # run_evaluator's scripts are found from the working folder
    _write(tmp_path, "t.py", "def nothing(output, context):\n    return None\n")
    settings = {"type": "promptfoo", "assert": [{"type": "contains", "value": "h"}]}
    out = run_evaluator({**settings, "options": {"transform": "file://t.py:nothing"}}, "hi")
    assert out.error == (
        "the test's options.transform: Transform function did not return a value\n\n[file transform]"
    )


def test_python_transform_vars_merges_the_dict_it_returns(tmp_path: Path) -> None:
    _write(tmp_path, "v.py", "def add(vars, context):\n    return {'b': vars['a'] * 2}\n")
    tasks = _load(
        tmp_path,
        """
        prompts: ['{{a}} and {{b}}']
        providers: [echo]
        tests:
          - vars: {a: 2}
            options: {transformVars: 'file://v.py:add'}
        """,
    )
    assert [task["prompt"] for task in tasks] == ["2 and 4"]


def test_python_transform_vars_not_a_dict_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "v.py", "def get_transform(vars, context):\n    return 42\n")
    config = """
        prompts: ['{{a}}']
        providers: [echo]
        tests:
          - description: t
            vars: {a: 1}
            options: {transformVars: 'file://v.py'}
        """
    assert (
        _refusal(tmp_path, config)
        == "t: options.transformVars: Transform function did not return a valid object"
    )


# --- test generators and prompt functions ------------------------------------------------------


def test_python_test_generator_gets_its_config(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "gen.py",
        "def make(config):\n    return [{'vars': {'w': w}} for w in config['words']]\n",
    )
    tasks = _load(
        tmp_path,
        """
        prompts: ['say {{w}}']
        providers: [echo]
        tests: {path: 'file://gen.py:make', config: {words: [a, b]}}
        """,
    )
    assert [task["prompt"] for task in tasks] == ["say a", "say b"]


def test_python_test_generator_that_raises_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "gen.py", "def generate_tests():\n    raise ValueError('no data')\n")
    message = _refusal(tmp_path, "prompts: [hi]\nproviders: [echo]\ntests: ['file://gen.py']\n")
    assert message.splitlines()[0] == "tests: file://gen.py: Error running Python script: ValueError: no data"


def test_python_prompt_function_is_called_per_row(tmp_path: Path) -> None:
    _write(tmp_path, "p.py", "def ask(context):\n    return 'Q: ' + context['vars']['q'] + ' {{q}}'\n")
    tasks = _load(
        tmp_path,
        """
        prompts: ['file://p.py:ask']
        providers: [echo]
        tests: [{vars: {q: one}}, {vars: {q: two}}]
        """,
    )
    assert [task["prompt"] for task in tasks] == ["Q: one one", "Q: two two"]
    assert tasks[0]["metadata"]["prompt"] == "p.py:ask"


def test_python_prompt_script_prints_the_prompt(tmp_path: Path) -> None:
    # was refused ("code that promptfoo runs"): the whole script runs with the context in argv[1]
    _write(tmp_path, "p.py", "import json, sys\nprint('Q:', json.loads(sys.argv[1])['vars']['q'])\nprint()\n")
    tasks = _load(tmp_path, "prompts: ['file://p.py']\nproviders: [echo]\ntests: [{vars: {q: one}}]\n")
    assert [task["prompt"] for task in tasks] == ["Q: one\n"]  # python-shell's lines, joined


def test_python_prompt_function_failing_for_one_test_refused_the_whole_config(tmp_path: Path) -> None:
    """promptfoo calls the function as it renders each row: one that raises, or returns what is
    not a prompt, makes only that row an error (python-prompt-function-errors has its verdicts)."""
    _write(
        tmp_path,
        "p.py",
        """
        def ask(context):
            q = context['vars']['q']
            if q == 'two':
                raise ValueError('no two')
            return 3 if q == 'three' else 'Q: ' + q
        """,
    )
    tests = "[{vars: {q: one}}, {vars: {q: two}}, {vars: {q: three}}]"
    config = f"prompts: ['file://p.py:ask']\nproviders: [echo]\ntests: {tests}\n"
    tasks = _load(tmp_path, config)
    assert tasks[0]["prompt"] == "Q: one"
    assert "response" not in tasks[0]
    assert tasks[1]["response"]["error"].splitlines()[0] == (
        "prompt function p.py:ask: Error running Python script: ValueError: no two"
    )
    assert tasks[2]["response"] == {
        "error": "prompt function p.py:ask: Prompt function must return a string or object, got number"
    }


def test_python_var_without_output_is_refused_naming_the_var(tmp_path: Path) -> None:
    # was "[not run: file://v.py]" in the prompt: now get_var runs, and an empty reply is refused
    _write(tmp_path, "v.py", "def get_var(name, prompt, other_vars):\n    return {'output': ''}\n")
    config = "prompts: ['{{x}}']\nproviders: [echo]\ntests: [{description: t, vars: {x: 'file://v.py'}}]\n"
    assert (
        _refusal(tmp_path, config)
        == f"t: var 'x': Python script {tmp_path / 'v.py'} did not return any output"
    )


# --- call_embedding_api ----------------------------------------------------------------------


def test_python_embedding_provider_is_not_a_model_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # run_evaluator's scripts are found from the working folder
    _write(
        tmp_path,
        "emb.py",
        "def call_embedding_api(text, options):\n    return {'embedding': [1.0, len(text) % 2]}\n",
    )
    config = {
        "type": "promptfoo",
        "assert": [{"type": "similar", "value": "ab", "provider": "file://emb.py", "threshold": 0.99}],
    }
    out = run_evaluator(config, "cd")
    assert (out.passed, out.score, out.reason) == (True, 1.0, "All assertions passed")


# --- config.basePath -------------------------------------------------------------------------

BASE_PATH_SCRIPT = """
def call_api(prompt, options, context):
    return {"output": "%s basePath=%r" % (prompt, options["config"]["basePath"])}

def call_classification_api(text, options):
    return {"classification": {options["config"]["basePath"]: 1.0}}

def call_embedding_api(text, options):
    return {"embedding": [1.0, 0.0] if text == "hi" or options["config"]["basePath"] == "sub" else [0.0, 1.0]}
"""


def test_python_providers_get_the_config_folder_as_written_as_base_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """promptfoo passes ``config.basePath`` as ``path.dirname`` of the config path it was given:
    ``sub`` for ``-c sub/promptfooconfig.yaml`` (promptfoo 0.121.20 passed exactly this config),
    to the provider and to a classifier's and a similar check's Python provider alike."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "sub", "provider.py", BASE_PATH_SCRIPT)
    config = """
    prompts: ['hi']
    providers: ['file://provider.py']
    tests:
      - assert:
          - {type: classifier, provider: 'file://provider.py', value: sub, threshold: 0.5}
          - {type: similar, provider: 'file://provider.py', value: other, threshold: 0.5}
    """
    _write(tmp_path / "sub", "promptfooconfig.yaml", config)
    outcome = run_suite(Path("sub/promptfooconfig.yaml"), runs_dir=tmp_path / "runs")
    [task] = [TaskResult.model_validate(row) for row in outcome.report.tasks()]
    assert task.response == "hi basePath='sub'"
    [evaluator] = task.evaluators
    assert [(a["pass"], a["reason"]) for a in evaluator.details["assertions"]] == [
        (True, "Classification sub has score 1.00 >= 0.5"),
        (True, "Similarity 1.00 is greater than or equal to threshold 0.5"),
    ]
