"""The ``promptfoo`` evaluator type: a promptfoo test's assertions and its verdict."""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import Field, model_validator

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample
from bench.llm import SKIPPED, offline_skip
from bench.vocabulary import did_you_mean
from bench_formats.promptfoo import check_vars, js_context, python_transforms
from bench_formats.promptfoo.checks import REGISTRY, Grade
from bench_formats.promptfoo.checks.base import AssertionInvalid, Call
from bench_formats.promptfoo.checks.graded import GRADED, NOT_YET, grader
from bench_formats.promptfoo.checks.meteor import NO_WORDNET, database_for, meteor
from bench_formats.promptfoo.checks.moderation import moderation_model, moderation_provider
from bench_formats.promptfoo.checks.rag_context import transformed_context
from bench_formats.promptfoo.checks.wordnet import find_database
from bench_formats.promptfoo.compare import COMPARING
from bench_formats.promptfoo.python_checks import (
    Scope,
    ScriptFailed,
    grade_python,
    script_reference,
    script_value,
)
from bench_formats.promptfoo.python_embedding import python_provider
from bench_formats.promptfoo.simulated_user import as_promptfoo
from bench_formats.promptfoo.verdict import Tally

#: Code that bench does not run: a row with such a check is an error naming it.
SCRIPTS = {"ruby": "Ruby", "webhook": "webhook"}
#: Checks bench runs in a worker process (python_checks; javascript_checks: Node.js).
RUN = {"python", "javascript"}
#: promptfoo types bench does not check yet (an error names them, never a silent pass).
UNSUPPORTED = {
    *NOT_YET, "agent-rubric",
    "human", "is-valid-function-call",
    "perplexity", "perplexity-score", "pi", "skill-used",
    "tool-call-f1", "trace-error-spans", "trace-span-count",
    "trace-span-duration", "trajectory:goal-success", "trajectory:step-count",
    "trajectory:tool-args-match", "trajectory:tool-sequence", "trajectory:tool-used",
}  # fmt: skip
#: Types whose grader bench cannot ask through its LLM client: why, for the row's error.
REMOTE = {
    "agent-rubric": (
        "promptfoo grades it with an agent (openai:codex-sdk, anthropic:claude-agent-sdk, "
        "opencode:sdk, ...) that runs tools on this machine, which bench does not run"
    ),
    "pi": "promptfoo asks Pi Labs' remote scoring API (withpi.ai, WITHPI_API_KEY), which bench does not call",
}
#: Types that are not a check of one output: a group of checks, or a comparison of providers.
GROUPS = ("assert-set", "select-best", "max-score")


def type_problem(kind: Any) -> str | None:
    """Why ``kind`` is no promptfoo assertion type (naming the nearest one), or None when it is one."""
    if not isinstance(kind, str) or not kind:
        return "Missing required 'type' property"
    bases = sorted({*REGISTRY, *GRADED, *SCRIPTS, *RUN, *UNSUPPORTED, "meteor", "classifier"})
    if kind in GROUPS or kind.removeprefix("not-") in bases:
        return None
    choices = [f"not-{base}" for base in bases] if kind.startswith("not-") else [*bases, *GROUPS]
    return f"unknown assertion type '{kind}'{did_you_mean(kind, choices)}"


def assertion_problems(asserts: Any) -> list[tuple[tuple[Any, ...], str]]:
    """(where, why) for each assertion of a test's ``assert`` list, assert-set children included,
    whose type promptfoo does not have; ``where`` is the path below the list."""
    found: list[tuple[tuple[Any, ...], str]] = []
    for index, assertion in enumerate(asserts if isinstance(asserts, list) else []):
        if not isinstance(assertion, dict):
            continue
        problem = type_problem(assertion.get("type"))
        if problem is not None:
            found.append(((index,), problem))
        elif assertion["type"] == "assert-set":
            children = assertion_problems(assertion.get("assert"))
            found += [((index, "assert", *at), why) for at, why in children]
    return found


