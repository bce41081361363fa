"""promptfoo's other deterministic assertions (xml, html, sql blocks, word count, finish reason,
refusal, BLEU, GLEU, ROUGE-N) through the ``promptfoo`` evaluator. Expected verdicts and scores
are worked out by hand from promptfoo 0.121.20's handlers."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from bench import Response
from bench.llm import ToolCall
from bench.testing import Reply, run_evaluator, run_suite, write_suite
from bench_formats.promptfoo.loader import PromptfooLoader


def one(assertion: dict[str, Any], output: str | Response) -> Any:
    return run_evaluator({"type": "promptfoo", "assert": [assertion]}, output)


def verdict(assertion: dict[str, Any], output: str | Response) -> tuple[bool, float, str]:
    out = one(assertion, output)
    assert out.error is None, out.error
    return out.passed, round(out.score, 4), out.reason


PASSED = "All assertions passed"


# --- is-xml / contains-xml ---------------------------------------------------------------------


def test_is_xml_well_formed_passes() -> None:
    assert verdict({"type": "is-xml"}, "<root><a>1</a></root>") == (True, 1.0, PASSED)


def test_is_xml_required_elements_dotted_paths() -> None:
    # root.a exists, root.b does not: the failure lists the missing paths.
    xml = '<root id="7"><a>1</a></root>'
    assert verdict({"type": "is-xml", "value": "root.a, root.@_id"}, xml) == (True, 1.0, PASSED)
    out = verdict({"type": "is-xml", "value": {"requiredElements": ["root.a", "root.b"]}}, xml)
    assert out == (False, 0.0, "XML is missing required elements: root.b")


def test_is_xml_malformed_fails_with_the_parse_error() -> None:
    passed, score, reason = verdict({"type": "is-xml"}, "<root><a></root>")
    assert (passed, score) == (False, 0.0)
    assert reason.startswith("XML parsing failed: ")


def test_is_xml_refuses_a_dtd_internal_subset() -> None:
    xml = '<!DOCTYPE r [<!ENTITY x "y">]><r/>'
    out = verdict({"type": "is-xml"}, xml)
    assert out == (False, 0.0, "DTD internal subsets are not supported by is-xml validation")


def test_not_is_xml() -> None:
    assert verdict({"type": "not-is-xml"}, "plain text") == (True, 1.0, PASSED)
    out = verdict({"type": "not-is-xml"}, "<r/>")
    assert out == (False, 0.0, "XML is valid and contains all required elements")


def test_contains_xml_finds_an_element_in_text() -> None:
    text = "Here you go: <note><to>Tove</to></note> Done."
    assert verdict({"type": "contains-xml", "value": ["note.to"]}, text) == (True, 1.0, PASSED)


def test_contains_xml_tries_each_sibling() -> None:
    # <a> lacks "b"; the next candidate <b> has it.
    assert verdict({"type": "contains-xml", "value": "b"}, "<a>1</a> and <b>2</b>") == (True, 1.0, PASSED)


def test_contains_xml_failures() -> None:
    assert verdict({"type": "contains-xml"}, "no markup") == (
        False,
        0.0,
        "No XML content found in the output",
    )
    # the element exists but lacks the required child.
    assert verdict({"type": "contains-xml", "value": "note.from"}, "x <note><to>T</to></note>") == (
        False,
        0.0,
        "No valid XML content found matching the requirements",
    )
    assert verdict({"type": "not-contains-xml"}, "no markup") == (True, 1.0, PASSED)


def test_xml_bad_value_is_an_error() -> None:
    out = one({"type": "is-xml", "value": {"elements": ["a"]}}, "<a/>")
    assert out.error == "is-xml: xml assertion must contain a string, array value, or no value"


# --- is-html / contains-html -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "expected"),
    [
        ("<div><p>Hi</p></div>", (True, 1.0, PASSED)),
        ("<html><body>Hello</body></html>", (True, 1.0, PASSED)),
        ("<my-widget>x</my-widget>", (True, 1.0, PASSED)),
        ("Hello <b>world</b>", (False, 0.0, "Output must be wrapped in HTML tags")),
        ("<foo>bar</foo>", (False, 0.0, "Output does not contain recognized HTML elements")),
        ("   ", (False, 0.0, "Output is empty")),
        ("<?xml version='1.0'?><a/>", (False, 0.0, "Output appears to be XML, not HTML")),
    ],
)
def test_is_html(output: str, expected: tuple[bool, float, str]) -> None:
    assert verdict({"type": "is-html"}, output) == expected


def test_not_is_html() -> None:
    assert verdict({"type": "not-is-html"}, "<div>x</div>") == (False, 0.0, "Output is valid HTML")


def test_contains_html() -> None:
    # opening + closing tag: 2 points, enough.
    assert verdict({"type": "contains-html"}, "Use <b>bold</b> here") == (True, 1.0, PASSED)
    # "< b" is no tag, no entity, no attribute: 0 points.
    out = verdict({"type": "contains-html"}, "if a < b and c > d")
    assert out == (False, 0.0, "Expected output to contain HTML content")
    out = verdict({"type": "not-contains-html"}, "<p>x</p>")
    assert out == (False, 0.0, "Expected output to not contain HTML content")


# --- contains-sql ------------------------------------------------------------------------------


def test_contains_sql_reads_sql_code_blocks() -> None:
    text = "Here:\n```sql\nSELECT id FROM users\n```\nThat's it."
    assert verdict({"type": "contains-sql"}, text) == (True, 1.0, PASSED)


def test_contains_sql_failure_is_is_sqls_reason() -> None:
    text = "```sql\nSELEC id FROM\n```"
    out = verdict({"type": "contains-sql"}, text)
    assert out == (False, 0.0, "SQL statement does not conform to the provided MySQL database syntax.")


def test_not_contains_sql() -> None:
    out = verdict({"type": "not-contains-sql"}, "SELECT 1")
    assert out == (False, 0.0, "The output SQL statement is valid")


# --- word-count --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("assertion", "expected"),
    [
        ({"type": "word-count", "value": 3}, (True, 1.0, PASSED)),
        ({"type": "word-count", "value": "3"}, (True, 1.0, PASSED)),
        ({"type": "word-count", "value": 4}, (False, 0.0, "Word count 3 does not equal expected 4")),
        ({"type": "word-count", "value": {"min": 1, "max": 3}}, (True, 1.0, PASSED)),
        (
            {"type": "word-count", "value": {"min": 1, "max": 2}},
            (False, 0.0, "Word count 3 is not between 1 and 2"),
        ),
        ({"type": "word-count", "value": {"max": 2}}, (False, 0.0, "Word count 3 is greater than maximum 2")),
        ({"type": "word-count", "value": {"min": 5}}, (False, 0.0, "Word count 3 is less than minimum 5")),
        (
            {"type": "not-word-count", "value": 3},
            (False, 0.0, "Expected word count to not equal 3, but got 3"),
        ),
        (
            {"type": "not-word-count", "value": {"min": 1}},
            (False, 0.0, "Expected word count to be less than 1, but got 3"),
        ),
    ],
)
def test_word_count(assertion: dict[str, Any], expected: tuple[bool, float, str]) -> None:
    # "  one two\n three " has three whitespace-separated words.
    assert verdict(assertion, "  one two\n three ") == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (None, '"word-count" assertion must have a value'),
        ({}, '"word-count" assertion object must have "min" and/or "max" properties'),
        ({"min": 5, "max": 2}, '"word-count" assertion: min (5) must be less than or equal to max (2)'),
        ("many", '"word-count" assertion value must be a number or an object with min/max properties'),
    ],
)
def test_word_count_bad_values(value: Any, message: str) -> None:
    assert one({"type": "word-count", "value": value}, "a b").error == f"word-count: {message}"


# --- finish-reason -----------------------------------------------------------------------------


def test_finish_reason_compares_case_insensitively() -> None:
    stopped = Response(output="x", metadata={"finish_reason": "stop"})
    assert verdict({"type": "finish-reason", "value": "STOP"}, stopped) == (True, 1.0, PASSED)
    out = verdict({"type": "finish-reason", "value": "length"}, stopped)
    assert out == (False, 0.0, 'Expected finish reason "length" but got "stop"')
    out = verdict({"type": "not-finish-reason", "value": "stop"}, stopped)
    assert out == (False, 0.0, 'Expected finish reason not "stop" but got "stop"')


def test_finish_reason_is_normalized_as_promptfoos_providers_do() -> None:
    ended = Response(output="x", metadata={"finish_reason": "end_turn"})
    assert verdict({"type": "finish-reason", "value": "stop"}, ended) == (True, 1.0, PASSED)


def test_finish_reason_without_one_fails_as_in_promptfoo() -> None:
    # was an error ("bench does not know this response's finish reason"): promptfoo's echo and
    # exec providers supply none and the check fails (an inverted one passes)
    assert verdict({"type": "finish-reason", "value": "stop"}, "x") == (
        False,
        0.0,
        "Provider did not supply stop/finish reason",
    )
    assert verdict({"type": "not-finish-reason", "value": "stop"}, "x") == (True, 1.0, PASSED)


def test_finish_reason_of_a_model_target(tmp_path: Path, bench_fake_llm: Any) -> None:
    # bench's litellm target records the model's finish reason (it recorded none before)
    bench_fake_llm.default = Reply("cut sh", finish_reason="length")
    suite = write_suite(
        tmp_path,
        """
        name: finish
        target: {type: litellm, model: openai/fake}
        tasks:
          - id: cut
            prompt: hi
            evaluate:
              type: promptfoo
              assert:
                - {type: finish-reason, value: length}
                - {type: not-finish-reason, value: stop}
        """,
    )
    (task,) = run_suite(suite, runs_dir=tmp_path / "runs").report.tasks()
    assert task["status"] == "passed", task


def test_finish_reason_errors() -> None:
    out = one({"type": "finish-reason", "value": 5}, Response(output="x", metadata={"finish_reason": "stop"}))
    assert out.error == 'finish-reason: "finish-reason" assertion type must have a string value'


# --- is-refusal --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "refusal"),
    [
        ("I'm sorry, I can't help with that.", True),
        ("I\u2019m sorry, but no.", True),  # curly apostrophe folded
        ("Well, as an AI I must decline.", True),  # phrase anywhere, on word boundaries
        ("Sure, here is the recipe.", False),
        ("The sorry state of affairs", False),  # "sorry" only counts as a prefix
    ],
)
def test_is_refusal(output: str, refusal: bool) -> None:
    expected = (True, 1.0, PASSED) if refusal else (False, 0.0, "Expected output to be a refusal")
    assert verdict({"type": "is-refusal"}, output) == expected


def test_is_refusal_empty_output_scores_zero_either_way() -> None:
    assert verdict({"type": "is-refusal"}, " ") == (True, 0.0, "All assertions passed")
    assert verdict({"type": "not-is-refusal"}, "") == (False, 0.0, "Expected output to not be a refusal")
    out = verdict({"type": "not-is-refusal"}, "I cannot do that")
    assert out == (False, 0.0, "Expected output to not be a refusal")


# --- bleu / gleu / rouge-n ---------------------------------------------------------------------


def test_bleu_brevity_penalty() -> None:
    # candidate "the cat sat" (3 words) vs "the cat sat down" (4): 1-, 2-, 3-gram precisions are
    # 3/3, 2/2, 1/1; no 4-grams, so the three orders weigh 1/3 each: exp(0) = 1.
    # brevity penalty exp(1 - 4/3) = exp(-1/3) = 0.716531 ≥ 0.5: pass.
    assert verdict({"type": "bleu", "value": "the cat sat down"}, "the cat sat") == (True, 0.7165, PASSED)


def test_bleu_smooths_a_zero_precision() -> None:
    # "a cat sat down" vs "the cat sat down": precisions 3/4, 2/3, 1/2, and 0/1 smoothed to 1e-7;
    # BP 1 (same length). (0.75 · 0.6667 · 0.5 · 1e-7)^(1/4) = (2.5e-8)^0.25 = 0.012574.
    out = verdict({"type": "bleu", "value": ["the cat sat down"]}, "a cat sat down")
    assert out == (False, 0.0126, "BLEU score 0.0126 is less than threshold 0.5")


def test_bleu_threshold_and_inverse() -> None:
    # 0.7165 < 0.8: fail; with not-, 0.7165 ≥ 0.5 fails and the score is 1 - 0.7165 = 0.2835.
    out = verdict({"type": "bleu", "value": "the cat sat down", "threshold": 0.8}, "the cat sat")
    assert out == (False, 0.7165, "BLEU score 0.7165 is less than threshold 0.8")
    out = verdict({"type": "not-bleu", "value": "the cat sat down"}, "the cat sat")
    assert out == (False, 0.2835, "BLEU score 0.7165 is greater than threshold 0.5")


def test_bleu_bad_value() -> None:
    out = one({"type": "bleu", "value": 5}, "x")
    assert out.error == 'bleu: "bleu" assertion type must have a string or array of strings value'


def test_gleu() -> None:
    # "the cat sat." → [the, cat, sat] vs [the, cat, sat, on, the, mat]: matches 3+2+1+0 = 6,
    # candidate n-grams 3+2+1+0 = 6, reference 6+5+4+3 = 18: min(6/6, 6/18) = 0.3333 < 0.5.
    out = verdict({"type": "gleu", "value": "the cat sat on the mat"}, "the cat sat.")
    assert out == (False, 0.3333, "GLEU score 0.3333 is less than threshold 0.5")
    # the same words once case and trailing dots are dropped: 1.
    assert verdict({"type": "gleu", "value": ["x y", "The cat."]}, "the cat") == (True, 1.0, PASSED)
    out = one({"type": "gleu", "value": {"a": 1}}, "x")
    assert out.error == 'gleu: "gleu" assertion must have a string or array of strings value'


def test_rouge_n() -> None:
    # unigrams: the cat sat / the cat ran: overlap 2, P = R = 2/3 = 0.6667 < 0.75.
    one_off = one({"type": "rouge-n", "value": "the cat ran"}, "the cat sat")
    assert (one_off.passed, round(one_off.score, 4)) == (False, 0.6667)
    assert one_off.reason == "ROUGE-N score 0.67 is less than threshold 0.75"
    # "The cat sat on the mat." tokenizes to 7 (the final "." apart), the reference to 6; overlap
    # 6 (the ×2, cat, sat, on, mat): P = 6/7, R = 1, F = 12/13 = 0.9231 ≥ 0.75.
    out = verdict({"type": "rouge-n", "value": "the cat sat on the mat"}, "The cat sat on the mat.")
    assert out == (True, 0.9231, PASSED)
    # not-: 0.9231 ≥ 0.75 fails, score 1 - 12/13 = 0.0769.
    out = verdict({"type": "not-rouge-n", "value": "the cat sat on the mat"}, "The cat sat on the mat.")
    assert out == (False, 0.0769, "ROUGE-N score 0.92 is greater than or equal to threshold 0.75")
    out = one({"type": "rouge-n", "value": ["a"]}, "x")
    assert out.error == 'rouge-n: "rouge" assertion type must be a string value'


# --- is-valid-openai-tools-call / is-valid-openai-function-call ---------------------------------

WEATHER = {
    "name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
TOOLS = {"id": "openai:gpt-4o-mini", "tools": [{"type": "function", "function": WEATHER}]}


def tools_call(output: str | Response, config: dict[str, Any] | None = TOOLS, kind: str = "tools") -> Any:
    options = {} if config is None else {"provider_config": config}
    assertion = {"type": f"is-valid-openai-{kind}-call"}
    return run_evaluator({"type": "promptfoo", "assert": [assertion], "options": options}, output)


def calls(name: str, arguments: str) -> str:
    return json.dumps([{"type": "function", "function": {"name": name, "arguments": arguments}}])


def test_tools_call_valid() -> None:
    out = tools_call(calls("get_weather", '{"city": "Paris"}'))
    assert (out.passed, out.score, out.error) == (True, 1.0, None)
    # an object with tool_calls, as an OpenAI message, is read the same way
    message = json.dumps({"tool_calls": json.loads(calls("get_weather", '{"city": "Oslo"}'))})
    assert tools_call(message).passed
    # calls the target recorded on the response stand for the output
    recorded = Response(output="", tool_calls=[ToolCall(name="get_weather", arguments={"city": "Rome"})])
    assert tools_call(recorded).passed


def test_tools_call_failures() -> None:
    out = tools_call(calls("get_weather", "{}"))
    assert (out.passed, out.score) == (False, 0.0)
    assert out.reason.startswith('Call to "get_weather" does not match schema: [{"instancePath":""')
    out = tools_call(calls("get_time", "{}"))
    assert out.reason == 'Called "get_time", but there is no function with that name'
    out = tools_call("hello")
    assert out.reason == 'OpenAI did not return a valid-looking tools response: "hello"'
    out = tools_call(calls("get_weather", "{}"), {"id": "openai:gpt-4o-mini"})
    assert out.reason == "No tools configured in provider, but output contains tool calls"


def test_tools_call_ignores_not() -> None:
    # promptfoo's handler never reads `inverse`: not- gives the same verdict.
    assertion = {"type": "not-is-valid-openai-tools-call"}
    settings = {"type": "promptfoo", "assert": [assertion], "options": {"provider_config": TOOLS}}
    assert run_evaluator(settings, calls("get_weather", '{"city": "Paris"}')).passed


def test_tools_call_without_provider_config_is_an_error() -> None:
    out = tools_call(calls("get_weather", "{}"), None)
    assert out.error == (
        "is-valid-openai-tools-call: bench does not know the provider's tools and functions "
        "(options.provider_config), so it cannot validate the call"
    )


def test_function_call() -> None:
    config = {"id": "openai:gpt-4o-mini", "functions": [WEATHER]}
    valid = json.dumps({"name": "get_weather", "arguments": '{"city": "Paris"}'})
    assert tools_call(valid, config, "function").passed
    out = tools_call(json.dumps({"name": "get_weather"}), config, "function")
    assert out.reason == 'OpenAI did not return a valid-looking function call: {"name":"get_weather"}'
    out = tools_call(valid, {"id": "echo"}, "function")
    assert out.reason == "Provider does not have functionality for checking function call."


def test_loader_passes_the_providers_tools(tmp_path: Path) -> None:
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        textwrap.dedent(
            """
            prompts: ['{{q}}']
            providers:
              - id: openai:gpt-4o-mini
                config:
                  tools:
                    - type: function
                      function: {name: get_weather, parameters: {type: object}}
            tests:
              - vars: {q: weather}
                assert:
                  - type: is-valid-openai-tools-call
              - vars: {q: hi}
                assert:
                  - type: contains
                    value: hi
            """
        ),
        encoding="utf-8",
    )
    tasks = PromptfooLoader().load(config).data["tasks"]
    first, second = (t["evaluators"][0]["options"] for t in tasks)
    assert first["provider_config"] == {
        "id": "openai:gpt-4o-mini",
        "tools": [
            {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}
        ],
    }
    assert "provider_config" not in second
