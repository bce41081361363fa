"""Every refusal and warning of the promptfoo config loader, with the exact message."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench import ConfigError
from bench_formats.promptfoo.loader import PromptfooLoader

UNKNOWN = (
    "provider 'webhook:http://localhost:1' is not supported: bench runs echo, exec:COMMAND, file://*.py, python:*.py "
    "and the model providers litellm knows (openai:, anthropic:, azure:, bedrock:, vertex:, google:, mistral:, "
    "groq:, ollama:, ...); run the config with --target SPEC instead"
)


def _config(folder: Path, text: str) -> Path:
    path = folder / "promptfooconfig.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _refusal(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        PromptfooLoader().load(path)
    return caught.value.message


def _warnings(path: Path) -> list[str]:
    loader = PromptfooLoader()
    loader.load(path)
    return loader.warnings


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("prompts: [hi]\nproviders: ['webhook:http://localhost:1']\n", UNKNOWN),
        (
            "prompts: [hi]\ntests: [{}]\n",
            "the config has no 'providers:'; add one or run it with --target SPEC",
        ),
        ("providers: [echo]\ntests: [{}]\n", "the config has no 'prompts:'"),
        (
            "prompts: [hi]\nproviders: [echo]\nscenarios: []\n",
            "scenarios are not supported: write each scenario's tests into 'tests:'",
        ),
        (
            "prompts: [hi]\nproviders: [echo]\nredteam: {}\n",
            "redteam configs are not supported: bench runs evaluation configs only",
        ),
        (
            "prompts: [file://make_prompt.js]\nproviders: [echo]\n",
            "prompt file 'make_prompt.js' is code that promptfoo runs to build the prompt; bench does not run it: "
            "write the prompt as text, JSON or YAML",
        ),
        ("prompts: [file://nope*.txt]\nproviders: [echo]\n", "no prompt file matches 'file://nope*.txt'"),
        (
            "prompts: [{label: x}]\nproviders: [echo]\n",
            "a prompt object needs 'id' (a file:// path) or 'raw'",
        ),
        (
            "prompts: [hi]\nproviders: [echo]\ntests: file://none.csv\n",
            "no tests file matches 'file://none.csv'",
        ),
        (
            "prompts: [hi]\nproviders: [echo]\ntests: file://gen.py\n",
            "tests: file://gen.py: Python test function must return a list of test cases, got object",
        ),
        (
            "prompts: [hi]\nproviders: [echo]\ntests: [{vars: nope.yaml}]\n",
            "no vars file matches 'nope.yaml'",
        ),
        ("prompts: [hi]\nproviders: [echo]\ndefaultTest: 3\n", "defaultTest is a mapping or a file:// path"),
        (
            "prompts: ['{{ x']\nproviders: [echo]\n",
            "test 1: cannot render template '{{ x': unexpected end of template, expected 'end of print statement'.",
        ),
        ("- just a list\n", "a promptfoo config is a mapping"),
    ],
)
def test_refusals(tmp_path: Path, text: str, message: str):
    (tmp_path / "make_prompt.js").write_text("module.exports = () => 'x';\n")
    (tmp_path / "gen.py").write_text("def generate_tests(): return {'vars': {}}\n")
    assert _refusal(_config(tmp_path, text)) == message


@pytest.mark.parametrize(
    ("extra", "warning"),
    [
        (
            "outputPath: out.json",
            "outputPath is ignored: bench keeps every run under .bench/runs (bench run --output FILE writes a report)",
        ),
        (
            "nunjucksFilters: {up: file://up.js}",
            "nunjucksFilters: 'up' names file://up.js, which matches no file (promptfoo reads these paths "
            "without file://): a template that uses the filter fails to render",
        ),
        ("sharing: false", "sharing is ignored"),
        ("writeLatestResults: false", "writeLatestResults is ignored"),
        ("tags: {team: a}", "tags are ignored"),
        (
            "env: {TONE: calm}",
            "env: its values are shown to templates as env.NAME; bench's targets read the process environment",
        ),
    ],
)
def test_warnings(tmp_path: Path, extra: str, warning: str):
    assert _warnings(_config(tmp_path, f"prompts: [hi]\nproviders: [echo]\n{extra}\n")) == [warning]


def test_extensions_hooks_refuse_the_config_naming_the_hook(tmp_path: Path):
    # was a warning: the hooks did not run and the rows they change were reported as promptfoo's
    path = _config(
        tmp_path, "prompts: [hi]\nproviders: [echo]\nextensions: [file://hooks.js:extensionHook]\n"
    )
    assert _refusal(path) == (
        "extensions: bench does not run promptfoo's extension hooks (file://hooks.js:extensionHook); they "
        "may change the suite and each test before it runs, so the rows would not be promptfoo's: remove "
        "'extensions' to run the rest"
    )


def test_config_env_reaches_templates(tmp_path: Path):
    path = _config(tmp_path, "prompts: ['{{ env.TONE }}']\nproviders: [echo]\nenv: {TONE: calm}\n")
    assert PromptfooLoader().load(path).data["tasks"][0]["prompt"] == "calm"


def test_bench_validate_shows_the_refusal(tmp_path: Path):
    path = _config(tmp_path, "prompts: [hi]\nproviders: ['webhook:http://localhost:1']\n")
    done = subprocess.run(
        [sys.executable, "-m", "bench", "validate", str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert (done.stdout + done.stderr).strip() == f"error: {path}: providers[0]: {UNKNOWN}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "prompts: [hi]\nproviders: [echo]\ntests:\n  - vars: {x: 1}\n"
            "  - assert: [{type: contains, value: hi}, {type: contians, value: hi}]\n",
            "tests[1].assert[1]: unknown assertion type 'contians' (did you mean 'contains'?)",
        ),
        (
            "prompts: [hi]\nproviders: [echo]\ntests:\n  - assert: [{type: not-icontain, value: x}]\n",
            "tests[0].assert[0]: unknown assertion type 'not-icontain' (did you mean 'not-icontains'?)",
        ),
        (
            "prompts: [hi]\nproviders: [echo]\ntests:\n"
            "  - assert: [{type: assert-set, assert: [{type: equals, value: hi}, {type: is_json}]}]\n",
            "tests[0].assert[0].assert[1]: unknown assertion type 'is_json' (did you mean 'is-json'?)",
        ),
        (
            "prompts: [hi]\nproviders: [echo]\ndefaultTest: {assert: [{type: llm-rubrik, value: polite}]}\n"
            "tests: [{vars: {x: 1}}]\n",
            "defaultTest.assert[0]: unknown assertion type 'llm-rubrik' (did you mean 'llm-rubric'?)",
        ),
        (
            "prompts: [hi]\nproviders: [echo]\ntests: [{assert: [{value: hi}]}]\n",
            "tests[0].assert[0]: Missing required 'type' property",
        ),
    ],
)
def test_a_typo_in_an_assertion_type_is_refused_naming_the_nearest_type(
    tmp_path: Path, text: str, message: str
):
    path = _config(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        PromptfooLoader().load(path)
    assert str(caught.value) == f"{path}: {message}"


def test_bench_validate_refuses_a_typo_in_an_assertion_type(tmp_path: Path):
    path = _config(
        tmp_path, "prompts: [hi]\nproviders: [echo]\ntests: [{assert: [{type: equal, value: hi}]}]\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "bench", "validate", str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"error: {path}: tests[0].assert[0]: unknown assertion type 'equal' (did you mean 'equals'?)"
    )


def test_a_known_type_bench_does_not_check_yet_still_validates(tmp_path: Path):
    # promptfoo 0.121.20 knows trajectory:* and human; bench says so when the check runs
    path = _config(
        tmp_path,
        "prompts: [hi]\nproviders: [echo]\ntests: [{assert: [{type: trajectory:tool-used, value: x}, {type: human}]}]\n",
    )
    assert len(PromptfooLoader().load(path).data["tasks"]) == 1


def test_a_typo_in_an_assertion_type_of_the_promptfoo_evaluator_is_refused():
    from bench import BenchError
    from bench.testing import run_evaluator

    with pytest.raises(BenchError) as caught:
        run_evaluator({"type": "promptfoo", "assert": [{"type": "contians", "value": "x"}]}, "x")
    assert str(caught.value).startswith(
        "<test>: Value error, assert[0]: unknown assertion type 'contians' (did you mean 'contains'?)"
    )


def test_duplicate_provider_ids_and_labels_are_columns(tmp_path: Path):
    """promptfoo runs providers with the same id or label as separate columns and drops only an
    entry identical to an earlier one; bench gives each column a target label of its own."""
    text = "prompts: [hi]\nproviders: [echo, echo, {id: echo}, {id: echo, label: t}, {id: echo, label: t, config: {a: 1}}]\n"
    suite = PromptfooLoader().load(_config(tmp_path, text)).data
    assert [target["label"] for target in suite["targets"]] == ["echo", "echo #2", "t", "t #2"]
    assert [task["target"] for task in suite["tasks"]] == ["echo", "echo #2", "t", "t #2"]
