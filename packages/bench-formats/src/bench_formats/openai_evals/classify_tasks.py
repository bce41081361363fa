"""Tasks of ``ModelBasedClassify`` evals: one per sample, graded by ``openai_evals_classify``.

``evals/elsuite/modelgraded/classify.py``: each ``input_outputs`` key of the sample has its braces
doubled; the model answers each key whose output the sample lacks; the grading prompt (the spec's,
the ``eval_type`` instruction appended) is filled with the outputs, the sample and
``modelgraded_spec_args``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import ConfigError
from bench_formats.openai_evals import choices as ch
from bench_formats.openai_evals.basic_tasks import check_args, messages_of
from bench_formats.openai_evals.registry import EvalEntry, modelgraded_specs, resolve_spec
from bench_formats.openai_evals.samples import data_path, read_samples
from bench_formats.openai_evals.text import chat_as_text, is_chat_prompt, scrub_braces

ARGS = {
    "modelgraded_spec", "modelgraded_spec_args", "sample_kwargs", "eval_kwargs", "multicomp_n",
    "eval_type", "match_fn", "metaeval",
}  # fmt: skip
#: ``ModelGradedSpec``'s fields; another is a TypeError in ``evals``.
SPEC_FIELDS = {
    "prompt",
    "choice_strings",
    "input_outputs",
    "eval_type",
    "choice_scores",
    "output_template",
    "key",
    "group",
}
#: Specs without ``choice_scores`` whose choices bench reads as pass or fail (documented in
#: docs/formats/openai.md): ``fact``'s (D) is the one disagreement.
PASSING = {"fact": ["A", "B", "C", "E"]}
#: ``PromptFn``'s sampling parameters; ``eval_kwargs`` may set these three (``n_samples`` is ``n``).
GRADING = {
    "max_tokens": 1024,
    "temperature": 0,
    "top_p": 1,
    "frequency_penalty": 0,
    "presence_penalty": 0,
    "n": 1,
}


class Plan:
    """What every sample of one eval shares: the grading prompt, choices, scores and grader."""

    def __init__(self, entry: EvalEntry, root: Path, file: Path, judge: dict[str, Any]) -> None:
        check_args(entry, "ModelBasedClassify", ARGS, file)
        self.entry = entry
        self.problem: str | None = None
        args = entry.args
        name = args.get("modelgraded_spec")
        found = resolve_spec(modelgraded_specs(root), str(name)) if isinstance(name, str) else None
        if found is None:
            raise ConfigError(
                f"eval '{entry.name}': Modelgraded spec {name} not found "
                f"(looked in {root / 'modelgraded'} and evals' own specs)",
                file=file,
            )
        self.spec_name, spec = found
        self.metaeval = bool(args.get("metaeval", False))
        self.spec_args = args.get("modelgraded_spec_args") or {}
        self.evaluator: dict[str, Any] = {"type": "openai_evals_classify", "spec": self.spec_name, **judge}
        self.input_outputs: dict[str, str] = {}
        try:
            self._prepare(spec, args)
        except (ch.BadChoices, KeyError, TypeError, ValueError) as exc:
            self.problem = f"ModelBasedClassify ({self.spec_name}): {exc}"

    def _prepare(self, spec: dict[str, Any], args: dict[str, Any]) -> None:
        unknown = sorted(set(spec) - SPEC_FIELDS - {"_file"})
        if unknown:
            raise TypeError(f"the spec has fields ModelGradedSpec does not take: {', '.join(unknown)}")
        multicomp = args.get("multicomp_n", 1)
        if multicomp != 1:
            raise ValueError(
                f"multicomp_n {multicomp!r} asks the model for several completions per sample; "
                "bench's target gives one"
            )
        eval_type = args.get("eval_type")
        read_as = spec.get("eval_type") or eval_type
        if read_as is None:
            raise ValueError("neither the eval's eval_type nor the spec's is set (evals fails on it)")
        if eval_type is not None and eval_type not in ch.ANSWER_PROMPTS:
            raise ValueError(f"unknown eval_type {eval_type!r}")
        match_fn = args.get("match_fn") or ch.DEFAULT_MATCH_FN
        if match_fn not in ch.MATCH_FNS:
            raise ValueError(f"unknown match_fn {match_fn!r}")
        choices = ch.choice_strings(spec["choice_strings"], n=1)
        scores = ch.choice_scores(spec.get("choice_scores"), choices)
        prompt = spec["prompt"]
        messages = (
            [{"role": "user", "content": prompt}] if isinstance(prompt, str) else [dict(m) for m in prompt]
        )
        if eval_type is not None:
            messages[-1]["content"] += "\n\n" + ch.answer_prompt(eval_type, choices)
        self.input_outputs = {str(k): str(v) for k, v in dict(spec["input_outputs"]).items()}
        self.evaluator.update(
            prompt=messages,
            eval_type=read_as,
            match_fn=match_fn,
            choice_strings=choices,
            params={**GRADING, **_grading_params(args.get("eval_kwargs") or {})},
        )
        if scores is not None:
            self.evaluator["choice_scores"] = scores
        elif self.spec_name in PASSING and choices == list("ABCDE"):
            self.evaluator["passing_choices"] = PASSING[self.spec_name]
        elif not self.metaeval:
            raise ValueError(
                "the spec has no choice_scores, so a choice is neither a pass nor a fail in bench"
            )

    def task(
        self, index: int, sample: Any, task_id: str, where: Callable[[str], ConfigError]
    ) -> dict[str, Any]:
        """The task of one sample."""
        base: dict[str, Any] = {"id": task_id, "metadata": {"eval": self.entry.name, "sample": index}}
        if self.problem is not None:
            return {**base, "response": "", "evaluate": {**self.evaluator, "unsupported": self.problem}}
        if not isinstance(sample, dict):
            raise where("sample must be a dict")
        values = dict(sample)
        for key in self.input_outputs:
            if key not in values:
                raise where(f"the sample has no '{key}' (modelgraded spec {self.spec_name} reads it)")
            if not isinstance(values[key], str) and not is_chat_prompt(values[key]):
                raise where(f"sample['{key}'] must be a text or a list of chat messages")
            values[key] = scrub_braces(values[key])
        evaluator = {**self.evaluator, "values": {**values, **self.spec_args, "n": 1}}
        if self.metaeval:
            if "choice" not in sample:
                raise where("a meta-eval sample needs 'choice' (the label the grader should give)")
            evaluator["expected_choice"] = str(sample["choice"])
        missing = [(k, v) for k, v in self.input_outputs.items() if v not in sample]
        if len(missing) > 1:
            outputs = ", ".join(v for _, v in missing)
            problem = (
                f"ModelBasedClassify ({self.spec_name}): needs {len(missing)} completions per "
                f"sample ({outputs}); bench's target gives one"
            )
            return {**base, "response": "", "evaluate": {**self.evaluator, "unsupported": problem}}
        if not missing:  # the sample holds what is graded: no model answers it
            first: Any = sample[next(iter(self.input_outputs.values()))] if self.input_outputs else ""
            shown = chat_as_text(first) if is_chat_prompt(first) else str(first)
            return {**base, "response": shown, "evaluate": evaluator}
        key, output = missing[0]
        evaluator["output_key"] = output
        return {**base, "input": messages_of(sample[key]), "evaluate": evaluator}


def _grading_params(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``eval_kwargs`` as ``PromptFn`` takes them; another key is a TypeError in ``evals``."""
    unknown = sorted(set(kwargs) - {"max_tokens", "temperature", "n_samples", "completion_kwargs"})
    if unknown:
        raise TypeError(f"eval_kwargs: PromptFn does not take {', '.join(unknown)}")
    params: dict[str, Any] = {k: kwargs[k] for k in ("max_tokens", "temperature") if k in kwargs}
    if kwargs.get("n_samples") is not None:
        params["n"] = kwargs["n_samples"]
    return {**params, **(kwargs.get("completion_kwargs") or {})}


def classify_tasks(
    entry: EvalEntry, root: Path, rule: Any, file: Path, ids: Callable[[int], str], judge: dict[str, Any]
) -> tuple[list[dict[str, Any]], str | None]:
    """The eval's tasks, and why bench cannot grade it (every row is then an error), if so."""
    plan = Plan(entry, root, file, judge)
    path = data_path(root, entry.args.get("samples_jsonl"), entry.name, "samples_jsonl", rule, file)
    tasks = []
    for index, (source, line, sample) in enumerate(read_samples(path)):

        def where(message: str, source: Path = source, line: int = line) -> ConfigError:
            return ConfigError(f"eval '{entry.name}': {message}", file=source, line=line)

        tasks.append(plan.task(index, sample, ids(index), where))
    return tasks, plan.problem
