"""promptfoo's multi-turn features bench does not run are refused at load, naming them, never run
with ``_conversation`` rendered empty or ``storeOutputAs`` ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import ConfigError
from bench_formats.promptfoo.loader import PromptfooLoader


def _refusal(folder: Path, text: str) -> str:
    path = folder / "promptfooconfig.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        PromptfooLoader().load(path)
    return caught.value.message


def test_conversation_var_is_refused_not_rendered_empty(tmp_path: Path) -> None:
    message = _refusal(
        tmp_path,
        "prompts:\n  - id: chat\n    label: chat\n    raw: '{% for c in _conversation %}{{c.output}}{% endfor %}{{q}}'\n"
        "providers: [echo]\ntests:\n  - vars: {q: hi}\n",
    )
    assert message == (
        "prompt 'chat' uses _conversation, promptfoo's earlier turns of this prompt and provider: bench "
        "does not keep them (it would render them empty); write the test as a native suite's "
        "conversation: (docs/conversations.md)"
    )


def test_store_output_as_is_refused_not_ignored(tmp_path: Path) -> None:
    message = _refusal(
        tmp_path,
        "prompts: ['{{q}}']\nproviders: [echo]\ntests:\n"
        "  - description: first\n    vars: {q: hi}\n    options: {storeOutputAs: greeting}\n"
        "  - vars: {q: '{{greeting}} again'}\n",
    )
    assert message == (
        "first: options.storeOutputAs is not supported: bench runs tests independently and does not pass "
        "one test's output to later tests' vars; write the turns as a native suite's conversation: "
        "(docs/conversations.md)"
    )


def test_store_output_as_in_default_test_is_refused(tmp_path: Path) -> None:
    message = _refusal(
        tmp_path,
        "prompts: ['{{q}}']\nproviders: [echo]\ndefaultTest: {options: {storeOutputAs: out}}\n"
        "tests:\n  - vars: {q: hi}\n",
    )
    assert message.startswith("test 1: options.storeOutputAs is not supported")


def test_simulated_user_provider_is_refused_naming_it(tmp_path: Path) -> None:
    message = _refusal(
        tmp_path,
        "prompts: ['{{q}}']\nproviders:\n  - id: promptfoo:simulated-user\n    config: {maxTurns: 3}\n"
        "tests:\n  - vars: {q: hi, instructions: ask for a refund}\n",
    )
    assert message == (
        "provider 'promptfoo:simulated-user' is not supported: bench does not run promptfoo's simulated "
        "user (its conversation with the target provider); write the test as a native suite's "
        "conversation: with a user_simulator: (docs/conversations.md)"
    )
