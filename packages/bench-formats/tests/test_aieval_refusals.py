"""What AI Eval refuses, bench refuses with AI Eval's message (exit 2)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bench import ConfigError
from bench.testing import load_suite

PROMPT = "name: p\ntemplate: 'Say {{.word}}'\nvariables: [{name: word, required: true}]\n"


def write(tmp_path: Path, suite: str, prompt: str = PROMPT, config: str | None = None) -> Path:
    (tmp_path / "prompts").mkdir(exist_ok=True)
    (tmp_path / "tests").mkdir(exist_ok=True)
    (tmp_path / "prompts" / "p.yaml").write_text(prompt)
    if config is not None:
        (tmp_path / "configs").mkdir()
        (tmp_path / "configs" / "config.yaml").write_text(config)
    path = tmp_path / "tests" / "suite.yaml"
    path.write_text(textwrap.dedent(suite))
    return path


def refusal(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    return caught.value.message


CASE = "suite: s\nprompt: p\ncases:\n"


@pytest.mark.parametrize(
    ("cases", "message"),
    [
        (
            "  - {id: a, input: {word: x}, expected: {contains: [x]}}\n  - {id: a, input: {}, expected: {contains: [y]}}\n",
            "cases[1] (a): duplicate id",
        ),
        ("  - {id: ' ', input: {}, expected: {contains: [x]}}\n", "cases[0]: missing id"),
        ("  - {id: a, expected: {contains: [x]}}\n", "cases[0] (a): missing input"),
        (
            "  - {id: a, input: {}, trials: -1, expected: {contains: [x]}}\n",
            "cases[0] (a): trials must be >= 0",
        ),
        (
            "  - {id: a, input: {}, max_steps: -2, expected: {contains: [x]}}\n",
            "cases[0] (a): max_steps must be >= 0",
        ),
        (
            "  - {id: a, input: {}, tool_mocks: [{response: r}], expected: {contains: [x]}}\n",
            "cases[0] (a): tool_mocks[0]: missing name",
        ),
        (
            "  - {id: a, input: {}, expected: {contains: [x, ' ']}}\n",
            "cases[0] (a): expected.contains[1]: empty string",
        ),
        (
            "  - {id: a, input: {}, expected: {not_contains: ['']}}\n",
            "cases[0] (a): expected.not_contains[0]: empty string",
        ),
        (
            "  - {id: a, input: {}, expected: {regex: ['(abc']}}\n",
            "cases[0] (a): expected.regex[0]: error parsing regexp: missing closing ): `(abc`",
        ),
        (
            "  - {id: a, input: {}, expected: {regex: ['(?<=a)b']}}\n",
            "cases[0] (a): expected.regex[0]: error parsing regexp: invalid or unsupported Perl syntax: `(?<=`",
        ),
        (
            "  - {id: a, input: {}, expected: {tool_calls: [{order: 1}]}}\n",
            "cases[0] (a): expected.tool_calls[0]: missing name",
        ),
        (
            "  - {id: a, input: {}, expected: {tool_calls: [{name: t, order: -1}]}}\n",
            "cases[0] (a): expected.tool_calls[0] (t): order must be >= 0",
        ),
        (
            "  - {id: a, input: {}, expected: {tool_calls: [{name: t, order: 1}, {name: u, order: 1}]}}\n",
            "cases[0] (a): expected.tool_calls: duplicate order 1",
        ),
        ("  - {id: a, input: {}}\n", "cases[0] (a): no expected assertions or evaluators"),
        (
            "  - {id: a, input: {}, evaluators: [{criteria: c}]}\n",
            "cases[0] (a): evaluators[0]: missing type",
        ),
        (
            "  - {id: a, input: {}, evaluators: [{type: rouge}]}\n",
            'cases[0] (a): evaluators[0]: unknown type "rouge"',
        ),
        (
            "  - {id: a, input: {}, evaluators: [{type: contains, score_threshold: -0.1}]}\n",
            "cases[0] (a): evaluators[0] (contains): score_threshold must be >= 0",
        ),
        (
            "  - {id: a, input: {}, evaluators: [{type: llm_judge}]}\n",
            "cases[0] (a): evaluators[0] (llm_judge): missing criteria",
        ),
        (
            "  - {id: a, input: {}, evaluators: [{type: llm_judge, criteria: c, score_scale: -1}]}\n",
            "cases[0] (a): evaluators[0] (llm_judge): score_scale must be >= 0",
        ),
        (
            "  - {id: a, input: {}, evaluators: [{type: similarity}]}\n",
            "cases[0] (a): evaluators[0] (similarity): missing reference",
        ),
        (
            "  - {id: a, input: {}, evaluators: [{type: factuality}]}\n",
            "cases[0] (a): evaluators[0] (factuality): missing ground_truth",
        ),
        (
            "  - {id: a, input: {}, evaluators: [{type: faithfulness}]}\n",
            "cases[0] (a): evaluators[0] (faithfulness): missing context",
        ),
        (
            "  - {id: a, input: {}, evaluators: [{type: relevancy}]}\n",
            "cases[0] (a): evaluators[0] (relevancy): missing question",
        ),
        (
            "  - {id: a, input: {}, evaluators: [{type: precision, context: c}]}\n",
            "cases[0] (a): evaluators[0] (precision): missing question",
        ),
        (
            "  - {id: a, input: {}, evaluators: [{type: task_completion}]}\n",
            "cases[0] (a): evaluators[0] (task_completion): missing task",
        ),
        (
            "  - {id: a, input: {}, evaluators: [{type: efficiency, max_tokens: -1}]}\n",
            "cases[0] (a): evaluators[0] (efficiency): max_tokens must be >= 0",
        ),
        (
            "  - {id: a, input: {}, evaluators: [{type: hallucination}]}\n",
            "cases[0] (a): evaluators[0] (hallucination): missing ground_truth",
        ),
        (
            "  - {id: a, input: {}, evaluators: [{type: bias, categories: [x, '']}]}\n",
            "cases[0] (a): evaluators[0] (bias): categories[1]: empty string",
        ),
    ],
)
def test_validate_refuses_as_ai_eval(tmp_path: Path, cases: str, message: str):
    path = write(tmp_path, CASE + cases)
    assert refusal(path) == f'testcase: validate "{path}": {message}'


@pytest.mark.parametrize(
    ("suite", "message"),
    [
        ("suite: ''\nprompt: p\ncases: []\n", "suite: missing suite name"),
        ("suite: s\nprompt: ' '\ncases: []\n", "suite: missing prompt reference"),
        ("suite: s\nprompt: p\ncases: []\n", "suite: no cases"),
    ],
)
def test_suite_level_refusals(tmp_path: Path, suite: str, message: str):
    path = write(tmp_path, suite)
    assert refusal(path) == f'testcase: validate "{path}": {message}'


def test_an_unknown_prompt_names_the_prompts_found(tmp_path: Path):
    path = write(
        tmp_path,
        CASE.replace("prompt: p", "prompt: q") + "  - {id: a, input: {}, expected: {contains: [x]}}\n",
    )
    (tmp_path / "prompts" / "other.yml").write_text("name: other\ntemplate: hi\n")
    assert refusal(path) == (
        f'run: suite "s" references unknown prompt "q" (prompts in {tmp_path / "prompts"}: other, p)'
    )


def test_no_prompts_folder(tmp_path: Path):
    path = write(tmp_path, CASE + "  - {id: a, input: {}, expected: {contains: [x]}}\n")
    (tmp_path / "prompts" / "p.yaml").unlink()
    (tmp_path / "prompts").rmdir()
    assert refusal(path) == (
        f'suite "s" references prompt "p": AI Eval reads prompts from {tmp_path / "prompts"}, which is not a folder'
    )


def test_duplicate_prompt_names(tmp_path: Path):
    path = write(tmp_path, CASE + "  - {id: a, input: {}, expected: {contains: [x]}}\n")
    (tmp_path / "prompts" / "q.yaml").write_text("name: p\ntemplate: again\n")
    assert refusal(path) == 'run: duplicate prompt name "p"'


def test_a_type_mismatch_is_a_parse_error(tmp_path: Path):
    path = write(tmp_path, CASE + "  - {id: [a], input: {}, expected: {contains: [x]}}\n")
    assert refusal(path) == f'testcase: parse "{path}": cases[0].id: cannot unmarshal !!seq into string'


def test_a_template_construct_beyond_the_subset(tmp_path: Path):
    prompt = "name: p\ntemplate: 'Say {{.word | printf \"%q\"}}'\n"
    path = write(tmp_path, CASE + "  - {id: a, input: {word: x}, expected: {contains: [x]}}\n", prompt=prompt)
    assert refusal(path) == (
        'cases[0] (a): prompt "p": {{.word | printf "%q"}} is beyond the Go template subset bench reads '
        "({{.Name}}, {{if}}/{{else}}/{{end}}, {{range}}/{{else}}/{{end}})"
    )


def test_json_schema_evaluator_without_a_schema(tmp_path: Path):
    path = write(tmp_path, CASE + "  - {id: a, input: {word: x}, evaluators: [{type: json_schema}]}\n")
    assert refusal(path) == (
        "cases[0] (a): evaluators[0] (json_schema): the case has no expected.json_schema; AI Eval fails "
        "this check on every trial (nil schema)"
    )


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ("evaluation: {threshold: 0.8}\n", "run: trials must be > 0 (got 0)"),
        ("evaluation: {trials: 1, threshold: 1.5}\n", "run: threshold must be between 0 and 1 (got 1.5)"),
    ],
)
def test_config_refusals(tmp_path: Path, config: str, message: str):
    path = write(tmp_path, CASE + "  - {id: a, input: {word: x}, expected: {contains: [x]}}\n", config=config)
    assert refusal(path) == message


def test_the_cli_exits_2_with_the_message(tmp_path: Path):
    path = write(tmp_path, CASE + "  - {id: a, input: {}}\n")
    done = subprocess.run(
        [sys.executable, "-m", "bench", "validate", str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert (
        f'error: {path}: testcase: validate "{path}": cases[0] (a): no expected assertions or evaluators'
        in done.stdout + done.stderr
    )


def test_validate_checks_a_suite_that_names_no_target_and_says_a_target_is_needed_to_run(tmp_path: Path):
    # AI Eval validates suites without calling a model; no configs/config.yaml: no model named
    path = write(tmp_path, CASE + "  - {id: a, input: {word: x}, expected: {contains: [x]}}\n")
    done = subprocess.run(
        [sys.executable, "-m", "bench", "validate", str(path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[0] == "suite 's' is valid: 1 tasks, target: none"
    assert done.stdout.rstrip().splitlines()[-1] == (
        "a target is needed to run it: 1 task has no recorded response and the suite names no "
        "target (add 'target:' or give --target SPEC)"
    )