class PromptfooConfig(EvaluatorConfig):
    """Settings of promptfoo (what the promptfoo loader writes for one row)."""

    assert_: list[dict[str, Any]] = Field(default_factory=list, alias="assert")
    """The test's assertions as promptfoo writes them (``type``, ``value``, ``threshold``,
    ``weight``, ``metric``, ``provider``, ``transform``; ``assert`` children for ``assert-set``)."""
    options: dict[str, Any] = Field(default_factory=dict)
    """The test's merged ``options``: ``provider`` grades model-graded checks."""
    vars: dict[str, Any] = Field(default_factory=dict)
    """The row's rendered vars."""
    derived_metrics: list[dict[str, Any]] = Field(default_factory=list)
    """The config's ``derivedMetrics`` (``{name, value}``, a mathjs formula over the named scores):
    computed for each provider × prompt column at the end of the run (the run's figures)."""
    test_threshold: float | None = None
    """The test's ``threshold``, any number as promptfoo takes it: pass = score ≥ it, with
    promptfoo's reason ``Aggregate score 0.33 < 0.5 threshold`` (above 1 never passes, below 0
    always does). bench's own ``threshold`` (0..1) still works, with bench's reason."""
    assert_templates: list[Any] | None = None
    """The test's assertions as written, kept when the row's call can add vars
    (``_conversation``, stored outputs): their templated values are rendered again with them."""
    simulated_user: bool = False
    """The row is promptfoo's simulated-user conversation: its output is the transcript as
    promptfoo writes it (``User: …``/``Assistant: …`` joined by ``---`` lines)."""

    @model_validator(mode="after")
    def _known_types(self) -> PromptfooConfig:
        for at, why in assertion_problems(self.assert_):
            where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in at)
            raise ValueError(f"assert{where}: {why}")
        return self


def not_run(kind: str) -> str | None:
    """Why bench does not run a check of type ``kind`` (a row with one is an error), or None."""
    if kind in COMPARING:  # decided with the test's other rows (evaluate_group)
        return None
    base = kind.removeprefix("not-")
    if base.startswith("select-") or base == "max-score":
        return "it compares the outputs of several providers, which bench does not do yet"
    if base in SCRIPTS:
        return f"bench does not run {SCRIPTS[base]} assertions"
    if base in REMOTE:
        return REMOTE[base]
    if base.startswith("trace-"):
        return "it needs traces (the provider's OpenTelemetry spans), which bench does not collect"
    if base in UNSUPPORTED:
        return "bench does not support this promptfoo assertion type yet"
    return None


def _not_run(asserts: list[dict[str, Any]], folder: Path | None) -> str | None:
    """The error of a row with checks bench does not run: each named with why, else None."""
    found = [
        f"{kind}: did not run: {why}"
        for assertion in _flatten(asserts)
        for kind in [str(assertion.get("type", ""))]
        for why in [not_run(kind)]
        if why is not None
    ]
    meteor_checks = [a for a in _flatten(asserts) if str(a.get("type", "")).removeprefix("not-") == "meteor"]
    if meteor_checks and find_database(folder) is None:
        found.append(NO_WORDNET)
    return "; ".join(found) or None


