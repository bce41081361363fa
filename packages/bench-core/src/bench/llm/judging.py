"""A base for evaluators that ask one model for a structured verdict from a prompt template.

Plugins (bench-rag, bench-safety) subclass ``TemplateJudge``: they give a default prompt (a
documented, versioned template with ``{placeholders}``), a pydantic verdict model and how the
verdict becomes a ``Result``. The user may replace the template in the suite with ``prompt:``;
its placeholders are checked when the suite is loaded. Untrusted text (the response, retrieved
context) is wrapped in per-call delimiters that it cannot close, and the system message tells
the judge that it is data (RELIABILITY H06). Every call goes through the run's LLM client.
"""

from __future__ import annotations

from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, Field, field_validator

from bench.errors import EvaluatorError
from bench.evaluator import Evaluator, EvaluatorConfig, Sample
from bench.llm.verdict import ask_verdict, data_rule, delimit
from bench.models import Task
from bench.templates import MissingPlaceholder, placeholders, render


def framed(template: str, values: dict[str, str], untrusted: tuple[str, ...]) -> list[dict[str, str]]:
    """Judge messages: the template filled, ``untrusted`` values delimited as data (H06)."""
    rules, filled = [], {}
    for name, value in values.items():
        if name in untrusted:
            block, tag = delimit(value, name)
            filled[name] = block
            rules.append(data_rule(tag))
        else:
            filled[name] = value
    try:
        text = render(template, filled)
    except MissingPlaceholder as exc:
        raise EvaluatorError(f"the prompt needs {{{exc.name}}}, which this task does not provide") from None
    return [
        {"role": "system", "content": "You are a careful evaluator. " + " ".join(rules)},
        {"role": "user", "content": text},
    ]


class TemplateJudgeConfig(EvaluatorConfig):
    """Settings every template judge has."""

    model: str
    """The judge model, as litellm names it (``openai/gpt-4o-mini``)."""
    api_base: str | None = None
    """The judge's endpoint, when not the provider's default."""
    api_key_env: str | None = None
    """The environment variable holding the judge's API key."""
    prompt: str | None = None
    """Replace the built-in prompt template (see the type's placeholders)."""
    temperature: float | None = Field(default=0.0, ge=0, le=2)
    """Sampling temperature of the judge (0: as repeatable as the model allows)."""

    @field_validator("model")
    @classmethod
    def _named(cls, model: str) -> str:
        if not model.strip():
            raise ValueError("the judge model is empty")
        return model


ConfigT = TypeVar("ConfigT", bound=TemplateJudgeConfig)


class TemplateJudge(Evaluator[ConfigT], Generic[ConfigT]):
    """An evaluator that renders a prompt template and asks the model for a ``Verdict``."""

    #: The built-in template and its version (recorded in every result's details).
    template: ClassVar[str] = ""
    prompt_version: ClassVar[str] = "1"
    #: Placeholders the template may use; ``untrusted`` ones are delimited as data.
    fields: ClassVar[tuple[str, ...]] = ("response",)
    untrusted: ClassVar[tuple[str, ...]] = ("response",)
    Verdict: ClassVar[type[BaseModel]]

    def check(self, task: Task) -> None:
        if self.config.prompt is None:
            return
        unknown = [p for p in placeholders(self.config.prompt) if p not in self.fields]
        if unknown:
            raise ValueError(
                f"unknown placeholder {{{unknown[0]}}} in prompt; {self.name} fills {', '.join(self.fields)}"
            )

    def llm_calls(self) -> list[tuple[str, int]]:
        return [(self.config.model, 1)]

    def values(self, sample: Sample) -> dict[str, str]:
        """The placeholder values for one sample (subclasses add theirs)."""
        return {"response": sample.output}

    async def ask(self, sample: Sample) -> tuple[Any, dict[str, Any]]:
        """Render the prompt, ask the judge; return the verdict and the details to keep."""
        if sample.llm is None:
            raise EvaluatorError(f"{self.name} needs the run's LLM client")
        messages = framed(self.config.prompt or self.template, self.values(sample), self.untrusted)
        params = {} if self.config.temperature is None else {"temperature": self.config.temperature}
        verdict, _raw = await ask_verdict(
            sample.llm,
            self.Verdict,
            messages,
            model=self.config.model,
            api_base=self.config.api_base,
            api_key_env=self.config.api_key_env,
            params=params,
        )
        version = "custom" if self.config.prompt is not None else self.prompt_version
        return verdict, {"judge": self.config.model, "prompt_version": version}


__all__ = ["TemplateJudge", "TemplateJudgeConfig", "framed"]
