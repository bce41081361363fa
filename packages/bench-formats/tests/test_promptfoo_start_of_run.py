"""Configs promptfoo runs from the start that bench refused: a Google provider's built-in tools."""

from __future__ import annotations

from pathlib import Path

import litellm

from bench.testing import load_suite


def _config(folder: Path, text: str) -> Path:
    path = folder / "promptfooconfig.yaml"
    path.write_text(text, encoding="utf-8")
    return path


GOOGLE = """\
prompts: ['What is new in {{topic}}?']
providers:
  - id: google:gemini-2.0-flash
    config:
      tools:
        - googleSearch: {}
tests:
  - vars: {topic: Python}
    assert: [{type: icontains, value: python}]
"""


def test_google_search_tool_reaches_gemini_as_google_search(tmp_path: Path):
    """promptfoo sends a Google provider's ``tools: [{googleSearch: {}}]`` to Gemini as it is;
    bench refused the config (a tool needs a name). The target now takes it, and litellm sends
    Gemini the same ``googleSearch`` tool."""
    plan = load_suite(_config(tmp_path, GOOGLE))
    tools = plan.target.config.tools  # type: ignore[union-attr]
    assert tools == [{"type": "googleSearch", "googleSearch": {}}]
    sent = litellm.utils.get_optional_params(
        model="gemini-2.0-flash", custom_llm_provider="gemini", tools=tools
    )
    assert sent["tools"] == [{"googleSearch": {}}]


def test_google_function_declarations_become_function_tools(tmp_path: Path):
    """Gemini's ``functionDeclarations`` form is one OpenAI function spec per declaration."""
    text = GOOGLE.replace(
        "- googleSearch: {}",
        "- functionDeclarations: [{name: weather, parameters: {type: object, properties: {city: {type: string}}}}]",
    )
    plan = load_suite(_config(tmp_path, text))
    assert plan.target.config.tools == [  # type: ignore[union-attr]
        {
            "type": "function",
            "function": {
                "name": "weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            },
        }
    ]
