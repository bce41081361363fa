"""bleu, gleu and rouge-n (``src/assertions/bleu.ts``, ``gleu.ts``, ``rouge.ts``): n-gram overlap
with a threshold; with ``not-`` the score is ``1 - score``."""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Check, Grade, js_string


def _ngrams(words: list[str], n: int) -> list[str]:
    if n <= 0 or n > len(words):
        return []
    return [" ".join(words[i : i + n]) for i in range(len(words) - n + 1)]


def _words(text: str) -> list[str]:
    # JavaScript's text.toLowerCase().trim().split(/\s+/): an empty text is one empty word.
    return re.split(r"\s+", text.lower().strip())


def _clipped(candidate: list[str], reference: list[str]) -> int:
    counts = Counter(reference)
    return sum(min(c, counts[g]) for g, c in Counter(candidate).items())


def bleu_score(candidate: str, references: list[str]) -> float:
    """promptfoo's ``calculateBleuScore``: 1-4-gram clipped precisions weighted 0.25 each,
    orders longer than the candidate dropped (weights renormalised), a zero precision
    smoothed to 1e-7, times the brevity penalty against the closest reference length."""
    if candidate.strip() == "":
        return 0.0
    words = _words(candidate)
    refs = [_words(r) for r in references]
    closest = len(refs[0])
    for ref in refs[1:]:
        d_cur, d_prev = abs(len(ref) - len(words)), abs(closest - len(words))
        if d_cur < d_prev or (d_cur == d_prev and len(ref) < closest):
            closest = len(ref)
    orders: list[float] = []
    for n in range(1, 5):
        grams = _ngrams(words, n)
        if grams:
            best = max(_clipped(grams, _ngrams(ref, n)) for ref in refs)
            orders.append(best / len(grams))
    penalty = 1.0 if len(words) > closest else math.exp(1 - closest / len(words))
    weight = 0.25 / (0.25 * len(orders))
    return penalty * math.exp(sum(weight * math.log(p or 1e-7) for p in orders))


def gleu_score(candidate: str, references: list[str]) -> float:
    """promptfoo's ``calculateGleuScore``: min(precision, recall) of 1-4-grams summed over
    the orders (trailing dots dropped from each word), best over the references."""
    if not candidate:
        raise AssertionInvalid("Invalid inputs")
    words = [re.sub(r"\.+$", "", w) for w in _words(candidate)]
    scores = []
    for reference in references:
        ref = [re.sub(r"\.+$", "", w) for w in _words(reference)]
        if ref == words:
            scores.append(1.0)
            continue
        matches = cand_total = ref_total = 0
        for n in range(1, 5):
            grams, ref_grams = _ngrams(words, n), _ngrams(ref, n)
            matches += _clipped(grams, ref_grams)
            cand_total += len(grams)
            ref_total += len(ref_grams)
        scores.append(
            0.0 if not cand_total or not ref_total else min(matches / cand_total, matches / ref_total)
        )
    return max(scores)


def treebank_tokens(text: str) -> list[str]:
    """js-rouge's ``treeBankTokenize`` (Penn Treebank rules), without its quote-pairing
    heuristics: an opening ``"`` becomes ````` and any other ``"`` becomes ``''``."""
    text = re.sub(r"[\s\u0085]+", " ", text).strip()
    if not text:
        return []
    text = re.sub(r'(^|(?<=[\s(\[{<]))"', " `` ", text)
    text = text.replace('"', " '' ")
    text = text.replace("...", " ... ")
    text = re.sub(r"[:,](?!\d)", r" \g<0> ", text)
    text = re.sub(r"[;@#$%&]", r" \g<0> ", text)
    text = re.sub(r"([^.])(?<!\b[A-Za-z]\.[A-Za-z])(\.)([\])}>'\s]*)$", r"\1 \2\3 ", text)
    text = re.sub(r"[?!]", r" \g<0> ", text)
    text = re.sub(r"[\][(){}<>]", r" \g<0> ", text)
    text = text.replace("--", " -- ")
    text = f" {text} "
    text = re.sub(r"([^'])' ", r"\1 ' ", text)
    text = re.sub(r"'([sSmMdD]) ", r" '\1 ", text)
    text = re.sub(r"('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", r" \1 ", text)
    for pair in ("(can)(not)", "(d)('ye)", "(gim)(me)", "(gon)(na)", "(got)(ta)", "(lem)(me)",
                 "(more)('n)", "(wan)(na)(?= )", "('t)(is)", "('t)(was)"):  # fmt: skip
        text = re.sub(rf"(?<![\w\u200c\u200d]){pair}(?![\w\u200c\u200d])", r" \1 \2 ", text, flags=re.I)
    return re.sub(r" {2,}", " ", text).strip(" ").split(" ")


def rouge_n(candidate: str, reference: str, n: int = 1) -> float:
    """promptfoo's ``rougeNScore``: F1 of clipped n-gram overlap over treebank tokens."""
    cand, ref = treebank_tokens(candidate), treebank_tokens(reference)
    if len(cand) < n or len(ref) < n:
        return 0.0
    grams, ref_grams = _ngrams(cand, n), _ngrams(ref, n)
    overlap = _clipped(grams, ref_grams)
    if overlap == 0:
        return 0.0
    precision, recall = overlap / len(grams), overlap / len(ref_grams)
    if precision == recall:
        return precision
    return min(max(precision, recall), 2 * precision * recall / (precision + recall))


def _references(call: Call, name: str, message: str) -> list[str]:
    value = call.value
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return list(value)
    if isinstance(value, list) and not value:
        raise AssertionInvalid("Invalid inputs")
    raise AssertionInvalid(message.format(name=name))


def _threshold(call: Call, default: float) -> Any:
    threshold = call.assertion.get("threshold")
    return default if threshold is None else threshold


def _scored(call: Call, label: str, score: float, threshold: Any) -> Grade:
    passed = (score >= threshold) != call.inverse
    reason = (
        "Assertion passed"
        if passed
        else f"{label} score {score:.4f} is {'greater' if call.inverse else 'less'} than threshold "
        f"{js_string(threshold)}"
    )
    return Grade(passed, 1 - score if call.inverse else score, reason)


def bleu(call: Call) -> Grade:
    refs = _references(call, "bleu", '"{name}" assertion type must have a string or array of strings value')
    return _scored(call, "BLEU", bleu_score(call.output, refs), _threshold(call, 0.5))


def gleu(call: Call) -> Grade:
    refs = _references(call, "gleu", '"{name}" assertion must have a string or array of strings value')
    return _scored(call, "GLEU", gleu_score(call.output, refs), _threshold(call, 0.5))


def rouge(call: Call) -> Grade:
    if not isinstance(call.value, str):
        raise AssertionInvalid('"rouge" assertion type must be a string value')
    score = rouge_n(call.output.lower(), call.value.lower())
    threshold = _threshold(call, 0.75)
    relation = "greater than or equal to" if score >= threshold else "less than"
    return Grade(
        (score >= threshold) != call.inverse,
        1 - score if call.inverse else score,
        f"ROUGE-N score {score:.2f} is {relation} threshold {js_string(threshold)}",
    )


CHECKS: dict[str, Check] = {"bleu": bleu, "gleu": gleu, "rouge-n": rouge}
