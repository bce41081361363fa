"""promptfoo's g-eval and RAG checks (answer-relevance, context-faithfulness, context-recall,
context-relevance) against the fake server: promptfoo's prompts go out, its parsing decides."""

from __future__ import annotations

import hashlib
import math
import shutil
from typing import Any

import pytest

from bench import Task
from bench.testing import Reply, run_evaluator

pytestmark = pytest.mark.timeout(60)

QUESTION = "What is the capital of France?"


def check(asserts: list[dict[str, Any]], output: str, prompt: str = QUESTION, **settings: Any) -> Any:
    task = Task(id="t", prompt=prompt)
    return run_evaluator({"type": "promptfoo", "assert": asserts, **settings}, output, task=task)


def _sent(server: Any) -> list[str]:
    """Each chat request's one user message, in order."""
    out = []
    for request in server.requests:
        if request.path.endswith("/chat/completions"):
            (message,) = request.body["messages"]
            assert message["role"] == "user"
            out.append(message["content"])
    return out


def _r(out: Any) -> str:
    """The (only) assertion's own reason."""
    return str(out.details["assertions"][0]["reason"])


def _replies(*texts: str) -> Any:
    """A responder answering the chat requests in order."""
    pending = list(texts)
    return lambda body: Reply(pending.pop(0))


GEVAL_STEPS_PROMPT = """
Given evaluation criteria that outline how you should judge a piece of text, generate 3-4 concise evaluation steps applicable to any text based on the criteria below and designed to check whether the criteria are satisfied by the text.

**EVALUATION CRITERIA**
Names the capital

**OUTPUT FORMAT**
IMPORTANT:
- Return output ONLY as a minified JSON object (no code fences).
- The JSON object must contain a single key, "steps", whose value is a list of strings.
- Each string must represent one evaluation step.
- Do NOT include any explanations, commentary, extra text, or additional formatting.

Format:
{"steps": <list_of_strings>}

Example:
{"steps":["<Evaluation Step 1>","<Evaluation Step 2>","<Evaluation Step 3>","<Evaluation Step 4>"]}

Here are the 3-4 concise evaluation steps, formatted as required in a minified JSON:
JSON:
"""

STEPS = '{"steps":["Find a city","Check it is the capital"]}'


# -- g-eval ---------------------------------------------------------------------------------------


def test_g_eval_prompts_and_score(bench_fake_llm: Any) -> None:
    bench_fake_llm.add(_replies(STEPS, '{"score":8,"reason":"Paris is named"}'))
    out = check([{"type": "g-eval", "value": "Names the capital"}], "Paris")
    # 8 / 10 = 0.8 ≥ 0.7 (promptfoo's default threshold): pass.
    assert (out.passed, out.score, _r(out)) == (True, 0.8, "Paris is named")
    steps, evaluate = _sent(bench_fake_llm)
    assert steps == GEVAL_STEPS_PROMPT
    assert evaluate.startswith("\nYou will be given one Reply for a Prompt below.")
    assert "**Evaluation Criteria**\nNames the capital\n\n" in evaluate
    assert "**Evaluation Steps**\n- Find a city\n- Check it is the capital\n" in evaluate
    assert "an integer from 0 to 10, where 10 indicates" in evaluate
    assert f"**Prompt**\n{QUESTION}\n\n**Reply**\nParis\n\n" in evaluate
    assert evaluate.endswith("Here is the final evaluation in the required minified JSON format:\nJSON:\n")
    assert bench_fake_llm.requests[-1].body["model"] == "gpt-4.1-2025-04-14"


def test_g_eval_threshold_and_not(bench_fake_llm: Any) -> None:
    bench_fake_llm.add(_replies(STEPS, '{"score":"6","reason":"r"}', STEPS, '{"score":6,"reason":"r"}'))
    out = check([{"type": "g-eval", "value": "c"}], "Paris")
    assert (out.passed, out.score) == (False, 0.6)  # 0.6 < 0.7
    out = check([{"type": "not-g-eval", "value": "c", "threshold": 0.5}], "Paris")
    assert (out.passed, out.score) == (False, 0.4)  # 0.6 ≥ 0.5, inverted: fail; score 1 - 0.6


def test_g_eval_criteria_list_averages(bench_fake_llm: Any) -> None:
    bench_fake_llm.add(_replies(STEPS, '{"score":10,"reason":"a"}', STEPS, '{"score":5,"reason":"b"}'))
    out = check([{"type": "g-eval", "value": ["one", "two"]}], "Paris")
    # (1.0 + 0.5) / 2 = 0.75 ≥ 0.7; reasons joined by a blank line.
    assert (out.passed, out.score, _r(out)) == (True, 0.75, "a\n\nb")
    assert "**EVALUATION CRITERIA**\ntwo\n" in _sent(bench_fake_llm)[2]


