"""faithfulness, relevancy, precision and recall: RAG checks judged through bench's LLM client."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator

from bench import EvaluatorError, Sample
from bench.evidence import as_text, parse_reference
from bench.llm import Judge, TemplateJudgeConfig, Vote
from bench_rag import prompts


def _chunks(value: Any) -> list[str]:
    if isinstance(value, list):
        return [as_text(v) for v in value]
    if isinstance(value, str):
        return [value]
    return [as_text(value)]


class ContextConfig(TemplateJudgeConfig):
    """Settings shared by the checks that read retrieved context."""

    context: str | list[str] | None = None
    """The retrieved context: one text, or a list of chunks in rank order."""
    context_from: str | None = None
    """An evidence reference to the context instead (``artifact.documents`` for what the
    retrieval system returned, ``case.inputs.context``, ...)."""

    @field_validator("context_from")
    @classmethod
    def _reference(cls, ref: str | None) -> str | None:
        return None if ref is None else parse_reference(ref)

    @model_validator(mode="after")
    def _one_context(self) -> ContextConfig:
        if (self.context is None) == (self.context_from is None):
            raise ValueError(
                "give context (text or a list of chunks) or context_from (an evidence reference)"
            )
        return self


def context_of(config: ContextConfig, sample: Sample) -> list[str]:
    """The context chunks, from the settings or from the evidence reference."""
    if config.context is not None:
        return _chunks(config.context)
    assert config.context_from is not None
    chunks = _chunks(sample.evidence.value(config.context_from))
    if not chunks:
        raise EvaluatorError(f"{config.context_from} holds no context")
    return chunks


def numbered(chunks: list[str]) -> str:
    return "\n\n".join(f"[{i}] {chunk}" for i, chunk in enumerate(chunks, start=1))


class Claim(BaseModel):
    claim: str
    supported: bool
    reason: str = ""


class ClaimsVerdict(BaseModel):
    claims: list[Claim] = Field(
        description="Every factual claim of the response, each judged against the context."
    )


class Faithfulness(Judge[ContextConfig]):
    """Is every claim in the response supported by the retrieved context?

    The judge lists the response's factual claims and marks each supported or not by the context;
    the score is the supported fraction (1 when the response makes no claim), and the result
    lists the unsupported claims. Placeholders: ``{response}``, ``{context}``.
    """

    name = "faithfulness"
    Config = ContextConfig
    template = prompts.FAITHFULNESS
    prompt_version = prompts.VERSION
    fields = ("response", "context")
    untrusted = ("response", "context")
    Verdict = ClaimsVerdict
    example = """
    name: faithfulness-example
    tasks:
      - id: returns
        response: "Returns are accepted within 30 days."
        evaluate:
          type: faithfulness
          context: "Returns accepted within 30 days of purchase with a receipt."
          model: openai/gpt-4o-mini
          score_threshold: 0.8
    """

    def values(self, sample: Sample) -> dict[str, str]:
        return {"response": sample.output, "context": numbered(context_of(self.config, sample))}

    def passes(self, score: float) -> bool:
        return score >= 1  # every claim supported

    def vote(self, sample: Sample, verdict: ClaimsVerdict, model: str) -> Vote:
        claims = verdict.claims
        unsupported = [c for c in claims if not c.supported]
        score = 1.0 if not claims else 1 - len(unsupported) / len(claims)
        details = {"claims": [c.model_dump() for c in claims], "unsupported": [c.claim for c in unsupported]}
        if unsupported:
            listed = "; ".join(c.claim for c in unsupported[:3])
            reason = f"{len(unsupported)} of {len(claims)} claims not supported by the context: {listed}"
            return Vote(False, score, reason, details)
        reason = (
            f"all {len(claims)} claims supported by the context" if claims else "the response makes no claims"
        )
        return Vote(True, score, reason, details)


class QuestionConfig(TemplateJudgeConfig):
    """Settings of relevancy."""

    question: str | None = None
    """The question the response should answer (default: the task's prompt)."""


class ScoreVerdict(BaseModel):
    score: float = Field(ge=0, le=1, description="0 = not at all, 1 = completely")
    reason: str


class Relevancy(Judge[QuestionConfig]):
    """Does the response answer the question, and only the question? The judge scores 0..1.

    Placeholders: ``{response}``, ``{question}``.
    """

    name = "relevancy"
    aliases = ("answer_relevancy",)
    Config = QuestionConfig
    template = prompts.RELEVANCY
    prompt_version = prompts.VERSION
    fields = ("response", "question")
    Verdict = ScoreVerdict
    example = """
    name: relevancy-example
    tasks:
      - id: returns
        prompt: "What is the return policy?"
        response: "You can return items within 30 days."
        evaluate: {type: relevancy, model: openai/gpt-4o-mini, score_threshold: 0.8}
    """

    def values(self, sample: Sample) -> dict[str, str]:
        return {"response": sample.output, "question": self.config.question or sample.task.text}

    def vote(self, sample: Sample, verdict: ScoreVerdict, model: str) -> Vote:
        return Vote(verdict.score >= 0.5, verdict.score, verdict.reason)


class PrecisionConfig(ContextConfig):
    """Settings of precision."""

    question: str | None = None
    """The question the context was retrieved for (default: the task's prompt)."""


class ChunkVerdict(BaseModel):
    relevant: bool
    reason: str = ""


class ChunksVerdict(BaseModel):
    chunks: list[ChunkVerdict] = Field(description="One entry per numbered chunk, in the same order.")


def average_precision(relevant: list[bool]) -> float:
    """Rank-aware context precision: the mean of precision@k over the ranks k of relevant chunks."""
    hits, total = 0, 0.0
    for k, is_relevant in enumerate(relevant, start=1):
        if is_relevant:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


class Precision(Judge[PrecisionConfig]):
    """Context precision: are the retrieved chunks relevant to the question, and ranked first?

    The judge marks each chunk relevant or not; the score is the average precision over the
    ranks of the relevant chunks (RAGAS's context precision), so relevant chunks ranked low cost
    more than the same chunks ranked high. Placeholders: ``{question}``, ``{context}``.
    """

    name = "precision"
    aliases = ("context_precision",)
    Config = PrecisionConfig
    template = prompts.PRECISION
    prompt_version = prompts.VERSION
    fields = ("question", "context")
    untrusted = ("context",)
    Verdict = ChunksVerdict
    example = """
    name: precision-example
    tasks:
      - id: returns
        prompt: "What is the return policy?"
        response: "Within 30 days."
        evaluate:
          type: precision
          context: ["Returns accepted within 30 days.", "Our stores open at 9am."]
          model: openai/gpt-4o-mini
    """

    def values(self, sample: Sample) -> dict[str, str]:
        return {
            "question": self.config.question or sample.task.text,
            "context": numbered(context_of(self.config, sample)),
        }

    def vote(self, sample: Sample, verdict: ChunksVerdict, model: str) -> Vote:
        chunks = context_of(self.config, sample)
        if len(verdict.chunks) != len(chunks):
            raise EvaluatorError(
                f"judge {model} judged {len(verdict.chunks)} chunks, but there are {len(chunks)}"
            )
        relevant = [c.relevant for c in verdict.chunks]
        score = average_precision(relevant)
        ranks = [i for i, r in enumerate(relevant, start=1) if r]
        reason = (
            f"relevant chunks at ranks {ranks} of {len(chunks)}"
            if ranks
            else "no retrieved chunk is relevant"
        )
        return Vote(score >= 0.5, score, reason, {"relevant": relevant})


class RecallConfig(ContextConfig):
    """Settings of recall."""

    reference: str
    """The reference answer whose statements the context should contain."""


class Statement(BaseModel):
    statement: str
    attributed: bool
    reason: str = ""


class StatementsVerdict(BaseModel):
    statements: list[Statement] = Field(
        description="Every statement of the reference answer, each checked in the context."
    )


class Recall(Judge[RecallConfig]):
    """Context recall: how much of the reference answer can be found in the retrieved context?

    The judge splits the reference into statements and marks each attributable to the context
    or not; the score is the attributed fraction. Placeholders: ``{reference}``, ``{context}``.
    """

    name = "recall"
    aliases = ("context_recall",)
    Config = RecallConfig
    template = prompts.RECALL
    prompt_version = prompts.VERSION
    fields = ("reference", "context")
    untrusted = ("context",)
    Verdict = StatementsVerdict
    example = """
    name: recall-example
    tasks:
      - id: returns
        response: "Within 30 days."
        evaluate:
          type: recall
          reference: "Returns are accepted within 30 days with a receipt."
          context: ["Returns accepted within 30 days.", "A receipt is required for returns."]
          model: openai/gpt-4o-mini
    """

    def values(self, sample: Sample) -> dict[str, str]:
        return {"reference": self.config.reference, "context": numbered(context_of(self.config, sample))}

    def vote(self, sample: Sample, verdict: StatementsVerdict, model: str) -> Vote:
        statements = verdict.statements
        if not statements:
            raise EvaluatorError(f"judge {model} found no statement in the reference")
        missing = [s.statement for s in statements if not s.attributed]
        score = 1 - len(missing) / len(statements)
        details = {"statements": [s.model_dump() for s in statements]}
        if missing:
            return Vote(score >= 0.5, score, f"not in the context: {'; '.join(missing[:3])}", details)
        return Vote(True, score, f"all {len(statements)} reference statements are in the context", details)
