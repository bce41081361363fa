"""AgentClash's own text metrics (``runtime/scoring/generation_validators.go``, ``string_validators.go``).

``bleu_score``, ``rouge_score`` and ``chrf_score`` compute what AgentClash computes (whitespace
tokens, no stemming; BLEU with ``smoothing: none | method1``; ROUGE ``variant: rouge-1 | rouge-2 |
rouge-l`` with ``beta``; chrF over characters without spaces) and pass at 0.3 unless a threshold is
given. ``token_pipeline`` is token_f1's normalisation when AgentClash's keys are used.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

_ARTICLES = re.compile(r"\b(a|an|the)\b")
DEFAULT_THRESHOLD = 0.3


def token_pipeline(text: str, normalize: bool, punctuation: bool, articles: bool) -> str:
    """token_f1's steps as AgentClash orders them; no step at all leaves the text as it is."""
    if not (normalize or punctuation or articles):
        return text
    if normalize:
        text = " ".join(text.strip().lower().split())
    if punctuation:
        text = "".join(ch for ch in text if unicodedata.category(ch)[0] not in "PS")
    if articles:
        text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def generation_text(text: str, case_insensitive: bool, normalize: bool) -> str:
    """The text BLEU/ROUGE/chrF compare: ``normalize`` trims and collapses spaces, case folds."""
    if normalize:
        text = " ".join(text.strip().split())
    return text.casefold() if case_insensitive else text


def _grams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def bleu(candidate: list[str], refs: list[list[str]], max_ngram: int, smoothing: str) -> float:
    """AgentClash's sentence BLEU: clipped n-gram precisions up to the candidate's length."""
    if not candidate:
        return 1.0 if len(refs) == 1 and not refs[0] else 0.0
    orders = min(max_ngram, len(candidate))
    logs = 0.0
    for n in range(1, orders + 1):
        total = len(candidate) - n + 1
        best: Counter[tuple[str, ...]] = Counter()
        for ref in refs:
            best |= _grams(ref, n)
        matches = sum(min(c, best[g]) for g, c in _grams(candidate, n).items())
        precision = (
            matches / total if matches else (1 / (total + 1) if smoothing == "method1" and n > 1 else 0)
        )
        if precision == 0:
            return 0.0
        logs += math.log(precision)
    lengths = [len(r) for r in refs]
    ref_length = min(lengths, key=lambda r: (abs(len(candidate) - r), r))
    penalty = math.exp(1 - ref_length / len(candidate)) if len(candidate) < ref_length else 1.0
    return penalty * math.exp(logs / orders)


def f_score(precision: float, recall: float, beta: float) -> float:
    if precision == 0 and recall == 0:
        return 0.0
    b2 = beta * beta
    return (1 + b2) * precision * recall / (b2 * precision + recall)


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else 0.0


def _lcs(a: list[str], b: list[str]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[j - 1]))
        previous = current
    return previous[-1]


def rouge(
    candidate: list[str], reference: list[str], variant: str, beta: float
) -> tuple[float, float, float]:
    """Precision, recall and F(beta) of ROUGE-1, ROUGE-2 or ROUGE-L over whitespace tokens."""
    if variant == "rouge-l":
        lcs = _lcs(candidate, reference)
        p, r = _ratio(lcs, len(candidate)), _ratio(lcs, len(reference))
        return p, r, f_score(p, r, beta)
    n = 1 if variant == "rouge-1" else 2
    matches = sum((_grams(candidate, n) & _grams(reference, n)).values())
    p = _ratio(matches, max(len(candidate) - n + 1, 0))
    r = _ratio(matches, max(len(reference) - n + 1, 0))
    return p, r, f_score(p, r, beta)


def chrf(candidate: str, reference: str, char_order: int, beta: float) -> float:
    """F(beta) of the mean character n-gram precision and recall (spaces left out)."""
    hyp = [ch for ch in candidate if not ch.isspace()]
    ref = [ch for ch in reference if not ch.isspace()]
    orders = min(char_order, len(hyp), len(ref))
    if orders == 0:
        return 1.0 if not hyp and not ref else 0.0
    precisions, recalls = [], []
    for n in range(1, orders + 1):
        matches = sum((_grams(hyp, n) & _grams(ref, n)).values())
        precisions.append(_ratio(matches, len(hyp) - n + 1))
        recalls.append(_ratio(matches, len(ref) - n + 1))
    return f_score(sum(precisions) / orders, sum(recalls) / orders, beta)
