"""A suite whose only model calls are judges' (bench-llm-judge) imports litellm at start, and says so."""

from __future__ import annotations

from bench.testing.server import Reply


def test_a_judge_only_suite_imports_litellm_at_start_and_says_so(
    bench_cli, bench_suite_file, bench_fake_llm, monkeypatch
):
    monkeypatch.setattr("bench.llm.providers.calls._warmed_up", False)
    monkeypatch.setenv("BENCH_LLM_TRANSPORT", "litellm")  # openai/ models skip litellm otherwise
    path = bench_suite_file(
        "tasks:\n  - id: a\n    response: Paris.\n    evaluate:\n"
        "      type: llm_judge\n      criteria: Names the capital.\n      model: openai/gpt-4o-mini\n"
    )
    bench_fake_llm.default = lambda body: Reply('{"reasoning": "yes", "score": 1}')
    result = bench_cli("run", path, "--runs-dir", "runs")
    assert result.stderr.splitlines()[:2] == [
        "loaded suite.yaml: 1 tasks",
        "importing the model client (litellm)…",
    ]
