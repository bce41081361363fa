"""promptfoo's select-best and max-score re-decide a test's rows; the graders bench cannot ask are
errors that say why (the conformance cases compare-rows and graded-more give promptfoo's verdicts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.testing import Reply, run_evaluator, run_suite

pytestmark = pytest.mark.timeout(60)


def _rows(tmp_path: Path, config: str) -> dict[str, dict[str, Any]]:
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(config)
    return {t["id"]: t for t in run_suite(path, runs_dir=tmp_path / "runs").report.tasks()}


def test_select_best_over_one_column_is_an_error_on_its_row(tmp_path: Path, bench_fake_llm: Any) -> None:
    rows = _rows(
        tmp_path,
        "prompts: ['{{q}}']\nproviders: [echo]\n"
        "tests: [{vars: {q: a}, assert: [{type: contains, value: a}, {type: select-best, value: best}]}]\n",
    )
    [row] = rows.values()
    assert row["status"] == "error"
    assert (
        row["evaluators"][0]["error"]
        == "select-best assertion must have at least two outputs to compare between"
    )
    assert bench_fake_llm.count() == 0  # no grader asked


def test_max_score_without_another_assertion_is_an_error_on_each_row(tmp_path: Path) -> None:
    rows = _rows(
        tmp_path,
        "prompts: ['{{q}}', 'x {{q}}']\nproviders: [echo]\ntests: [{vars: {q: a}, assert: [{type: max-score}]}]\n",
    )
    assert [row["status"] for row in rows.values()] == ["error", "error"]
    assert {row["evaluators"][0]["error"] for row in rows.values()} == {
        "max-score requires at least one other assertion (besides max-score or select-best) to aggregate scores from"
    }


def test_a_row_whose_own_check_did_not_run_stays_an_error_after_select_best(
    tmp_path: Path, bench_fake_llm: Any
) -> None:
    bench_fake_llm.add(Reply("0"))
    rows = _rows(
        tmp_path,
        "prompts: ['{{q}}', 'x {{q}}']\nproviders: [echo]\n"
        "tests: [{vars: {q: a}, assert: [{type: ruby, value: 'true'}, {type: select-best, value: best}]}]\n",
    )
    assert [row["status"] for row in rows.values()] == ["error", "error"]
    assert {row["evaluators"][0]["error"] for row in rows.values()} == {
        "ruby: did not run: bench does not run Ruby assertions"
    }
    assert bench_fake_llm.count() == 0  # no row has a verdict to re-decide: no grader is asked


def test_search_rubric_with_a_grader_that_does_not_search_is_an_error_naming_it(bench_fake_llm: Any) -> None:
    out = run_evaluator(
        {
            "type": "promptfoo",
            "assert": [{"type": "search-rubric", "value": "names the CEO"}],
            "options": {"provider": "openai:chat:gpt-4o-mini"},
        },
        "Satya Nadella",
    )
    assert out.error == (
        "search-rubric: the grader 'openai:chat:gpt-4o-mini' does not search the web by itself; bench asks a "
        "grader through its LLM client without provider tools, so name one that does (a perplexity: model, "
        "openai:chat:gpt-4o-search-preview, openai:chat:gpt-4o-mini-search-preview, "
        "openai:chat:gpt-5-search-api) as the assertion's provider or options.provider"
    )
    assert bench_fake_llm.count() == 0


@pytest.mark.parametrize(
    ("provider", "tool"),
    [
        (
            {"id": "openai:responses:gpt-4.1-mini", "config": {"tools": [{"type": "web_search_preview"}]}},
            "web_search_preview",
        ),
        (
            {
                "id": "anthropic:messages:claude-sonnet-4-6",
                "config": {"tools": [{"type": "web_search_20250305"}]},
            },
            "web_search_20250305",
        ),
        ({"id": "google:gemini-2.5-pro", "config": {"tools": [{"googleSearch": {}}]}}, "googleSearch"),
        ({"id": "xai:grok-3", "config": {"search_parameters": {"mode": "on"}}}, "search_parameters mode on"),
    ],
)
def test_search_rubric_with_a_provider_tool_grader_is_an_error_naming_its_tool(
    provider: dict[str, Any], tool: str
) -> None:
    """promptfoo sends such a grader its provider's own API (OpenAI's /v1/responses with tools...),
    which bench's LLM client does not make: an error naming the tool, before any model is asked."""
    out = run_evaluator(
        {
            "type": "promptfoo",
            "assert": [{"type": "search-rubric", "value": "names the CEO"}],
            "options": {"provider": {"text": provider}},
        },
        "Satya Nadella",
    )
    assert out.error == (
        f"search-rubric: the grader '{provider['id']}' searches the web through its provider tool ({tool}), "
        "which promptfoo sends through that provider's own API; bench asks a grader through its LLM client "
        "(chat completions, no provider tools), so it cannot send that request: name a grader that searches "
        "by itself (a perplexity: model, openai:chat:gpt-4o-search-preview, "
        "openai:chat:gpt-4o-mini-search-preview, openai:chat:gpt-5-search-api)"
    )


def test_pi_is_an_error_saying_why() -> None:
    out = run_evaluator({"type": "promptfoo", "assert": [{"type": "pi", "value": "x"}]}, "hello")
    assert out.error == (
        "pi: did not run: promptfoo asks Pi Labs' remote scoring API (withpi.ai, WITHPI_API_KEY), "
        "which bench does not call"
    )


def test_select_best_in_an_offline_run_is_an_error_naming_its_remote_grader(tmp_path: Path) -> None:
    path = tmp_path / "promptfooconfig.yaml"
    path.write_text(
        "prompts: ['{{q}}', 'x {{q}}']\nproviders: [echo]\n"
        "tests: [{vars: {q: a}, assert: [{type: contains, value: a}, {type: select-best, value: best}]}]\n"
    )
    rows = list(run_suite(path, runs_dir=tmp_path / "runs", offline=True).report.tasks())
    assert [row["status"] for row in rows] == ["error", "error"]
    assert {row["evaluators"][0]["error"] for row in rows} == {
        "offline: select-best needs openai/gpt-4.1-2025-04-14"
    }


def test_select_best_counts_its_grader_among_the_rows_model_calls() -> None:
    # the run checks that grader's key before the first task, and estimates its cost
    from bench_formats.promptfoo.evaluator import Promptfoo, PromptfooConfig

    asserts = [{"type": "contains", "value": "a"}, {"type": "select-best", "value": "x"}]
    config = PromptfooConfig.model_validate(
        {"assert": asserts, "options": {"provider": "openai:chat:gpt-4o-mini"}}
    )
    assert Promptfoo(config).llm_calls() == [("openai/gpt-4o-mini", 1)]
