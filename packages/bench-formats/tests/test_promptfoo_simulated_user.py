"""promptfoo's ``promptfoo:simulated-user`` as a test's provider: a bench conversation whose user
is played by the model ``BENCH_PROMPTFOO_SIMULATED_USER`` names (promptfoo's own is its remote
service); refused at load without one. Its verdicts against promptfoo's: the conformance case
``simulated-user``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench import ConfigError
from bench_formats.promptfoo.loader import PromptfooLoader

CONFIG = """\
prompts: ['You help {{shop}}.']
providers: [openai:chat:gpt-4o-mini]
defaultTest:
  provider: {id: promptfoo:simulated-user, config: {maxTurns: 3%s}}
tests:
  - description: refund
    vars: {shop: Parcels, instructions: 'You want {{shop}} to refund you.'}
"""


def _load(folder: Path, text: str) -> list[dict[str, Any]]:
    path = folder / "promptfooconfig.yaml"
    path.write_text(text, encoding="utf-8")
    tasks: list[dict[str, Any]] = PromptfooLoader().load(path).data["tasks"]
    return tasks


def _refusal(folder: Path, text: str) -> str:
    with pytest.raises(ConfigError) as caught:
        _load(folder, text)
    return caught.value.message


def test_a_tests_simulated_user_is_not_silently_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """defaultTest.provider was dropped: the row ran as one call, its output a single reply."""
    monkeypatch.delenv("BENCH_PROMPTFOO_SIMULATED_USER", raising=False)
    assert _refusal(tmp_path, CONFIG % "") == (
        "refund: provider 'promptfoo:simulated-user' is played by promptfoo's remote generation "
        "service (its task 'tau'), which bench does not call; set BENCH_PROMPTFOO_SIMULATED_USER=MODEL "
        "(a litellm model name or a promptfoo provider id) to have that model play the user "
        "(docs/formats/promptfoo.md)"
    )


def test_the_named_model_plays_the_user_of_a_bench_conversation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BENCH_PROMPTFOO_SIMULATED_USER", "openai:chat:user-model")
    [task] = _load(tmp_path, CONFIG % "")
    assert "prompt" not in task
    assert [(m["role"], m["content"]) for m in task["input"]] == [("system", "You help Parcels.")]
    simulator = task["conversation"]["user_simulator"]
    assert simulator["model"] == "openai/user-model"
    assert (simulator["max_turns"], simulator["end_marker"]) == (3, "###STOP###")
    assert simulator["instructions"] == "You want Parcels to refund you."
    [evaluator] = task["evaluators"]
    assert evaluator["simulated_user"] is True


def test_a_stateful_simulated_user_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_PROMPTFOO_SIMULATED_USER", "openai/user-model")
    assert _refusal(tmp_path, CONFIG % ", stateful: true") == (
        "refund: promptfoo:simulated-user with config.stateful sends the target only the last message "
        "and its session id; bench's conversations send the whole history (run it without stateful)"
    )


def test_a_tests_own_provider_is_not_dropped_without_a_word(tmp_path: Path) -> None:
    """A test's own provider other than the simulated user answers its rows (promptfoo-test-provider)."""
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(
        "prompts: [hi]\nproviders: [echo]\ntests:\n  - description: own\n    provider: openai:gpt-4o\n",
        encoding="utf-8",
    )
    data = PromptfooLoader().load(path).data
    assert data["target"]["providers"] == {"0": {"type": "litellm", "model": "openai/gpt-4o"}}
    assert data["tasks"][0]["metadata"]["promptfoo_test_provider"] == "0"
