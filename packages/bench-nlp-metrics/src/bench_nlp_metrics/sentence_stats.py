"""Sentence statistics of rouge-score's ROUGE-L, with fewer Python steps.

The numbers are the library's own (a whole count, and floats from the same expressions):
rouge-score fills a (m+1)×(n+1) table cell by cell for the longest common subsequence; here its
length comes from a bit-vector pass over one text (one step per token of the other).
``test_sentence_stats.py`` checks it against the library on the same inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


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
