"""promptfoo's ``python`` assertion, and ``file://x.py`` assertion values, run as 0.121.20 runs them.

``src/assertions/python.ts``: an inline value becomes ``def main(output, context):`` whose body is
``return VALUE`` (one line) or the value's lines indented (several lines, which then ``return``
themselves); ``file://x.py`` calls ``get_assert(output, context)`` (``file://x.py:fn`` calls
``fn``). The result is normalised as ``scriptResultNormalization.ts`` does: a bool passes or fails
(score 1/0), a number is the score (passing when > 0, or ≥ the assertion's ``threshold``), a
GradingResult dict (``pass``, ``score``, ``reason``; snake_case keys accepted) is taken as it is,
with ``threshold`` and ``not-`` applied. As in promptfoo, code that raises, or returns anything
else, **fails** the assertion with promptfoo's reason; a call past its time limit, or a worker that
cannot start, is an error (no verdict) naming the check.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import EvaluatorError, Sample
from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Grade, js_string
from bench_formats.promptfoo.python_runner import (
    PythonFailure,
    PythonTimeout,
    PythonUnavailable,
    call_python,
    interpreter,
    shared_worker,
    timeout_ms,
)

_CODE = "Python code"
_LANGUAGE = "Python"
_MUST = f"{_LANGUAGE} assertion must return a boolean, number, or {{pass, score, reason}} object."
_VALUE = "For other assertion types, return the expected value (string, number, array, or object)."
_INDENT = re.compile(r"^(?!\s*$)\s+", re.MULTILINE)


def build_script(value: str) -> str:
    """promptfoo's ``buildPythonScript``: the inline value as ``main(output, context)``."""
    if "\n" in value:
        match = _INDENT.search(value)
        indent = match.group(0) if match else "    "
        body = "\n".join(f"{indent}{line}" for line in value.split("\n"))
    else:
        body = f"    return {value}"
    return f"import json\n\ndef main(output, context):\n{body}\n"


def script_reference(value: Any) -> tuple[str, str | None] | None:
    """(path, function) of a ``file://x.py[:fn]`` value, else None."""
    if not isinstance(value, str) or not value.startswith("file://"):
        return None
    ref = value[len("file://") :]
    path, sep, function = ref.partition(":")
    if not path.endswith(".py"):
        return None
    return path, (function if sep and function else None)


@dataclass(frozen=True)
class Scope:
    """What a script assertion sees besides the output: the row's vars and assertions, and the
    folder its ``file://`` paths start from (the config's)."""

    variables: dict[str, Any] = field(default_factory=dict)
    asserts: list[dict[str, Any]] = field(default_factory=list)
    folder: Path | None = None


def context(call: Call, scope: Scope) -> dict[str, Any]:
    """The ``context`` promptfoo passes a script assertion (``runAssertion``), as JSON can carry it."""
    sample = call.sample
    task = sample.task
    metadata = task.metadata
    variables = scope.variables
    test: dict[str, Any] = {"vars": variables, "assert": scope.asserts, "options": _options(call)}
    if metadata.get("description") is not None:
        test["description"] = metadata["description"]
    test["metadata"] = metadata.get("test") or {}
    provider: dict[str, Any] = {"id": metadata.get("provider") or "", "label": metadata.get("provider_label")}
    found: dict[str, Any] = {
        "prompt": _prompt(sample),
        "vars": variables,
        "test": test,
        "provider": {k: v for k, v in provider.items() if v is not None},
        "providerResponse": _response(call),
    }
    if call.assertion.get("config") is not None:
        found["config"] = call.assertion["config"]
    if sample.response.metadata:
        found["metadata"] = sample.response.metadata
    return found