@pytest.mark.parametrize(
    ("replies", "reason"),
    [
        (["no json"], "LLM-proposed evaluation steps are not in JSON format: no json"),
        (['{"steps":[]}'], "LLM does not propose any evaluation step"),
        (['{"steps":"x"}'], 'G-Eval steps response has invalid or missing steps: "x"'),
        (['{"steps":["a",""]}'], 'G-Eval steps response contains invalid steps: ["a",""]'),
        ([STEPS, "none"], "LLM-proposed evaluation result is not in JSON format: none"),
        ([STEPS, '{"score":11,"reason":"r"}'], "G-Eval result score 11 is outside the expected 0-10 range"),
        ([STEPS, '{"reason":"r"}'], "G-Eval result has invalid or missing score: undefined"),
        ([STEPS, '{"score":3}'], "G-Eval result has invalid or missing reason: undefined"),
    ],
)
def test_g_eval_unusable_reply_fails_even_inverted(
    bench_fake_llm: Any, replies: list[str], reason: str
) -> None:
    bench_fake_llm.add(_replies(*replies, *replies))
    assert (lambda o: (o.passed, o.score, _r(o)))(check([{"type": "g-eval", "value": "c"}], "x")) == (
        False,
        0.0,
        reason,
    )
    out = check([{"type": "not-g-eval", "value": "c"}], "x")  # a grader failure is not flipped
    assert (out.passed, out.score, _r(out)) == (False, 0.0, reason)


def test_g_eval_list_failure_names_the_criterion(bench_fake_llm: Any) -> None:
    bench_fake_llm.add(_replies(STEPS, '{"score":9,"reason":"a"}', "bad"))
    out = check([{"type": "g-eval", "value": ["one", "two"]}], "x")
    assert (out.passed, out.score) == (False, 0.0)
    assert _r(out) == (
        'G-Eval criterion 2/2 ("two") failed: LLM-proposed evaluation steps are not in JSON format: bad'
    )


def test_g_eval_bad_values(bench_fake_llm: Any) -> None:
    out = check([{"type": "g-eval", "value": []}], "x")
    assert (out.passed, _r(out)) == (
        False,
        "G-Eval assertion requires at least one criterion string in the value array.",
    )
    out = check([{"type": "g-eval", "value": 3}], "x")
    assert out.error == "g-eval: G-Eval assertion type must have a string or array of strings value"
    out = check([{"type": "g-eval", "value": "c"}], "x", prompt="")
    assert out.error == "g-eval: No source text to estimate reply"
    assert bench_fake_llm.count() == 0


# -- answer-relevance ------------------------------------------------------------------------------


def _fake_vector(text: str) -> list[float]:
    # the fake server's embedding: the first 8 bytes of sha256(text), each / 255.
    return [b / 255 for b in hashlib.sha256(text.encode()).digest()[:8]]


def _cosine(a: str, b: str) -> float:
    x, y = _fake_vector(a), _fake_vector(b)
    return sum(p * q for p, q in zip(x, y, strict=True)) / (math.hypot(*x) * math.hypot(*y))


def test_answer_relevance(bench_fake_llm: Any) -> None:
    bench_fake_llm.add(_replies("Q1", "Q2", "Q3", "Q1", "Q2", "Q3"))
    out = check([{"type": "answer-relevance"}], "Paris")
    # the mean cosine between the question asked and the grader's three questions.
    mean = sum(_cosine(QUESTION, q) for q in ("Q1", "Q2", "Q3")) / 3
    assert (out.passed, round(out.score, 9)) == (True, round(mean, 9))  # threshold 0
    assert _r(out) == f"Relevance {mean:.2f} is greater than threshold 0"
    prompts = _sent(bench_fake_llm)
    assert prompts[0] == (
        "Generate question for the given answer.\nAnswer:\nThe PSLV-C56 mission is scheduled to be "
        "launched on Sunday, 30 July 2023 at 06:30 IST / 01:00 UTC. It will be launched from the "
        "Satish Dhawan Space Centre, Sriharikota, Andhra Pradesh, India\nQuestion: When is the "
        "scheduled launch date and time for the PSLV-C56 mission, and where will it be launched "
        "from?\n\nAnswer:Paris\nQuestion:"
    )
    assert prompts == [prompts[0]] * 3
    (embedded,) = [r.body for r in bench_fake_llm.requests if r.path.endswith("/embeddings")]
    assert (embedded["model"], embedded["input"]) == ("text-embedding-3-large", [QUESTION, "Q1", "Q2", "Q3"])
    out = check([{"type": "answer-relevance", "threshold": 0.999}], "Paris", vars={"query": "Where?"})
    mean = sum(_cosine("Where?", q) for q in ("Q1", "Q2", "Q3")) / 3  # vars.query is the question
    assert (out.passed, _r(out)) == (False, f"Relevance {mean:.2f} is less than threshold 0.999")


