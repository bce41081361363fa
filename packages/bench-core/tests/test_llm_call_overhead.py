"""What each model call costs bench between the calls (benchmarks/README.md, the model-call rows)."""

from __future__ import annotations

import sys

import pytest

from bench.llm.judge import Judge, JudgeConfig


def test_a_judge_has_its_verdict_reader_imported_before_its_first_answer(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delitem(sys.modules, "json_repair", raising=False)

    class _Judge(Judge[JudgeConfig]):
        pass

    _Judge(JudgeConfig(model="openai/fake"))
    assert "json_repair" in sys.modules
