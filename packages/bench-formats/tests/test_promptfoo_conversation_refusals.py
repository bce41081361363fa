"""promptfoo's multi-turn features bench does not run are refused at load, naming them (its
``_conversation`` and ``storeOutputAs`` run: test_promptfoo_serial.py)."""

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


def test_simulated_user_provider_is_refused_naming_it(tmp_path: Path) -> None:
    message = _refusal(
        tmp_path,
        "prompts: ['{{q}}']\nproviders:\n  - id: promptfoo:simulated-user\n    config: {maxTurns: 3}\n"
        "tests:\n  - vars: {q: hi, instructions: ask for a refund}\n",
    )
    assert message == (
        "provider 'promptfoo:simulated-user' is a test's provider (tests[].provider or "
        "defaultTest.provider), talking to the config's providers; as one of 'providers:' it has no "
        "target to talk to"
    )