class Promptfoo(Evaluator[PromptfooConfig]):
    """A promptfoo test's assertions, scored and passed as promptfoo does (docs/formats/promptfoo.md).

    score = Σ score·weight / Σ weight; it passes when no assertion failed, or, with the test's
    threshold (``test_threshold``), when score ≥ it. JavaScript (``javascript`` checks,
    ``file://x.js`` values, transforms) runs in the run's Node.js worker and Python in its Python
    worker. A check that cannot run (Ruby, webhook, JavaScript without Node.js) makes the row an
    error naming it, never a verdict over the other checks.
    """

    name = "promptfoo"
    Config = PromptfooConfig
    example = """
    name: promptfoo-example
    tasks:
      - id: weighted
        response: "Goodbye world"
        evaluate:
          type: promptfoo
          test_threshold: 0.2
          assert:
            - {type: equals, value: "Hello world", weight: 2}
            - {type: contains, value: world}
      - id: sets-and-metrics
        response: '{"a": 1}'
        evaluate:
          type: promptfoo
          assert:
            - {type: is-json, metric: format}
            - {type: not-contains, value: error}
            - type: assert-set
              assert:
                - {type: equals, value: {a: 1}}
                - {type: regex, value: '"a":\\s*\\d'}
    """

    aggregates = True
    # select-best and max-score re-decide a test's rows once all its columns ran (compare.py).
    groups = True
    # An offline run calls it even when its grader is remote: the checks that need no model
    # still run and decide; each model-graded one is skipped with the reason (docs/offline.md).
    skips_offline_checks = True

    @classmethod
    def aggregate_rows(cls, config: Any, rows: Iterable[dict[str, Any]]) -> dict[str, Any] | None:
        """The config's ``derivedMetrics`` per provider × prompt column (one column: by name alone)."""
        if not getattr(config, "derived_metrics", None):
            return None
        from bench_formats.promptfoo.derived_metrics import compute

        totals = (
            (str(details["column"]), details["metric_totals"])
            for row in rows
            for details in [row.get("details") or {}]
            if "column" in details
        )
        columns = compute(config.derived_metrics, totals)
        single = len(columns) == 1
        return {
            name if single else f"{name} ({column})": value if math.isfinite(value) else None
            for column, values in columns.items()
            for name, value in values.items()
        }

    def in_groups(self) -> bool:
        return any(a.get("type") in COMPARING for a in self.config.assert_)

    async def evaluate_group(self, rows: list[tuple[Sample, Result | None]]) -> list[Result | None]:
        """The test's ``select-best`` and ``max-score`` over its rows (docs/formats/promptfoo.md)."""
        from bench_formats.promptfoo.compare import decide

        return await decide(self.config.assert_, self.config.options, rows)

    def llm_calls(self) -> list[tuple[str, int]]:
        calls: dict[str, int] = {}
        for assertion in _flatten(self.config.assert_):
            base = str(assertion.get("type", "")).removeprefix("not-")
            if base in GRADED and not _scripted(base, assertion, self.config.options):
                model = _grader_model(base, assertion, self.config.options)
                calls[model] = calls.get(model, 0) + 1
        select = next((a for a in self.config.assert_ if a.get("type") == "select-best"), None)
        if select is not None:  # one call per test's rows: counted on each row, at most that
            model = grader(select, self.config.options)
            calls[model] = calls.get(model, 0) + 1
        return sorted(calls.items())

    async def evaluate(self, sample: Sample) -> Result:
        late = check_vars.at_answer(self.config, sample)
        if late is not None:  # the call's vars: the row is judged over them (check_vars.py)
            twin = copy.copy(self)
            twin.config, sample = late
            return await twin.evaluate(sample)
        asserts = self.config.assert_
        if not asserts:
            return Result(passed=True, score=1.0, reason="No assertions", details={"assertions": []})
        for assertion in _flatten(asserts):
            if "error" in assertion:
                raise EvaluatorError(str(assertion["error"]))
        problem = _not_run(asserts, self.folder)
        if problem is not None:  # before any check runs: no grader is asked for a row with no verdict
            raise EvaluatorError(problem)
        details: list[dict[str, Any]] = []
        output: Any = sample.output
        if self.config.simulated_user and sample.response.messages:
            sample, output = as_promptfoo(sample)
        test_transform = self.config.options.get("transform") or self.config.options.get("postprocess")
        if test_transform is not None:
            context = js_context.transform_context(sample, self.config.vars, whole_prompt=True)
            output = await _transform(
                "the test's options.transform", test_transform, output, context, self.folder
            )
        main = Tally(threshold=self.config.test_threshold)
        # promptfoo adds the plain assertions first, then each assert-set's result.
        # select-best and max-score wait for the test's other rows (evaluate_group)
        plain = [a for a in asserts if a.get("type") not in ("assert-set", *COMPARING)]
        sets = [a for a in asserts if a.get("type") == "assert-set"]
        skipped: list[str] = []  # offline: the model-graded checks that did not run
        for assertion in plain:
            if (skip := self._offline_skip(assertion)) is not None:
                skipped.append(skip)
                details.append({**_detail(assertion, Grade(False, 0.0, skip)), "pass": None})
                continue
            grade = await self._one(assertion, sample, output)
            main.add(*_added(grade, assertion))
            details.append(_detail(assertion, grade))
        undecided_sets = False  # a set with a skipped check and a threshold: its verdict is unknown
        for group in sets:
            tally = Tally(threshold=group.get("threshold"))
            children: list[dict[str, Any]] = []
            for child in group.get("assert") or []:
                if child.get("type") in COMPARING:
                    continue  # promptfoo skips it inside a set, and compares only the test's own
                if (skip := self._offline_skip(child)) is not None:
                    skipped.append(skip)
                    undecided_sets |= group.get("threshold") is not None
                    children.append({**_detail(child, Grade(False, 0.0, skip)), "pass": None})
                    continue
                grade = await self._one(child, sample, output)
                tally.add(*_added(grade, child))
                children.append(_detail(child, grade))
            if not children:
                continue
            passed, score, reason = tally.result()
            main.add(passed, score, reason, _weight(group), group.get("metric"), tally.named_scores())
            details.append({**_detail(group, Grade(passed, score, reason)), "assert": children})
        passed, score, reason = main.result()
        named = {name: value for name, (value, _) in main.named_scores().items()}
        found: dict[str, Any] = {"assertions": details, "named_scores": named}
        if skipped:
            found[SKIPPED] = skipped
            # A check that ran failed, with no threshold to weigh it: no skipped check could
            # make the test pass. Otherwise there is no verdict.
            if passed or self.config.test_threshold is not None or undecided_sets:
                raise EvaluatorError("; ".join(dict.fromkeys(skipped)), details=found)
            reason = "; ".join([reason, *dict.fromkeys(skipped)])
        if test_transform is not None or self.config.simulated_user:
            found["output"] = js_context.coerce_string(output)  # what promptfoo shows as the output
        if self.config.derived_metrics:
            found["metric_totals"] = dict(main.named)  # the sums promptfoo's columns add up
            found["column"] = _column(sample)
        return Result(passed=passed, score=max(0.0, min(1.0, score)), reason=reason, details=found)

    def _offline_skip(self, assertion: dict[str, Any]) -> str | None:
        """In an offline run, why a model-graded ``assertion`` whose grader is remote is skipped."""
        kind = str(assertion.get("type", ""))
        base = kind.removeprefix("not-")
        if base not in GRADED or _scripted(base, assertion, self.config.options):
            return None
        return offline_skip(kind, _grader_model(base, assertion, self.config.options))

    async def _one(self, assertion: dict[str, Any], sample: Sample, output: Any) -> Grade:
        kind = assertion.get("type")
        if not isinstance(kind, str) or not kind:
            raise EvaluatorError(f"Assertion must have a type: {assertion}")
        try:
            grade = await self._grade(kind, assertion, sample, output)
        except AssertionInvalid as exc:
            raise EvaluatorError(f"{kind}: {exc}") from None
        if assertion.get("weight") == 0:
            # metric only: it cannot fail the test
            grade = Grade(True, grade.score, grade.reason, grade.named_scores, grade.named_weights)
        return grade

    async def _grade(self, kind: str, assertion: dict[str, Any], sample: Sample, output: Any) -> Grade:
        inverse = kind.startswith("not-")
        base = kind[4:] if inverse else kind
        value = assertion.get("value")
        if assertion.get("transform") is not None:
            context = js_context.transform_context(sample, self.config.vars)
            what = f"{kind}: its transform"
            output = await _transform(what, assertion["transform"], output, context, self.folder)
        if base == "javascript" or js_context.is_js_file(value):
            # JavaScript: run in the run's Node.js worker (an error naming the check without Node)
            from bench_formats.promptfoo import javascript_checks

            context = js_context.assertion_context(sample, assertion, self.config)
            if base == "javascript":
                return await javascript_checks.javascript(kind, assertion, output, context, self.folder)
            if js_context.is_js_file(value):
                value = await javascript_checks.script_value(kind, value, output, context, self.folder)
        text = js_context.coerce_string(output)
        call = Call(text, value, assertion, inverse, sample, self.config.options, output, self.folder)
        scope = Scope(self.config.vars, self.config.assert_, self.folder)
        if base == "python":
            return await grade_python(call, scope)
        if script_reference(value) is not None:  # file://x.py[:fn]: the script gives the value
            try:
                value = await script_value(call, scope)
            except ScriptFailed as failed:
                return Grade(False, 0.0, str(failed))
            call = Call(text, value, assertion, inverse, sample, self.config.options, output, self.folder)
        if base in REGISTRY:
            return REGISTRY[base](call)
        if base == "classifier":  # a model the user serves (config.apiEndpoint), else an error
            from bench_formats.promptfoo.checks.classifier import classifier

            return await classifier(call, self.config.options)
        if base == "meteor":
            return meteor(call, database_for(self.folder))
        if base in GRADED:
            variables = self.config.vars
            if assertion.get("contextTransform") is not None:
                what = f"{kind}: its contextTransform"
                found = await transformed_context(what, assertion, sample, variables, self.folder)
                variables = {**variables, "context": found}
            return await GRADED[base](call, self.config.options, variables)
        raise EvaluatorError(f"Unknown assertion type: {kind}")  # pragma: no cover - refused by the config


