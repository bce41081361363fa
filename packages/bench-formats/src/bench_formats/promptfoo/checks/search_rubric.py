"""promptfoo's ``search-rubric`` (``src/matchers/search.ts``): ``llm-rubric`` graded by a model that
searches the web. bench asks it through the run's LLM client when the grader searches by itself
(promptfoo's ``hasWebSearchCapability`` for a chat model: a Perplexity model, OpenAI's
``gpt-4o-search-preview``, ``gpt-4o-mini-search-preview``, ``gpt-5-search-api``).

A grader that searches only through a provider tool (``hasWebSearchCapability``'s other branches:
OpenAI Responses or xAI Responses ``web_search``, Anthropic ``web_search_20250305``, Gemini/Vertex
``googleSearch``, xAI ``search_parameters``, Codex ``web_search_mode``) is an error naming that
tool: promptfoo sends it through that provider's own API (OpenAI's ``/v1/responses`` with
``tools``, Anthropic's ``/v1/messages``...), and bench's LLM client makes chat completions with no
provider tools, so no request of bench's would be promptfoo's."""

from __future__ import annotations

import re
from typing import Any

from bench import EvaluatorError
from bench.llm import LLMRequest
from bench_formats.promptfoo.checks.base import Call, Grade, js_string, js_stringify
from bench_formats.promptfoo.checks.grader import grader, parsed, provider_id, template_value
from bench_formats.promptfoo.checks.json_checks import extract_json
from bench_formats.promptfoo.checks.prompts_more import WEB_SEARCH_SYSTEM

#: promptfoo's test for an OpenAI chat model that searches the web by itself.
_SEARCH_MODEL = re.compile(r"(?:^|[/:])(?:gpt-5-search-api|gpt-4o(?:-mini)?-search-preview)(?:-|$)")
NO_SEARCH = (
    "search-rubric: the grader '{grader}' does not search the web by itself; bench asks a grader "
    "through its LLM client without provider tools, so name one that does (a perplexity: model, "
    "openai:chat:gpt-4o-search-preview, openai:chat:gpt-4o-mini-search-preview, "
    "openai:chat:gpt-5-search-api) as the assertion's provider or options.provider"
)


TOOL_SEARCH = (
    "search-rubric: the grader '{grader}' searches the web through its provider tool ({tool}), "
    "which promptfoo sends through that provider's own API; bench asks a grader through its LLM "
    "client (chat completions, no provider tools), so it cannot send that request: name a grader "
    "that searches by itself (a perplexity: model, openai:chat:gpt-4o-search-preview, "
    "openai:chat:gpt-4o-mini-search-preview, openai:chat:gpt-5-search-api)"
)


def _has_tool(config: dict[str, Any], wanted: Any) -> bool:
    tools = config.get("tools")
    return isinstance(tools, list) and any(isinstance(t, dict) and wanted(t) for t in tools)


def search_tool(grader_id: str, config: dict[str, Any]) -> str | None:
    """The provider tool by which promptfoo's ``hasWebSearchCapability`` finds this grader able to
    search (its tool-based branches), else None."""
    google = any(name in grader_id for name in ("google", "gemini", "vertex"))
    if google and _has_tool(config, lambda t: "googleSearch" in t):
        return "googleSearch"
    if "xai" in grader_id:
        search = config.get("search_parameters")
        if isinstance(search, dict) and search.get("mode") == "on":
            return "search_parameters mode on"
        if "xai:responses" in grader_id and _has_tool(config, lambda t: t.get("type") == "web_search"):
            return "web_search"
    if "openai:responses" in grader_id:
        for kind in ("web_search", "web_search_preview"):
            if _has_tool(config, lambda t, kind=kind: t.get("type") == kind):
                return kind
    if grader_id.startswith("openai:codex"):
        mode = config.get("web_search_mode")
        if mode in ("live", "cached") or config.get("web_search_enabled") is True:
            return f"web_search_mode {mode}" if mode in ("live", "cached") else "web_search_enabled"
    if "anthropic" in grader_id and _has_tool(config, lambda t: t.get("type") == "web_search_20250305"):
        return "web_search_20250305"
    return None


def _grader_config(assertion: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """The grader's ``config`` (the provider mapping's, as ``provider_id`` picks the provider)."""
    for chosen in (assertion.get("provider"), options.get("provider")):
        if isinstance(chosen, dict) and isinstance(chosen.get("text"), (str, dict)):
            chosen = chosen["text"]
        if isinstance(chosen, str):
            return {}
        if isinstance(chosen, dict) and isinstance(chosen.get("id"), str):
            config = chosen.get("config")
            return config if isinstance(config, dict) else {}
    return {}


def searches(grader_id: str) -> bool:
    """Whether promptfoo finds this grader web-search capable without any tool configured."""
    return "perplexity" in grader_id or (
        grader_id.startswith("openai:chat:") and _SEARCH_MODEL.search(grader_id) is not None
    )


async def search_rubric(call: Call, options: dict[str, Any], vars_: dict[str, Any]) -> Grade:
    """pass/score from the grader's JSON ``{reason, pass, score}``; ``threshold`` on the score."""
    if call.value is None:
        raise EvaluatorError("search-rubric assertion type must have a string value")
    chosen = provider_id(call.assertion, options)
    if not searches(chosen):
        tool = search_tool(chosen, _grader_config(call.assertion, options))
        if tool is not None:
            raise EvaluatorError(TOOL_SEARCH.format(grader=chosen, tool=tool))
        raise EvaluatorError(NO_SEARCH.format(grader=chosen))
    if options.get("rubricPrompt"):
        raise EvaluatorError("promptfoo search-rubric: options.rubricPrompt is not supported by bench yet")
    if call.sample.llm is None:
        raise EvaluatorError("promptfoo search-rubric: no LLM client in this run")
    value = parsed(call.output)
    shown = js_stringify(value) if isinstance(value, dict | list) else template_value(value)
    rubric = call.value if isinstance(call.value, str) else js_string(call.value)
    user = f"<Output>\n{shown}\n</Output>\n<Rubric>\n{rubric}\n</Rubric>"
    request = LLMRequest(
        model=grader(call.assertion, options),
        messages=[{"role": "system", "content": WEB_SEARCH_SYSTEM}, {"role": "user", "content": user}],
        purpose="judge",
    )
    reply = (await call.sample.llm.complete(request)).text
    grade = _graded(reply, call.assertion.get("threshold")) if reply else None
    if grade is None:
        grade = Grade(False, 0.0, "Search rubric evaluation failed: No output")
    if call.inverse:
        verb = "does not require" if not grade.passed else "requires"
        return Grade(not grade.passed, grade.score, f"Output {verb} web search verification: {grade.reason}")
    return grade


def _graded(reply: str, threshold: Any) -> Grade:
    objects = [o for o in extract_json(reply) if isinstance(o, dict)]
    if not objects:  # promptfoo falls back to looking for "pass":true in the text
        lower = reply.lower()
        passed = '"pass":true' in lower or '"pass": true' in lower
        return Grade(passed, float(passed), reply)
    result = objects[0]
    passed = bool(result.get("pass", False))
    score = result.get("score")
    value = float(score) if isinstance(score, int | float) and not isinstance(score, bool) else float(passed)
    if isinstance(threshold, int | float):
        passed = passed and value >= threshold
    return Grade(passed, value, str(result.get("reason") or "No reason provided"))