async def grade_python(call: Call, scope: Scope) -> Grade:
    """A ``python`` / ``not-python`` assertion's grade."""
    value = call.value
    reference = script_reference(value)
    args = [_script_output(call), context(call, scope)]
    if reference is not None:
        try:
            result = await _run_file(reference, "get_assert", args, scope.folder)
        except PythonFailure as exc:
            return Grade(False, 0.0, script_error(exc))
    else:
        if not isinstance(value, str):
            raise AssertionInvalid("python assertion must have a string value")
        try:
            result = await _run(
                {"code": build_script(value), "function": "main", "args": args}, call.assertion
            )
        except PythonFailure as exc:
            return Grade(False, 0.0, f"{_CODE} execution failed: {script_error(exc)}")
    try:
        return normalize(call.assertion, result, call.inverse, value if isinstance(value, str) else None)
    except _BadResult as exc:
        return Grade(False, 0.0, f"{_CODE} execution failed: {exc}")


async def script_value(call: Call, scope: Scope) -> Any:
    """The expected value a ``file://x.py[:fn]`` script gives another assertion type (``get_assert``).

    promptfoo refuses a bool or a GradingResult there, and fails the assertion when the script raises.
    """
    reference = script_reference(call.value)
    assert reference is not None
    args = [_script_output(call), context(call, scope)]
    try:
        value = await _run_file(reference, "get_assert", args, scope.folder)
    except PythonFailure as exc:
        raise ScriptFailed(script_error(exc)) from None
    kind = call.assertion.get("type")
    only = "Only javascript/python/ruby assertion types can return"
    if isinstance(value, bool):
        raise AssertionInvalid(
            f'Script for "{kind}" assertion returned a boolean. {only} boolean values. {_VALUE}'
        )
    if isinstance(value, dict) and "pass" in value:
        raise AssertionInvalid(
            f'Script for "{kind}" assertion returned a GradingResult. {only} GradingResult objects. {_VALUE}'
        )
    return value


class ScriptFailed(Exception):
    """A value script raised: promptfoo fails the assertion with this reason."""


class _BadResult(Exception):
    pass


def normalize(assertion: dict[str, Any], result: Any, inverse: bool, suffix: str | None) -> Grade:
    """promptfoo's ``normalizeScriptResult`` for a Python result."""
    lower = result.lower() if isinstance(result, str) else None
    if result is True or lower == "true":
        return _boolean(True, inverse, suffix)
    if result is False or lower == "false":
        return _boolean(False, inverse, suffix)
    if isinstance(result, str) and result.startswith("{"):
        try:
            parsed = json.loads(result)
        except ValueError as exc:
            raise _BadResult(f"Invalid JSON: SyntaxError: {exc} when parsing result: {result}") from None
        if not isinstance(parsed, dict):
            raise _BadResult(f"{_MUST} Got instead: {result}")
        return _object(assertion, parsed, inverse)
    if isinstance(result, (dict, list)):
        mapping = result if isinstance(result, dict) else {str(i): v for i, v in enumerate(result)}
        return _object(assertion, mapping, inverse)
    score = _parse_float(result)
    if score is None:
        raise _BadResult(f"{_MUST} Instead got:\n{js_string(result)}")
    threshold = assertion.get("threshold")
    raw = score > 0 if threshold is None else score >= float(threshold)
    passed = raw != inverse
    return Grade(passed, score, "Assertion passed" if passed else _returned(raw, suffix))


def _boolean(result: bool, inverse: bool, suffix: str | None) -> Grade:
    passed = result != inverse
    return Grade(passed, 1.0 if passed else 0.0, "Assertion passed" if passed else _returned(result, suffix))


def _object(assertion: dict[str, Any], result: dict[str, Any], inverse: bool) -> Grade:
    mapped = _camel(result)
    if not _is_grading_result(mapped):
        shown = json.dumps(mapped, indent=2, ensure_ascii=False)
        raise _BadResult(f"{_MUST} Got instead:\n{shown}")
    passed_raw = bool(mapped["pass"])
    score = float(mapped["score"])
    reason = str(mapped["reason"])
    threshold = assertion.get("threshold")
    if threshold is not None and score < float(threshold):
        passed_raw = False
        shown_score = js_string(mapped["score"])
        message = f"{_LANGUAGE} score {shown_score} is less than threshold {js_string(threshold)}"
        reason = f"{message}: {reason}" if reason else message
    passed = passed_raw != inverse
    if passed != passed_raw:
        reason = "Assertion passed" if passed else f"{_CODE} returned {'true' if passed_raw else 'false'}"
    named = mapped.get("namedScores") or {}
    scores = {str(k): float(v) for k, v in named.items() if _number(v)}
    return Grade(passed, score, reason, named_scores=scores)


