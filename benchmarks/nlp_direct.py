"""The floor for ``run_nlp.py``'s BLEU + ROUGE run: the libraries called directly, in a loop.

Reads the same JSON Lines tasks and, in one fresh process, scores each response against its
reference with ``sacrebleu.sentence_bleu`` and rouge-score's ``RougeScorer(["rougeL"],
use_stemmer=True)`` (bench's defaults for ``bleu`` and ``rouge``), as a script written for the job
would; no results are written.

    python benchmarks/nlp_direct.py bleu_rouge.jsonl
"""

from __future__ import annotations

import json
import sys

import sacrebleu
from rouge_score import rouge_scorer


def main(path: str) -> None:
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)
    total = 0.0
    with open(path, encoding="utf-8") as rows:
        for line in rows:
            row = json.loads(line)
            reference = row["evaluate"][0]["reference"]
            total += sacrebleu.sentence_bleu(row["response"], [reference]).score
            total += scorer.score(reference, row["response"])["rougeL"].fmeasure
    print(f"{total:.4f}")


if __name__ == "__main__":
    main(sys.argv[1])