async def _transform(what: str, code: Any, value: Any, context: dict[str, Any], folder: Path | None) -> Any:
    """A transform's value: ``file://x.py[:fn]`` in the run's Python worker, else JavaScript in Node.js."""
    if python_transforms.is_python_transform(code):
        return await python_transforms.transform(what, code, value, context, folder)
    from bench_formats.promptfoo import javascript_checks

    return await javascript_checks.transform(what, code, value, context, folder)


def _scripted(base: str, assertion: dict[str, Any], options: dict[str, Any]) -> bool:
    """Whether a ``similar`` check embeds with a Python provider (run in the Python worker, no model)."""
    return (
        base.startswith("similar")
        and python_provider(assertion.get("provider") or options.get("provider")) is not None
    )


def _grader_model(base: str, assertion: dict[str, Any], options: dict[str, Any]) -> str:
    """The model a model-graded check of type ``base`` asks (a moderation provider bench does not
    ask is named as promptfoo writes it: the check is an error when it runs)."""
    if base == "moderation":
        try:
            return f"openai/{moderation_model(assertion, options)}"
        except EvaluatorError:
            return moderation_provider(assertion, options)
    return grader(assertion, options, "embedding" if base.startswith("similar") else "text")


def _column(sample: Sample) -> str:
    """A row's promptfoo column: its provider and prompt label."""
    metadata = sample.task.metadata
    return f"{metadata.get('provider', '')}: {metadata.get('prompt', '')}"


def _flatten(asserts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for assertion in asserts:
        out.append(assertion)
        if assertion.get("type") == "assert-set":
            out.extend(assertion.get("assert") or [])
    return out


def _added(grade: Grade, assertion: dict[str, Any]) -> tuple[Any, ...]:
    """``Tally.add``'s arguments for one assertion's grade (a script's named scores weigh 1 each,
    unless it gave their weights)."""
    weights = grade.named_weights
    named = {name: (value, weights.get(name, 1.0)) for name, value in grade.named_scores.items()}
    return grade.passed, grade.score, grade.reason, _weight(assertion), assertion.get("metric"), named


def _weight(assertion: dict[str, Any]) -> float:
    weight = assertion.get("weight")
    return 1.0 if weight is None else float(weight)


def _detail(assertion: dict[str, Any], grade: Grade) -> dict[str, Any]:
    return {
        "type": assertion.get("type"),
        "pass": grade.passed,
        "score": grade.score,
        "reason": grade.reason,
        "weight": _weight(assertion),
        "metric": assertion.get("metric"),
    }
