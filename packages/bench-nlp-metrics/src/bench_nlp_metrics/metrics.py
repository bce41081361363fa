"""BLEU, chrF, TER (sacrebleu), ROUGE (rouge-score), token F1 and exact match (SQuAD).

Every type takes one ``reference`` or a list of them (or ``expected_from``), reports its score on
0..1 (the library's own value is in the details), passes at ``threshold``/``score_threshold``
(default: any overlap at all, score > 0), and adds suite-level figures to the report: the mean,
and for BLEU, chrF and TER the corpus-level score over every task, as the libraries compute it.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample
from bench.distributed import run_killable
from bench_nlp_metrics import agentclash, sentence_stats, squad, tokenizer_13a


class ReferenceConfig(EvaluatorConfig):
    """Settings every reference-based metric has."""

    reference: str | list[str] | None = None
    """The reference text, or several references."""
    expected_from: str | None = None
    """Where the reference comes from when ``reference`` is not given (an evidence reference)."""

    @model_validator(mode="after")
    def _has_reference(self) -> ReferenceConfig:
        if self.reference is None and self.expected_from is None:
            raise ValueError("set reference (or expected_from: an evidence reference)")
        if isinstance(self.reference, list) and not self.reference:
            raise ValueError("the reference list is empty")
        return self


def references(config: ReferenceConfig, sample: Sample) -> list[str]:
    if config.reference is not None:
        refs = config.reference if isinstance(config.reference, list) else [config.reference]
    elif isinstance(sample.expected_value, list):
        refs = sample.expected_value  # an evidence reference to a list: several references
    elif sample.expected is not None:
        refs = [sample.expected]
    else:
        raise EvaluatorError("no reference: set reference (or expected_from)")
    if not refs:
        raise EvaluatorError("the reference list is empty")
    return [str(r) for r in refs]


class CorpusMetric(Evaluator[Any]):
    """Shared: per-sample scoring, and the mean score over the run's stored results."""

    aggregates: ClassVar[bool] = True
    #: The library's value scale (BLEU, chrF and TER are 0..100).
    scale: ClassVar[float] = 1.0
    #: Characters of input (response plus references) above which scoring runs in a worker
    #: process that the evaluator time limit, or an interrupted run, can kill (slow metrics).
    worker_above: ClassVar[int | None] = None

    def score(self, hypothesis: str, refs: list[str]) -> tuple[float, dict[str, Any]]:
        raise NotImplementedError

    def evaluate(self, sample: Sample) -> Result | Awaitable[Result]:
        refs = references(self.config, sample)
        size = len(sample.output) + sum(len(r) for r in refs)
        if self.worker_above is not None and size > self.worker_above:
            return self._score_in_worker(sample.output, refs)
        return self.verdict(sample.output, refs, *self.score(sample.output, refs))

    async def _score_in_worker(self, hypothesis: str, refs: list[str]) -> Result:
        scored = await run_killable(_score, type(self), self.config, hypothesis, refs)
        return self.verdict(hypothesis, refs, *scored)

    def verdict(self, hypothesis: str, refs: list[str], score: float, details: dict[str, Any]) -> Result:
        """The result for one scored sample."""
        score = min(1.0, max(0.0, score))
        reason = f"{self.name} {score:.4f}"
        if "capped" in details:
            reason += f"; {details['capped']}"
        return Result(score > 0, score, reason, details)

    @classmethod
    def aggregate_rows(cls, config: Any, rows: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
        """The number of scored tasks and their mean score, from the stored results."""
        return mean_score(rows)


def mean_score(rows: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
    """``samples`` and ``mean`` of the rows' scores (rows without a score are left out)."""
    samples = 0

    def scores() -> Iterator[float]:
        nonlocal samples
        for row in rows:
            if row.get("score") is not None:
                samples += 1
                yield row["score"]

    total = sum(scores())  # sum(), as over a list: Python 3.12 compensates its rounding
    if not samples:
        return None
    return {"samples": samples, "mean": round(total / samples, 6)}


class _SummedCorpus(CorpusMetric):
    """A sacrebleu metric whose corpus score comes from per-task statistics summed over the run.

    Each result keeps the task's sentence statistics as sacrebleu's corpus scoring extracts them
    (``details.corpus_stats``: n-gram matches and totals with the lengths for BLEU, character and
    word n-gram counts for chrF, edits and reference length for TER); summed over the stored
    results they give exactly ``corpus_score`` over the same sentences.
    """

    @classmethod
    def corpus_settings(cls, config: Any) -> tuple[Any, ...]:
        """The settings the sacrebleu metric object is made with (not the references)."""
        raise NotImplementedError

    @classmethod
    def corpus_metric(cls, settings: tuple[Any, ...]) -> Any:
        """The sacrebleu metric object that extracts statistics and scores the corpus."""
        raise NotImplementedError

    def score(self, hypothesis: str, refs: list[str]) -> tuple[float, dict[str, Any]]:
        value, details = self.sentence(hypothesis, refs)
        metric = _corpus_metric(type(self), self.config)
        stats = metric._extract_corpus_statistics([hypothesis], [[r] for r in refs])
        return value, {**details, "corpus_stats": [_number(x) for x in stats[0]]}

    def sentence(self, hypothesis: str, refs: list[str]) -> tuple[float, dict[str, Any]]:
        raise NotImplementedError

    @classmethod
    def corpus_figures(cls, metric: Any, stats: list[float]) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def aggregate_rows(cls, config: Any, rows: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
        """The mean score and the corpus score, from the stored results' statistics."""
        summed: list[float] = []
        missing = 0

        def scored() -> Iterator[dict[str, Any]]:
            nonlocal missing
            for row in rows:
                stats = (row.get("details") or {}).get("corpus_stats")
                if row.get("score") is not None and stats is None:
                    missing += 1  # recorded before results kept their sentence statistics
                if row.get("score") is None or stats is None:
                    continue
                if summed:
                    if len(stats) != len(summed):
                        raise ValueError(f"corpus statistics of {len(stats)} numbers, not {len(summed)}")
                    summed[:] = map(operator.add, summed, stats)
                else:
                    summed.extend(stats)
                yield row

        figures = mean_score(scored())
        if missing:  # a corpus score over part of the corpus would look whole: say so instead
            raise ValueError(
                f"{missing} stored results have no corpus statistics (recorded by an older bench): "
                "run the suite again without --resume for the corpus figures"
            )
        if figures is None:
            return None
        metric = _corpus_metric(cls, config)
        return {**figures, **cls.corpus_figures(metric, summed)}


#: sacrebleu metric objects by (type, settings): one per setting a suite uses, made once.
_METRICS: dict[tuple[str, tuple[Any, ...]], Any] = {}


def _corpus_metric(cls: type[_SummedCorpus], config: Any) -> Any:
    settings = cls.corpus_settings(config)
    metric = _METRICS.get((cls.name, settings))
    if metric is None:
        metric = _METRICS[(cls.name, settings)] = cls.corpus_metric(settings)
    return metric


def _number(value: Any) -> int | float:
    """A statistic as plain JSON: sacrebleu's counts are ints; TER's reference length is an average."""
    return int(value) if float(value).is_integer() else float(value)


class BleuConfig(ReferenceConfig):
    """Settings of bleu."""

    tokenize: Literal[
        "13a", "intl", "zh", "ja-mecab", "ko-mecab", "char", "flores101", "flores200", "none"
    ] = "13a"
    """sacrebleu's tokenizer."""
    smooth_method: Literal["exp", "floor", "add-k", "none"] = "exp"
    """Sentence-level smoothing (sacrebleu's default ``exp``)."""
    lowercase: bool = False
    """Compare lower-cased text."""


class Bleu(_SummedCorpus):
    """BLEU by sacrebleu (sentence BLEU per task, corpus BLEU for the suite); score = BLEU / 100."""

    name = "bleu"
    Config = BleuConfig
    example = """
    name: bleu-example
    tasks:
      - id: translation
        response: "The dog bit the man."
        evaluate:
          type: bleu
          reference: ["The dog bit the man.", "The dog had bit the man."]
          threshold: 0.5
    """

    def score(self, hypothesis: str, refs: list[str]) -> tuple[float, dict[str, Any]]:
        # One tokenization for both figures: the sentence metric's statistics are the corpus
        # metric's (they differ in smoothing and effective order only, which act on the stats).
        # The references' n-grams are counted once per distinct set (tasks share references);
        # then the hypothesis's statistics are sacrebleu's, counted by sentence_stats.
        c = self.config
        settings = (c.tokenize, c.lowercase, c.smooth_method)
        metric = _sentence_bleu(*settings)
        counted = _bleu_references(settings, tuple(refs))
        tokens = metric._preprocess_segment(hypothesis).split()
        ref_len = metric._get_closest_ref_len(len(tokens), counted["ref_lens"])
        stats = sentence_stats.bleu_statistics(tokens, counted["ref_ngrams"], ref_len, metric.max_ngram_order)
        bleu = metric._compute_score_from_stats(stats)
        return bleu.score / 100, {
            "bleu": round(bleu.score, 4),
            "signature": "sentence",
            "bp": round(bleu.bp, 4),
            "corpus_stats": stats,
        }

    @classmethod
    def corpus_settings(cls, config: Any) -> tuple[Any, ...]:
        return (config.tokenize, config.lowercase)

    @classmethod
    def corpus_metric(cls, settings: tuple[Any, ...]) -> Any:
        from sacrebleu.metrics.bleu import BLEU

        tokenize, lowercase = settings
        return BLEU(tokenize=tokenize, lowercase=lowercase)  # corpus_bleu's default smoothing

    @classmethod
    def corpus_figures(cls, metric: Any, stats: list[float]) -> dict[str, Any]:
        bleu = metric._compute_score_from_stats(stats)
        return {"corpus_bleu": round(bleu.score, 4), "corpus": str(bleu)}


@functools.lru_cache(maxsize=1024)
def _bleu_references(settings: tuple[str, bool, str], refs: tuple[str, ...]) -> Any:
    """The n-grams and lengths of ``refs``, as sacrebleu's sentence BLEU extracts them (read-only)."""
    return _sentence_bleu(*settings)._cache_references([[r] for r in refs])[0]


@functools.lru_cache(maxsize=32)
def _sentence_bleu(tokenize: str, lowercase: bool, smooth_method: str) -> Any:
    """``sacrebleu.sentence_bleu``'s metric object, made once per setting (it makes one per call)."""
    from sacrebleu.metrics.bleu import BLEU

    metric = BLEU(
        lowercase=lowercase, tokenize=tokenize, force=False, smooth_method=smooth_method, effective_order=True
    )
    tokenizer_13a.speed_up(metric.tokenizer)
    return metric


class ChrfConfig(ReferenceConfig):
    """Settings of chrf."""

    word_order: int = Field(default=0, ge=0, le=2)
    """0 for chrF, 2 for chrF++ (word n-grams too)."""
    char_order: int = Field(default=6, ge=1)
    """Character n-gram order."""
    beta: int = Field(default=2, ge=1)
    """Recall's weight."""


class Chrf(_SummedCorpus):
    """chrF / chrF++ by sacrebleu; score = chrF / 100."""

    name = "chrf"
    Config = ChrfConfig
    example = """
    name: chrf-example
    tasks:
      - id: translation
        response: "The dog bit the man."
        evaluate: {type: chrf, reference: "The dog had bit the man.", word_order: 2, threshold: 0.5}
    """

    def sentence(self, hypothesis: str, refs: list[str]) -> tuple[float, dict[str, Any]]:
        import sacrebleu

        c = self.config
        chrf = sacrebleu.sentence_chrf(
            hypothesis, refs, char_order=c.char_order, word_order=c.word_order, beta=c.beta
        )
        return chrf.score / 100, {"chrf": round(chrf.score, 4)}

    @classmethod
    def corpus_settings(cls, config: Any) -> tuple[Any, ...]:
        return (config.char_order, config.word_order, config.beta)

    @classmethod
    def corpus_metric(cls, settings: tuple[Any, ...]) -> Any:
        from sacrebleu.metrics.chrf import CHRF

        char_order, word_order, beta = settings
        return CHRF(char_order=char_order, word_order=word_order, beta=beta)

    @classmethod
    def corpus_figures(cls, metric: Any, stats: list[float]) -> dict[str, Any]:
        chrf = metric._compute_score_from_stats(stats)
        return {"corpus_chrf": round(chrf.score, 4), "corpus": str(chrf)}


class Ter(_SummedCorpus):
    """Translation edit rate by sacrebleu. Lower is better: score = max(0, 1 - TER / 100)."""

    name = "ter"
    Config = ReferenceConfig
    example = """
    name: ter-example
    tasks:
      - id: translation
        response: "The dog bit the man."
        evaluate: {type: ter, reference: "The dog bit the man."}
    """

    def sentence(self, hypothesis: str, refs: list[str]) -> tuple[float, dict[str, Any]]:
        import sacrebleu

        ter = sacrebleu.sentence_ter(hypothesis, refs)
        return max(0.0, 1 - ter.score / 100), {"ter": round(ter.score, 4)}

    # sacrebleu's TER search grows fast with length on texts that differ (about 2.5 s at 2,400
    # characters, 12 s at 4,900): anything past a short sentence runs in a killable worker.
    worker_above = 1_000

    def verdict(self, hypothesis: str, refs: list[str], score: float, details: dict[str, Any]) -> Result:
        result = super().verdict(hypothesis, refs, score, details)
        result.passed = result.details["ter"] < 100
        return result

    @classmethod
    def corpus_settings(cls, config: Any) -> tuple[Any, ...]:
        return ()

    @classmethod
    def corpus_metric(cls, settings: tuple[Any, ...]) -> Any:
        from sacrebleu.metrics.ter import TER

        return TER()

    @classmethod
    def corpus_figures(cls, metric: Any, stats: list[float]) -> dict[str, Any]:
        ter = metric._compute_score_from_stats(stats)
        return {"corpus_ter": round(ter.score, 4), "corpus": str(ter)}


RougeType = Literal["rouge1", "rouge2", "rougeL", "rougeLsum"]


class RougeConfig(ReferenceConfig):
    """Settings of rouge."""

    rouge_type: RougeType = "rougeL"
    """Which ROUGE: unigrams, bigrams, longest common subsequence, or LCS over sentences."""
    measure: Literal["fmeasure", "precision", "recall"] = "fmeasure"
    """Which of the three the score is."""
    use_stemmer: bool = True
    """Porter-stem words first (rouge-score's option)."""


class Rouge(CorpusMetric):
    """ROUGE by Google's rouge-score; with several references the best one counts."""

    name = "rouge"
    Config = RougeConfig
    example = """
    name: rouge-example
    tasks:
      - id: summary
        response: "The quick brown dog jumps on the log."
        evaluate:
          type: rouge
          reference: "The quick brown fox jumps over the lazy dog"
          rouge_type: rouge1
          threshold: 0.6
    """

    worker_above = 10_000

    def score(self, hypothesis: str, refs: list[str]) -> tuple[float, dict[str, Any]]:
        c = self.config
        note = None
        if c.rouge_type in ("rougeL", "rougeLsum"):
            hypothesis, refs, note = _capped(hypothesis, refs)
        scorer = _scorer(c.rouge_type, c.use_stemmer)
        if c.rouge_type == "rougeL":  # the same Score as scorer.score's, its LCS found faster
            tokenize = scorer._tokenizer.tokenize
            hyp = tokenize(hypothesis)
            scores = [sentence_stats.rouge_l(tokenize(ref), hyp) for ref in refs]
        else:
            scores = [scorer.score(ref, hypothesis)[c.rouge_type] for ref in refs]
        best = max(scores, key=lambda s: getattr(s, c.measure))
        details: dict[str, Any] = {
            c.rouge_type: {
                "precision": round(best.precision, 6),
                "recall": round(best.recall, 6),
                "fmeasure": round(best.fmeasure, 6),
            }
        }
        if note:
            details["capped"] = note
        return float(getattr(best, c.measure)), details


#: Words of each text ROUGE-L compares: its longest common subsequence takes time quadratic in
#: the length (two 6,000-word texts: 15-30 s), so longer texts are cut (RELIABILITY N06).
ROUGE_L_MAX_WORDS = 2_000


def _capped(hypothesis: str, refs: list[str]) -> tuple[str, list[str], str | None]:
    """The texts cut to ``ROUGE_L_MAX_WORDS`` words, and a note saying what was cut."""
    if len(hypothesis) < 2 * ROUGE_L_MAX_WORDS and all(len(r) < 2 * ROUGE_L_MAX_WORDS for r in refs):
        return hypothesis, refs, None  # a word and a space apiece: too short to reach the cap
    lengths = [len(text.split()) for text in (hypothesis, *refs)]
    if max(lengths) <= ROUGE_L_MAX_WORDS:
        return hypothesis, refs, None

    def cut(text: str) -> str:
        return " ".join(text.split()[:ROUGE_L_MAX_WORDS])

    longest_ref = max(lengths[1:])
    parts = [
        f"of {name} (of {n})"
        for name, n in (("the response", lengths[0]), ("the reference", longest_ref))
        if n > ROUGE_L_MAX_WORDS
    ]
    note = f"ROUGE-L is quadratic: it compared the first {ROUGE_L_MAX_WORDS} words {' and '.join(parts)}"
    return cut(hypothesis), [cut(r) for r in refs], note


def _score(
    cls: type[CorpusMetric], config: Any, hypothesis: str, refs: list[str]
) -> tuple[float, dict[str, Any]]:
    """Score in a worker process (a fresh instance; the verdict is made in the parent)."""
    return cls(config).score(hypothesis, refs)


@functools.lru_cache(maxsize=16)
def _scorer(rouge_type: str, stem: bool) -> Any:
    from rouge_score import rouge_scorer

    tokenizer = _StemCachingTokenizer() if stem else None
    return rouge_scorer.RougeScorer([rouge_type], use_stemmer=stem, tokenizer=tokenizer)


class _StemCachingTokenizer:
    """rouge-score's default tokenizer with a stemmer that remembers the words it stemmed.

    The same tokens as ``DefaultTokenizer(use_stemmer=True)`` (the same ``tokenize`` function and
    Porter stemmer): nltk's stemmer is a pure function of the word and about 70% of ROUGE's time,
    while the words of a suite's responses and references repeat from task to task. The tokens
    of short texts are remembered too: tasks share their references (rouge-score only reads the
    lists it is given).
    """

    def __init__(self) -> None:
        from nltk.stem import porter

        self._stem: Callable[[str], str] = functools.lru_cache(maxsize=STEMS_KEPT)(
            porter.PorterStemmer().stem
        )
        self._tokens: Callable[[str], list[str]] = functools.lru_cache(maxsize=TEXTS_KEPT)(self._tokenize)

    def stem(self, word: str) -> str:
        """The Porter stem of ``word``."""
        # Every Porter rule removes or changes a suffix of letters: a number is its own stem (and
        # numbers, unlike words, seldom repeat from task to task to make remembering pay).
        return word if word.isdigit() else self._stem(word)

    def tokenize(self, text: str) -> list[str]:
        """The text's tokens, stemmed as rouge-score's default tokenizer stems them."""
        return self._tokens(text) if len(text) <= TEXT_KEPT_CHARS else self._tokenize(text)

    def _tokenize(self, text: str) -> list[str]:
        from rouge_score import tokenize

        tokens: list[str] = tokenize.tokenize(text, self)
        return tokens


#: Stems remembered per scorer: the most recently used words, a few MiB at most.
STEMS_KEPT = 100_000
#: Tokenized texts remembered per scorer (the most recent), each of at most TEXT_KEPT_CHARS.
TEXTS_KEPT = 256
TEXT_KEPT_CHARS = 4_000


class TokenF1Config(ReferenceConfig):
    """Settings of token_f1."""

    normalize: bool | None = None
    """AgentClash's key: trim, lower-case and collapse spaces. Giving any of ``normalize``,
    ``remove_punctuation``, ``remove_articles`` replaces SQuAD's normalisation with exactly the
    steps asked for (all false: the text as it is)."""
    remove_punctuation: bool | None = None
    """AgentClash's key: drop punctuation and symbols."""
    remove_articles: bool | None = None
    """AgentClash's key: drop the words a, an, the (lower case only)."""

    @property
    def agentclash(self) -> bool:
        return any(v is not None for v in (self.normalize, self.remove_punctuation, self.remove_articles))


class TokenF1(CorpusMetric):
    """SQuAD token F1 after normalisation (lower case, no punctuation, no articles); best reference.

    With AgentClash's keys (``normalize``, ``remove_punctuation``, ``remove_articles``) the text is
    normalised by exactly those steps instead.
    """

    name = "token_f1"
    aliases = ("f1",)
    Config = TokenF1Config
    example = """
    name: token-f1-example
    tasks:
      - id: qa
        response: "The Eiffel Tower."
        evaluate: {type: token_f1, reference: ["Eiffel Tower", "the tower"], threshold: 0.8}
    """

    def score(self, hypothesis: str, refs: list[str]) -> tuple[float, dict[str, Any]]:
        c = self.config
        if c.agentclash:
            steps = (bool(c.normalize), bool(c.remove_punctuation), bool(c.remove_articles))
            hyp = agentclash.token_pipeline(hypothesis, *steps)
            best = max(
                squad.tokens_f1(hyp.split(), agentclash.token_pipeline(r, *steps).split()) for r in refs
            )
            return best, {"normalized": hyp}
        best = max(squad.token_f1(hypothesis, r) for r in refs)
        return best, {"normalized": squad.normalize_answer(hypothesis)}


class SquadExactMatch(CorpusMetric):
    """SQuAD exact match: equal after normalisation to any reference (1 or 0).

    (``exact_match`` is bench-deterministic's strict equality; this is the SQuAD metric.)
    """

    name = "squad_exact_match"
    aliases = ("squad_em",)
    Config = ReferenceConfig
    example = """
    name: squad-exact-match-example
    tasks:
      - id: qa
        response: "the Eiffel Tower!"
        evaluate: {type: squad_exact_match, reference: "Eiffel Tower"}
    """

    def score(self, hypothesis: str, refs: list[str]) -> tuple[float, dict[str, Any]]:
        return max(squad.exact_match(hypothesis, r) for r in refs), {
            "normalized": squad.normalize_answer(hypothesis)
        }
