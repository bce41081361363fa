"""Judged conversation metrics: completeness, role adherence, knowledge retention, turn relevancy.

Each judge reads the whole transcript (its messages numbered by turn), scores it 0..1 by its
rubric below, and names the first turn that fell short (``details['turn']``).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, Field

from bench import EvaluatorError, Result, Sample
from bench.evidence import response_turns
from bench.llm import Judge, JudgeConfig, Vote
from bench_llm_judge import prompts

#: The rubric of each metric: what the judge is told, word for word (docs/conversations.md).
RUBRICS = {
    "conversation_completeness": (
        "Did the conversation meet the user's goal? Score 1 when every request the user made was "
        "satisfied by the end, 0.5 when some were, 0 when none were. {goal}"
    ),
    "role_adherence": (
        "Did the assistant stay in its role in every turn? Its role: {role}. Score 1 when every reply "
        "fits the role, lower for each reply that breaks it (off-role claims, tone, or scope), 0 when "
        "the assistant abandons the role."
    ),
    "knowledge_retention": (
        "Did the assistant remember what the user told it? Score 1 when no reply asks again for a fact "
        "the user already gave or contradicts one, lower for each reply that does, 0 when the "
        "assistant ignores what it was told."
    ),
    "turn_relevancy": (
        "Was every assistant reply relevant to the user's message it answers, in the context of the "
        "conversation so far? Score the fraction of relevant replies, from 0 to 1."
    ),
}

TEMPLATE = """Judge this conversation between a user and an AI assistant.

{rubric}

Conversation (each message is marked with its turn number):
{transcript}

Give a reason, the score, whether it passes (score at least {threshold}), and the number of the first
turn that fell short (0 when none did)."""


class ConversationVerdict(BaseModel):
    reason: str = Field(description="One or two sentences explaining the verdict.")
    score: float = Field(ge=0, le=1, description="The score, 0..1, by the rubric.")
    passed: bool = Field(description="Whether the conversation passes.")
    turn: int = Field(default=0, ge=0, description="The first turn that fell short; 0 when none did.")


class ConversationJudgeConfig(JudgeConfig):
    """Settings of a conversation metric."""

    pass_score: float = Field(default=0.5, ge=0, le=1)
    """The score a conversation needs to pass."""


class CompletenessConfig(ConversationJudgeConfig):
    """Settings of conversation_completeness."""

    goal: str | None = None
    """The user's goal; default: the task's simulated user's ``goal``, else what the user asked."""


class RoleAdherenceConfig(ConversationJudgeConfig):
    """Settings of role_adherence."""

    role: str = Field(min_length=1)
    """The role the assistant must keep (a support agent of a shop, a tutor that never gives answers)."""


def numbered(sample: Sample) -> str:
    """The transcript, each message marked with its turn number."""
    messages = sample.response.messages
    turn_of = {}
    for turn in response_turns(sample.response):
        last = turn.reply if turn.reply is not None else turn.user
        for index in range(turn.user, last + 1):
            turn_of[index] = turn.number
    lines = []
    for index, message in enumerate(messages):
        if message.role in ("user", "assistant") and isinstance(message.content, str):
            lines.append(f"[turn {turn_of.get(index, 0)}] {message.role}: {message.content}")
    return "\n".join(lines)


class _ConversationJudge(Judge[Any]):
    """A judge of a whole transcript by one rubric (``RUBRICS[name]``)."""

    Verdict = ConversationVerdict
    system = prompts.SYSTEM
    prompt_version = prompts.PROMPT_VERSION
    lists_verdicts = True
    untrusted: ClassVar[tuple[str, ...]] = ("transcript",)

    def rubric_values(self, sample: Sample) -> dict[str, str]:
        return {}

    def messages(self, sample: Sample) -> list[dict[str, Any]]:
        if not sample.response.messages:  # an empty transcript is nothing to judge, never a pass
            raise EvaluatorError(
                f"{self.name} reads a conversation's messages, and this response has none: give the "
                "task a conversation: or a recorded response with messages"
            )
        rubric = RUBRICS[self.name].format(**self.rubric_values(sample))
        values = {
            "rubric": rubric,
            "threshold": f"{self.config.pass_score:g}",
            "transcript": numbered(sample),
        }
        return self.framed(TEMPLATE, values)

    def vote(self, sample: Sample, verdict: ConversationVerdict, model: str) -> Vote:
        details = {"turn": verdict.turn} if verdict.turn else {}
        return Vote(verdict.score >= self.config.pass_score, verdict.score, verdict.reason, details)

    def combine(self, votes: list[Vote], clamped: bool) -> Result:
        """The votes combined; the earliest turn a verdict named is the result's ``turn``."""
        result = super().combine(votes, clamped)
        turns = [v.details["turn"] for v in votes if "turn" in v.details and v.passed == result.passed]
        if turns:
            result.details["turn"] = min(turns)
        return result


def _example(name: str, settings: str) -> str:
    return f"""
    name: {name.replace("_", "-")}-example
    tasks:
      - id: refund
        response:
          messages:
            - {{role: user, content: "My parcel never came. Order 7."}}
            - {{role: assistant, content: "Sorry! I have started a refund for order 7."}}
        evaluate: {{type: {name}, model: openai/gpt-4o-mini{settings}}}
    """


class Completeness(_ConversationJudge):
    """Whether the conversation met the user's goal (DeepEval's conversation completeness)."""

    name = "conversation_completeness"
    Config = CompletenessConfig
    example = _example(name, ", goal: get a refund")

    def rubric_values(self, sample: Sample) -> dict[str, str]:
        goal = self.config.goal
        conversation = sample.task.conversation
        if goal is None and conversation is not None:
            goal = next((s.goal for s in conversation.simulators() if s.goal), None)
        return {"goal": f"The user's goal: {goal}" if goal else "Infer the user's goal from what they asked."}


class RoleAdherence(_ConversationJudge):
    """Whether the assistant kept its role in every turn."""

    name = "role_adherence"
    Config = RoleAdherenceConfig
    example = _example(name, ", role: a shop's support agent")

    def rubric_values(self, sample: Sample) -> dict[str, str]:
        return {"role": self.config.role}


class KnowledgeRetention(_ConversationJudge):
    """Whether facts the user gave earlier were never asked again nor contradicted."""

    name = "knowledge_retention"
    Config = ConversationJudgeConfig
    example = _example(name, "")


class TurnRelevancy(_ConversationJudge):
    """Whether each assistant reply is relevant to the message it answers, in context."""

    name = "turn_relevancy"
    Config = ConversationJudgeConfig
    example = _example(name, "")


CONVERSATION_JUDGES = (Completeness, RoleAdherence, KnowledgeRetention, TurnRelevancy)
