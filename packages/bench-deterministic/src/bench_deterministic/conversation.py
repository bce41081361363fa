"""Checks of a conversation's transcript: how many turns, when a tool was called, what was never said."""

from __future__ import annotations

from pydantic import Field, model_validator

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample
from bench.evidence import Turn, response_turns

TRANSCRIPT = """\
        response:
          messages:
            - {role: user, content: my parcel never came}
            - {role: assistant, content: "Sorry to hear that. What is the order number?"}
            - {role: user, content: "It is 7."}
            - role: assistant
              content: Your refund is on its way.
              tool_calls:
                - {id: c1, type: function, function: {name: issue_refund, arguments: '{"order": 7}'}}"""


def _messages(name: str, sample: Sample) -> None:
    """Refuse a response with no transcript: a check that read nothing must not pass."""
    if not sample.response.messages:
        raise EvaluatorError(
            f"{name} reads a conversation's messages, and this response has none: give the task a "
            "conversation: or a recorded response with messages"
        )


def _turns(name: str, sample: Sample) -> list[Turn]:
    _messages(name, sample)
    return response_turns(sample.response)


class TurnCountConfig(EvaluatorConfig):
    """Settings of turn_count."""

    min: int | None = Field(default=None, ge=0)
    """The fewest answered turns that pass."""
    max: int | None = Field(default=None, ge=0)
    """The most answered turns that pass."""

    @model_validator(mode="after")
    def _a_bound(self) -> TurnCountConfig:
        if self.min is None and self.max is None:
            raise ValueError("give min, max or both")
        return self


class TurnCount(Evaluator[TurnCountConfig]):
    """The number of answered turns (a user message and the assistant's reply) lies within bounds."""

    name = "turn_count"
    Config = TurnCountConfig
    example = f"""
    name: turn-count-example
    tasks:
      - id: refund
{TRANSCRIPT}
        evaluate: {{type: turn_count, max: 3}}
    """

    def evaluate(self, sample: Sample) -> Result:
        count = sum(1 for turn in _turns(self.name, sample) if turn.reply is not None)
        low, high = self.config.min, self.config.max
        passed = (low is None or count >= low) and (high is None or count <= high)
        bounds = " and ".join(
            part
            for part in (low is not None and f"at least {low}", high is not None and f"at most {high}")
            if part
        )
        return Result(passed, None, f"{count} answered turns ({bounds} allowed)", {"turns": count})


class ToolCalledBeforeConfig(EvaluatorConfig):
    """Settings of tool_called_before."""

    tool: str = Field(min_length=1)
    """The tool's name."""
    turn: int = Field(gt=1)
    """The turn (1-based) it must have been called before: in one of the turns ahead of it."""


class ToolCalledBefore(Evaluator[ToolCalledBeforeConfig]):
    """The assistant called a tool before a given turn of the conversation."""

    name = "tool_called_before"
    Config = ToolCalledBeforeConfig
    example = f"""
    name: tool-called-before-example
    tasks:
      - id: refund
{TRANSCRIPT}
        evaluate: {{type: tool_called_before, tool: issue_refund, turn: 3}}
    """

    def evaluate(self, sample: Sample) -> Result:
        tool, limit = self.config.tool, self.config.turn
        for turn in _turns(self.name, sample):
            if any(call.name == tool for call in turn.tool_calls):
                if turn.number < limit:
                    return Result(True, None, f"{tool} called in turn {turn.number}", {"turn": turn.number})
                reason = f"{tool} first called in turn {turn.number}, not before turn {limit}"
                return Result(False, None, reason, {"turn": turn.number})
        return Result(False, None, f"{tool} was never called")


class NeverSaidConfig(EvaluatorConfig):
    """Settings of never_said."""

    phrases: list[str] = Field(min_length=1)
    """Texts the speaker must never say (matched anywhere in a message)."""
    role: str = "assistant"
    """Whose messages are read: ``assistant`` or ``user``."""
    case_sensitive: bool = False


class NeverSaid(Evaluator[NeverSaidConfig]):
    """No message of the assistant (or the user) in the transcript holds any of the phrases."""

    name = "never_said"
    Config = NeverSaidConfig
    example = f"""
    name: never-said-example
    tasks:
      - id: refund
{TRANSCRIPT}
        evaluate: {{type: never_said, phrases: ["I cannot help", "as an AI"]}}
    """

    def evaluate(self, sample: Sample) -> Result:
        _messages(self.name, sample)
        config = self.config
        fold = (lambda text: text) if config.case_sensitive else str.casefold
        phrases = [fold(p) for p in config.phrases]
        turn = 0
        for index, message in enumerate(sample.response.messages):
            turn += message.role == "user"
            if message.role != config.role or not isinstance(message.content, str):
                continue
            said = next(
                (p for p, f in zip(config.phrases, phrases, strict=True) if f in fold(message.content)), None
            )
            if said is not None:
                details = {"turn": turn, "message": index}
                return Result(False, None, f"turn {turn}: the {config.role} said {said!r}", details)
        return Result(True, None, f"none of {len(phrases)} phrases said by the {config.role}")
