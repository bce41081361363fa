"""A test's own ``provider:`` answers its rows, as in promptfoo (its verdicts against promptfoo's
own are in the conformance cases ``test-provider``, ``default-test-provider`` and
``default-test-provider-id``); what bench cannot run that way is refused with its reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import ConfigError
from bench.testing import LoadOptions, Reply
from bench_formats.promptfoo.loader import PromptfooLoader

STORED = """\
prompts: ['{{ q }}']
providers: [openai:chat:gpt-4o-mini]
tests:
  - vars: {q: Who are you?}
    provider: {id: openai:chat:gpt-4o-mini, config: {apiBaseUrl: API}}
    options: {storeOutputAs: name}
  - vars: {q: 'Hello {{ name }}'}
"""


def _config(folder: Path, text: str) -> Path:
    path = folder / "promptfooconfig.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_tests_own_provider_answers_under_a_bare_target_and_promptfoos_state(
    bench_cli: Any, bench_fake_llm: Any
) -> None:
    """``--target echo`` names no provider of the config: the test's own provider still answers
    its row (promptfoo's ``--providers`` too), inside promptfoo-serial's order."""
    bench_fake_llm.add(Reply("Ada"))
    _config(Path.cwd(), STORED.replace("API", bench_fake_llm.url))
    result = bench_cli("run", "promptfooconfig.yaml", "--target", "echo", "-o", "out.json")
    assert result.exit_code == 0, result.output
    tasks = json.loads(Path("out.json").read_text())["tasks"]
    assert [t["response"] for t in tasks] == ["Ada", "Hello Ada"]
    assert [r.body["messages"] for r in bench_fake_llm.requests] == [
        [{"role": "user", "content": "Who are you?"}]
    ]


def test_a_target_with_settings_is_refused_for_a_tests_own_provider(tmp_path: Path) -> None:
    path = _config(tmp_path, "prompts: [hi]\nproviders: [echo]\ntests:\n  - provider: openai:gpt-4o\n")
    with pytest.raises(ConfigError) as caught:
        PromptfooLoader(LoadOptions(target={"type": "litellm", "model": "openai/x"})).load(path)
    assert caught.value.message == (
        "--target with settings cannot run a config whose tests name their own provider "
        "(openai:gpt-4o): promptfoo answers those tests with it whatever --providers says; name a "
        "provider of the config or a bare target type"
    )


def test_an_unsupported_own_provider_is_refused_at_its_test(tmp_path: Path) -> None:
    path = _config(
        tmp_path,
        "prompts: [hi]\nproviders: [echo]\ntests:\n  - description: own\n    provider: webhook:http://x\n",
    )
    with pytest.raises(ConfigError) as caught:
        PromptfooLoader().load(path)
    assert caught.value.message == (
        "own: provider 'webhook:http://x' is not supported: bench runs echo, exec:COMMAND, file://*.py, "
        "python:*.py and the model providers litellm knows (openai:, anthropic:, azure:, bedrock:, "
        "vertex:, google:, mistral:, groq:, ollama:, ...); run the config with --target SPEC instead"
    )
    assert caught.value.field == ("tests", 0, "provider")


def test_a_provider_promptfoo_does_not_load_is_left_to_the_columns_with_a_word(tmp_path: Path) -> None:
    """``readTest`` loads an id or a mapping with ``id``; a ``{ID: options}`` map stays a plain
    object, which ``callActiveProvider`` does not call."""
    path = _config(
        tmp_path,
        "prompts: [hi]\nproviders: [echo]\ntests:\n  - description: own\n    provider: {openai:gpt-4o: {}}\n",
    )
    loader = PromptfooLoader()
    data = loader.load(path).data
    assert data["target"] == {"type": "echo"}
    assert loader.warnings == [
        "own: its provider is neither an id nor a mapping with 'id': promptfoo does not load it "
        "and answers the test with the config's providers, as bench does"
    ]


def test_a_tests_python_provider_outside_the_folder_is_refused(tmp_path: Path) -> None:
    """Its script runs, so it keeps the suite-folder rule the config's Python providers keep."""
    folder = tmp_path / "suite"
    folder.mkdir()
    (tmp_path / "outside.py").write_text("def call_api(prompt, options, context):\n    return {}\n")
    path = _config(
        folder,
        "prompts: [hi]\nproviders: [echo]\ntests:\n  - description: own\n    provider: file://../outside.py\n",
    )
    with pytest.raises(ConfigError) as caught:
        PromptfooLoader().load(path)
    real = (tmp_path / "outside.py").resolve()
    assert caught.value.message == (
        f"path escapes the suite folder: own: provider 'file://../outside.py' runs its "
        f"script (resolved to {real}); a suite may only read files inside {folder.resolve()} "
        "(pass --allow-outside-root to allow it)"
    )