# -- context-faithfulness ----------------------------------------------------------------------------

RAG_VARS = {"query": "Capital?", "context": "Paris is the capital of France."}


def test_context_faithfulness(bench_fake_llm: Any) -> None:
    nli = "1. ... Verdict: Yes.\n2. ... Verdict: No.\nFinal verdict for each statement in order: Yes. No."
    bench_fake_llm.add(_replies("Paris is the capital.\n\nParis is in Germany.\n", nli))
    out = check([{"type": "context-faithfulness"}], "Paris, in Germany", vars=RAG_VARS)
    # 2 statements, final verdicts "yes", "no": 1 - 1/2 = 0.5 ≥ 0 (default threshold).
    assert (out.passed, out.score, _r(out)) == (True, 0.5, "Faithfulness 0.50 is >= 0")
    longform, nli_prompt = _sent(bench_fake_llm)
    assert longform.startswith("Given a question and answer, create one or more statements")
    assert longform.endswith("question:Capital?\nanswer: Paris, in Germany\nstatements:\n")
    assert nli_prompt.startswith("Prompt: Natural language inference\n")
    assert nli_prompt.endswith(
        "context:\nParis is the capital of France.\nstatements:\nParis is the capital.\nParis is in Germany.\nAnswer:\n"
    )


def test_context_faithfulness_verdict_counts_and_threshold(bench_fake_llm: Any) -> None:
    bench_fake_llm.add(_replies("a\nb\nc", "a. Verdict: Yes\nb. Verdict: No\n"))
    out = check([{"type": "not-context-faithfulness", "threshold": 0.5}], "x", vars=RAG_VARS)
    # no final line: 3 statements, 1 no, 1 yes, 1 missing: 1 - (1 + 1)/3 = 1/3 < 0.5.
    # promptfoo ignores not- on this type: the verdict is not inverted.
    assert (out.passed, round(out.score, 6), _r(out)) == (
        False,
        round(1 / 3, 6),
        "Faithfulness 0.33 is < 0.5",
    )


def test_context_checks_need_query_and_context(bench_fake_llm: Any) -> None:
    out = check([{"type": "context-faithfulness"}], "x", vars={"context": "c"})
    assert (
        out.error
        == 'context-faithfulness: context-faithfulness assertion requires a "query" variable with the user question'
    )
    out = check([{"type": "context-relevance"}], "x", vars={"query": "q"})
    assert out.error == (
        'context-relevance: Context is required for context-based assertions. Provide either a "context" '
        'variable (string or array of strings) in your test case or use "contextTransform" to extract '
        "context from the provider response."
    )
    out = check([{"type": "context-relevance"}], "x", vars={"query": "q", "context": ["a", 2]})
    assert (
        out.error
        == "context-relevance: Invalid context: expected an array of strings, but found number at index 1"
    )
    assert bench_fake_llm.count() == 0


needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="Node.js ('node') is not on PATH")


@needs_node
def test_context_transform_runs_in_node(bench_fake_llm: Any) -> None:
    # was skipped, and the row passed on its other check: now the context comes from the output
    reply = "classification\n1. Paris is the capital. So [Attributed]\n"
    bench_fake_llm.add(_replies(reply))
    asserts = [
        {
            "type": "context-recall",
            "value": "Paris is the capital.",
            "contextTransform": "JSON.parse(output).ctx",
        },
        {"type": "contains", "value": "ctx"},
    ]
    out = check(asserts, '{"ctx": ["Paris is the capital of France."]}')
    assert (out.passed, out.score) == (True, 1.0)
    assert _sent(bench_fake_llm)[0].endswith(
        "\ncontext:Paris is the capital of France.\nanswer:Paris is the capital.\nclassification:\n"
    )


@needs_node
def test_context_transform_errors_are_promptfoos(bench_fake_llm: Any) -> None:
    out = check([{"type": "context-recall", "value": "v", "contextTransform": "output.length"}], "x")
    assert out.error == (
        "context-recall: Failed to transform context using expression '[inline transform]: output.length': "
        "Invariant failed: contextTransform must return a string or array of strings. Got number. "
        "Check your transform expression: [inline transform]: output.length"
    )
    out = check([{"type": "context-recall", "value": "v", "contextTransform": "JSON.parse(output).a.b"}], "x")
    assert out.error is not None
    assert out.error.startswith(
        "context-recall: Failed to transform context using expression '[inline transform]: "
        "JSON.parse(output).a.b': Unexpected token"
    )
    out = check([{"type": "context-recall", "value": "v", "contextTransform": "''"}], "x")
    assert out.error is not None
    assert out.error.startswith("context-recall: Context is required")
    assert bench_fake_llm.count() == 0


