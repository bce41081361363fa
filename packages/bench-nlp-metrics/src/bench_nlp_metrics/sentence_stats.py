"""Sentence statistics of sacrebleu's BLEU and rouge-score's ROUGE-L, with fewer Python steps.

The numbers are the libraries' own (whole counts, and floats from the same expressions): sacrebleu
builds each n-gram with a slice and counts them in one Python loop, rouge-score fills a
(m+1)×(n+1) table cell by cell for the longest common subsequence; here the n-grams come from
``zip`` and the subsequence length from a bit-vector pass over one text (one step per token of
the other). ``test_sentence_stats.py`` checks both against the libraries on the same inputs.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

#: ``Counter``'s counting loop (C in CPython) without a ``Counter``'s set-up, four times a task.
_count_elements: Callable[[dict[Any, int], Iterable[Any]], None] = collections._count_elements  # type: ignore[attr-defined]


def bleu_statistics(
    tokens: Sequence[str], ref_ngrams: Mapping[tuple[str, ...], int], ref_len: int, max_order: int
) -> list[int]:
    """sacrebleu's ``_compute_segment_statistics`` for one tokenized hypothesis.

    ``ref_ngrams`` holds the references' n-gram counts (the largest count over the references, as
    ``BLEU._extract_reference_info`` merges them) and ``ref_len`` the reference length BLEU uses
    for this hypothesis: ``[hyp_len, ref_len, *correct, *total]``, one of each per order.
    """
    correct = [0] * max_order
    total = [0] * max_order
    get = ref_ngrams.get
    for n in range(1, max_order + 1):
        grams: dict[tuple[str, ...], int] = {}  # sacrebleu's tuple(tokens[i : i + n]), counted
        _count_elements(grams, zip(*[tokens[i:] for i in range(n)], strict=False))
        total[n - 1] = max(0, len(tokens) - n + 1)
        matched = 0
        for gram, count in grams.items():
            found = get(gram)
            if found:
                matched += count if count < found else found
        correct[n - 1] = matched
    return [len(tokens), ref_len, *correct, *total]


def lcs_length(first: Sequence[Any], second: Sequence[Any]) -> int:
    """The length of the longest common subsequence of two token sequences.

    Hyyrö's bit-vector form of the dynamic programme rouge-score's ``_lcs_table`` fills: bit i of
    ``v`` stands for position i of ``first`` and is cleared once that position ends a longer
    common subsequence; every token of ``second`` is one step of whole-integer arithmetic.
    """
    where: dict[Any, int] = {}
    bit = 1
    for token in first:
        where[token] = where.get(token, 0) | bit
        bit <<= 1
    full = bit - 1
    v = full
    for token in second:
        matches = where.get(token)
        if matches:
            u = v & matches
            v = ((v + u) | (v - u)) & full
    return len(first) - v.bit_count()


def rouge_l(target_tokens: Sequence[str], prediction_tokens: Sequence[str]) -> Any:
    """rouge-score's ROUGE-L ``Score`` of two tokenized texts, as its ``_score_lcs`` makes it."""
    from rouge_score import scoring

    if not target_tokens or not prediction_tokens:
        return scoring.Score(precision=0, recall=0, fmeasure=0)
    lcs = lcs_length(target_tokens, prediction_tokens)
    precision = lcs / len(prediction_tokens)
    recall = lcs / len(target_tokens)
    return scoring.Score(precision=precision, recall=recall, fmeasure=scoring.fmeasure(precision, recall))