def _camel(result: dict[str, Any]) -> dict[str, Any]:
    """promptfoo's ``mapSnakeCaseToCamelCase``."""
    mapped = dict(result)
    for snake, camel in (
        ("pass_", "pass"),
        ("named_scores", "namedScores"),
        ("component_results", "componentResults"),
        ("tokens_used", "tokensUsed"),
    ):
        if snake in mapped and camel not in mapped:
            mapped[camel] = mapped[snake]
    if isinstance(mapped.get("componentResults"), list):
        parts = mapped["componentResults"]
        mapped["componentResults"] = [_camel(c) if isinstance(c, dict) else c for c in parts]
    return mapped


def _is_grading_result(result: dict[str, Any]) -> bool:
    """promptfoo's ``isGradingResult``."""
    optional = {"namedScores": dict, "namedScoreWeights": dict, "tokensUsed": dict, "componentResults": list}
    return (
        isinstance(result.get("pass"), bool)
        and _number(result.get("score"))
        and isinstance(result.get("reason"), str)
        and all(key not in result or isinstance(result[key], kind) for key, kind in optional.items())
        and (result.get("assertion") is None or isinstance(result["assertion"], dict))
        and ("comment" not in result or isinstance(result["comment"], str))
    )


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _returned(value: bool, suffix: str | None) -> str:
    reason = f"{_CODE} returned {'true' if value else 'false'}"
    return f"{reason}\n{suffix}" if suffix else reason


def _parse_float(value: Any) -> float | None:
    """JavaScript's ``Number.parseFloat(String(value))``, None for NaN."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    match = re.match(r"\s*([+-]?(?:Infinity|\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?))", str(value))
    if match is None:
        return None
    text = match.group(1)
    return float(text.replace("Infinity", "inf"))


def script_error(exc: PythonFailure) -> str:
    """promptfoo's ``runPython`` error: python-shell reports the traceback's last line."""
    return f"Error running Python script: {exc.last}\nStack Trace: {exc.traceback.rstrip()}"


async def _run_file(
    reference: tuple[str, str | None], default: str, args: list[Any], folder: Path | None
) -> Any:
    path, function = reference
    full = Path(path) if Path(path).is_absolute() else (folder or Path.cwd()).absolute() / path
    request = {"file": str(full), "function": function or default, "args": args}
    return await _run(request, {"type": "python", "value": f"file://{path}"})


async def _run(request: dict[str, Any], assertion: dict[str, Any]) -> Any:
    worker = shared_worker(interpreter())
    try:
        return await call_python(worker, request, timeout_ms())
    except (PythonTimeout, PythonUnavailable) as exc:
        kind = assertion.get("type", "python")
        raise EvaluatorError(f"{kind}: the check did not run: {exc}") from None


def _script_output(call: Call) -> Any:
    """The output a script receives: a transform's value as it is (an object stays one)."""
    return call.output if call.data is None else call.data


def _options(call: Call) -> dict[str, Any]:
    return {k: v for k, v in call.options.items() if k != "provider_config"}


def _prompt(sample: Sample) -> str:
    task = sample.task
    if task.prompt is not None:
        return task.prompt
    if task.messages:
        return json.dumps([m.model_dump(exclude_none=True) for m in task.messages], ensure_ascii=False)
    return ""


def _response(call: Call) -> dict[str, Any]:
    response = call.sample.response
    usage = response.usage
    found: dict[str, Any] = {"output": call.output}
    tokens = {
        key: value
        for key, value in (
            ("total", usage.total_tokens),
            ("prompt", usage.input_tokens),
            ("completion", usage.output_tokens),
        )
        if value is not None
    }
    if tokens:
        found["tokenUsage"] = tokens
    found["cost"] = usage.cost_usd or 0
    found["cached"] = False
    if response.metadata:
        found["metadata"] = response.metadata
    return found