def test_context_transform_without_node_is_an_error(
    bench_fake_llm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bench_formats.promptfoo import node_worker

    node_worker.shutdown()
    monkeypatch.setattr(node_worker, "node_path", lambda: None)
    asserts = [
        {"type": "context-recall", "value": "v", "contextTransform": "output"},
        {"type": "contains", "value": "x"},
    ]
    out = check(asserts, "x")
    assert out.error == (
        "context-recall: its contextTransform: needs Node.js to run JavaScript, but no 'node' is on PATH, "
        "so it did not run"
    )
    node_worker.shutdown()


# -- context-recall ----------------------------------------------------------------------------------


def test_context_recall(bench_fake_llm: Any) -> None:
    reply = (
        "classification\n1. Paris is the capital. It is said. So [Attributed]\n"
        "2. It has 2M people. Not said. So [Not Attributed]\n3. No token here.\n"
        "4. Lyon is near. So [ATTRIBUTED]\n"
    )
    bench_fake_llm.add(_replies(reply, reply))
    value = "Paris is the capital. It has 2M people. Lyon is near."
    out = check(
        [{"type": "context-recall", "value": value, "threshold": 0.6}], "x", vars={"context": ["A", "B"]}
    )
    # 3 lines carry a token, 2 attributed: 2/3 ≥ 0.6.
    assert (out.passed, round(out.score, 6), _r(out)) == (True, round(2 / 3, 6), "Recall 0.67 is >= 0.6")
    assert _sent(bench_fake_llm)[0].endswith(f"\ncontext:A\n\nB\nanswer:{value}\nclassification:\n")
    out = check([{"type": "not-context-recall", "value": value, "threshold": 0.7}], "x")
    assert (out.passed, _r(out)) == (False, "Recall 0.67 is < 0.7")
    # no context var: the prompt is the context.
    assert _sent(bench_fake_llm)[1].endswith(f"\ncontext:{QUESTION}\nanswer:{value}\nclassification:\n")


def test_context_recall_needs_a_string_value(bench_fake_llm: Any) -> None:
    out = check([{"type": "context-recall", "value": ["a"]}], "x")
    assert (
        out.error
        == "context-recall: context-recall assertion requires a string value (expected answer or fact to verify)"
    )


# -- context-relevance -------------------------------------------------------------------------------


def test_context_relevance_prompt_and_sentences(bench_fake_llm: Any) -> None:
    context = "Paris is the capital of France. It is in Europe! Lyon is a city."
    bench_fake_llm.add(_replies("Paris is the capital of France.", "Insufficient Information"))
    out = check(
        [{"type": "context-relevance", "threshold": 0.3}], "x", vars={"query": "Capital?", "context": context}
    )
    # one prose line: 3 sentences; 1 extracted: 1/3 ≥ 0.3.
    assert (out.passed, round(out.score, 6), _r(out)) == (
        True,
        round(1 / 3, 6),
        "Context relevance 0.33 is >= 0.3",
    )
    assert _sent(bench_fake_llm)[0] == (
        "Please extract relevant sentences from the provided context that is absolutely required answer "
        "the following query. If no relevant sentences are found, or if you believe the query cannot be "
        'answered from the given context, return the phrase "Insufficient Information".  While extracting '
        "candidate sentences you're not allowed to make any changes to sentences from given context.\n\n"
        f"query: Capital?\ncontext: {context}\ncandidate sentences:\n"
    )
    out = check(
        [{"type": "context-relevance", "threshold": 0.1}], "x", vars={"query": "Capital?", "context": context}
    )
    assert (out.passed, out.score, _r(out)) == (False, 0.0, "Context relevance 0.00 is < 0.1")


def test_context_relevance_chunks(bench_fake_llm: Any) -> None:
    bench_fake_llm.add(_replies("a one\na one\n", "x\ny\nz\n"))
    rag = {"query": "q", "context": ["a one", "b two", " "]}
    out = check([{"type": "context-relevance"}], "x", vars=rag)
    # chunks: 2 non-blank; extracted lines deduplicated: 1 → 1/2.
    assert (out.passed, out.score, _r(out)) == (True, 0.5, "Context relevance 0.50 is >= 0")
    out = check([{"type": "context-relevance"}], "x", vars=rag)
    assert out.score == 1.0  # 3 extracted, capped at the 2 chunks


def test_js_rounding_of_the_shown_score(bench_fake_llm: Any) -> None:
    bench_fake_llm.add(_replies("\n".join(["[Attributed]"] + ["[Not Attributed]"] * 7)))
    out = check([{"type": "context-recall", "value": "v", "threshold": 0.5}], "x")
    # 1/8 = 0.125 exactly: JavaScript's toFixed(2) rounds the tie up to 0.13 (Python's "%.2f": 0.12).
    assert (out.score, _r(out)) == (0.125, "Recall 0.13 is < 0.5")
