"""The ``openai_evals_classify`` evaluator type: ``ModelBasedClassify``'s grading of one sample."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import Field

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample
from bench.llm import LLMRequest
from bench_formats.openai_evals import choices as ch
from bench_formats.openai_evals import text


class OpenAIEvalsClassifyConfig(EvaluatorConfig):
    """Settings of openai_evals_classify (what the OpenAI evals loader writes for one sample)."""

    spec: str = ""
    """The modelgraded spec's name (``fact``, ``closedqa``, ...), for messages."""
    prompt: list[dict[str, Any]] = Field(default_factory=list)
    """The grading prompt as chat messages, the ``eval_type`` instruction appended; each
    message's ``content`` is a ``str.format`` template of ``values``."""
    values: dict[str, Any] = Field(default_factory=dict)
    """The template's values: the sample's fields (those in ``input_outputs`` with braces doubled,
    as ``evals`` does), the eval's ``modelgraded_spec_args`` and ``n``."""
    output_key: str | None = None
    """The value the response fills (``completion``); None when the sample holds it already."""
    eval_type: str = "cot_classify"
    """How the answer is read: ``cot_classify*`` reads its lines bottom up, others top down."""
    match_fn: str = ch.DEFAULT_MATCH_FN
    """``include``, ``exact``, ``endswith`` or ``starts_or_endswith``."""
    choice_strings: list[str] = Field(default_factory=list)
    choice_scores: dict[str, float] | None = None
    """Each choice's score (an invalid answer scores the lowest); None: the spec has none."""
    passing_choices: list[str] | None = None
    """For a spec without ``choice_scores``: the choices that pass (bench's reading)."""
    expected_choice: str | None = None
    """A meta-eval's labelled ``choice``: the row passes when the grader picks it (``metascore``)."""
    model: str | None = None
    """The grading model (litellm name): ``oaieval`` grades with the model it evaluates."""
    api_base: str | None = None
    api_key_env: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    """Sampling parameters of the grading call (``evals``' ``PromptFn``: ``max_tokens`` 1024,
    ``temperature`` 0, ``top_p`` 1, penalties 0, ``n`` 1, and the eval's ``eval_kwargs``)."""
    unsupported: str | None = None
    """Why bench cannot grade this sample as ``evals`` does: the row is an error with this reason."""


class OpenAIEvalsClassify(Evaluator[OpenAIEvalsClassifyConfig]):
    """A sample of a ``ModelBasedClassify`` eval, graded as ``evals`` grades it (docs/formats/openai.md).

    The grading prompt is filled with the sample's fields and the response, sent to ``model``,
    and the answer read into one of ``choice_strings`` (``__invalid__`` when none). It passes on
    the labelled choice (a meta-eval), else on the best-scored choice, else on a
    ``passing_choices`` one; the score is the choice's score scaled to 0..1 (the choice and its
    raw score are in ``details``).
    """

    name = "openai_evals_classify"
    Config = OpenAIEvalsClassifyConfig
    var_settings: ClassVar[tuple[str, ...]] = ()
    example = """
    name: openai-evals-classify-example
    tasks:
      - id: capital.dev.0
        response: "The capital of France is Paris."
        evaluate:
          type: openai_evals_classify
          spec: capital
          model: openai/gpt-4o-mini
          prompt:
            - role: user
              content: "[Task]: {input}\\n[Reply]: {completion}\\nAnswer passed if right, else failed."
          values: {input: "Capital of France?"}
          output_key: completion
          eval_type: classify
          choice_strings: [passed, failed]
          choice_scores: {passed: 1.0, failed: 0.0}
    """

    def llm_calls(self) -> list[tuple[str, int]]:
        return [(self.config.model, 1)] if self.config.model and not self.config.unsupported else []

    async def evaluate(self, sample: Sample) -> Result:
        config = self.config
        if config.unsupported is not None:
            raise EvaluatorError(config.unsupported)
        if not config.model:
            raise EvaluatorError(
                f"ModelBasedClassify ({config.spec}): no grading model: oaieval grades with the model "
                "it evaluates, so run with --target '{type: litellm, model: ...}' (or set this "
                "evaluator's model)"
            )
        if sample.llm is None:
            raise EvaluatorError(f"ModelBasedClassify ({config.spec}): no LLM client in this run")
        messages = self._messages(sample)
        request = LLMRequest(
            model=config.model,
            messages=messages,
            params=dict(config.params),
            api_base=config.api_base,
            api_key_env=config.api_key_env,
            purpose="judge",
            index=sample.task.repeat,
        )
        answer = (await sample.llm.complete(request)).text or ""
        choice = ch.get_choice(answer, config.eval_type, config.match_fn, config.choice_strings)
        try:
            raw = ch.score_of(choice, config.choice_scores)
        except KeyError:
            raise EvaluatorError(
                f"ModelBasedClassify ({config.spec}): choice {choice!r} has no score in choice_scores "
                "(evals fails on it too)"
            ) from None
        details: dict[str, Any] = {"choice": choice, "choice_score": raw, "answer": answer}
        passed, score = self._verdict(choice, raw, details)
        reason = f"{config.spec}: the grader chose {choice}"
        if raw is not None:
            reason += f" (score {raw:g})"
        return Result(passed=passed, score=score, reason=reason, details=details)

    def _messages(self, sample: Sample) -> list[dict[str, Any]]:
        config = self.config
        completions = {config.output_key: sample.output} if config.output_key else {}
        values = text.template_values({**completions, **config.values})
        messages = []
        for message in config.prompt:
            filled = dict(message)
            if "content" in filled:
                try:
                    filled["content"] = text.format_necessary(filled["content"], values)
                except text.MissingField as exc:
                    raise EvaluatorError(f"ModelBasedClassify ({config.spec}): {exc}") from None
                except (ValueError, IndexError, KeyError, AttributeError) as exc:
                    raise EvaluatorError(
                        f"ModelBasedClassify ({config.spec}): cannot fill the grading prompt: {exc}"
                    ) from None
            messages.append(filled)
        return messages

    def _verdict(self, choice: str, raw: float | None, details: dict[str, Any]) -> tuple[bool, float]:
        config = self.config
        if config.expected_choice is not None:
            details["metascore"] = choice == config.expected_choice
            return choice == config.expected_choice, float(choice == config.expected_choice)
        if config.choice_scores is not None and raw is not None:
            low, high = min(config.choice_scores.values()), max(config.choice_scores.values())
            return raw == high, (raw - low) / (high - low) if high > low else 1.0
        if config.passing_choices is not None:
            passed = choice in config.passing_choices
            return passed, float(passed)
        raise EvaluatorError(
            f"ModelBasedClassify ({config.spec}): the grader chose {choice}, but the spec has no "
            "choice_scores, so the choice is neither a pass nor a fail"
        )
