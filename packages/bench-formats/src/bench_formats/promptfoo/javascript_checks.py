"""promptfoo's JavaScript at run time: ``javascript`` assertions, ``file://x.js`` values, transforms.

Each runs in the run's one Node.js worker (``node_worker``), as promptfoo 0.121.20 runs it
(``src/assertions/javascript.ts``, ``src/assertions/index.ts``, ``src/util/transform.ts``):

* an inline ``javascript`` value is the body of ``function (output, context, process)``: one line
  is returned as an expression (after any leading ``const``/``let``/``var`` statements), several
  lines are the body as written;
* ``file://x.js`` calls the file's export (``file://x.js:fn``: the export ``fn``) with
  ``(output, context)``;
* the result is a boolean, a number (pass when > 0, or ≥ the assertion's ``threshold``) or a
  GradingResult ``{pass, score, reason, namedScores?}``; anything else fails.

Without Node.js nothing is guessed: the check is an error naming it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from bench import EvaluatorError
from bench.workspace import OfflineRefused
from bench_formats.promptfoo import node_worker
from bench_formats.promptfoo.checks.base import Grade, js_string
from bench_formats.promptfoo.js_context import FILE, is_js_file, split_file
from bench_formats.promptfoo.node_worker import JsError, JsValue, NodeFailed, NodeMissing

_DECLARATION = re.compile(r"^(const|let|var)\s")


def resolve(value: str, folder: Path | None) -> tuple[str, str | None]:
    """The absolute path and function name a ``file://`` reference names (relative to ``folder``)."""
    path, name = split_file(value)
    full = Path(path)
    if not full.is_absolute() and folder is not None:
        full = folder / full
    return str(full), name


def function_body(code: str) -> str:
    """The function body a one-line ``javascript`` value becomes: ``return EXPRESSION``, the
    return put after leading declarations (``const s = output.trim(); s === 'a'``)."""
    trimmed = re.sub(r";+\s*$", "", code.strip())
    if _DECLARATION.match(trimmed):
        last = _last_statement_semicolon(trimmed)
        if last != -1:
            expression = trimmed[last + 1 :].strip()
            if expression:
                return f"{trimmed[: last + 1]} return {expression}"
        return trimmed
    return f"return {trimmed}"


def _last_statement_semicolon(code: str) -> int:
    """The index of the last ``;`` outside quotes and template literals (-1 when none)."""
    quote: str | None = None
    last = -1
    for index, char in enumerate(code):
        escaped = _escaped(code, index)
        if char in "'\"`" and not escaped:
            if quote is None:
                quote = char
            elif quote == char:
                quote = None
        elif char == ";" and quote is None:
            last = index
    return last


def _escaped(code: str, index: int) -> bool:
    backslashes = 0
    while index - backslashes - 1 >= 0 and code[index - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def _worker(what: str) -> node_worker.NodeWorker:
    try:
        return node_worker.worker()
    except NodeMissing:
        raise EvaluatorError(node_worker.missing_message(what)) from None
    except OfflineRefused as exc:
        raise EvaluatorError(f"{what}: {exc}") from None


async def call_file(what: str, value: str, folder: Path | None, pick: str, args: list[Any]) -> JsValue:
    """Call the function ``value`` (``file://x.js[:fn]``) names; errors raised as promptfoo throws them
    (``JsError``), a worker that could not run it as ``EvaluatorError`` naming ``what``."""
    path, name = resolve(value, folder)
    if path.lower().endswith(".ts"):
        raise EvaluatorError(f"{what}: {value} is TypeScript; bench runs JavaScript files (.js, .cjs, .mjs)")
    request = {"op": "file", "path": path, "name": name, "pick": pick, "args": args}
    return await send(what, request)


async def call_inline(what: str, params: list[str], body: str, args: list[Any]) -> JsValue:
    """Run ``function (...params, process) { body }`` with ``args``."""
    return await send(what, {"op": "inline", "params": params, "body": body, "args": args})


async def send(what: str, request: dict[str, Any]) -> JsValue:
    """One worker request; a worker that could not run it, or a time-out, is ``EvaluatorError``
    naming ``what``; what the code threw comes back as ``JsError``."""
    try:
        return await _worker(what).acall(request)
    except NodeFailed as exc:
        raise EvaluatorError(f"{what}: did not run: {exc}") from None
    except JsError as exc:
        if exc.timeout:
            raise EvaluatorError(f"{what}: did not finish: {exc.message}") from None
        raise


async def javascript(
    kind: str, assertion: dict[str, Any], output: Any, context: dict[str, Any], folder: Path | None
) -> Grade:
    """A ``javascript`` (or ``not-javascript``) assertion's grade, as ``handleJavascript`` gives it."""
    inverse = kind.startswith("not-")
    value = assertion.get("value")
    if is_js_file(value):
        # promptfoo calls the file before the handler: what it throws makes the row an error
        try:
            result = await call_file(kind, value, folder, "assertion", [output, context])
        except JsError as exc:
            raise EvaluatorError(f"{kind}: {exc.message}") from None
        return _script_result(assertion, result, inverse, value.rstrip())
    if not isinstance(value, str):
        return Grade(
            False, 0.0, _threw("Invariant failed: javascript assertion must have a string value", "", None)
        )
    code = value.rstrip()
    body = code if "\n" in code else function_body(code)
    try:
        result = await call_inline(kind, ["output", "context"], body, [output, context])
    except JsError as exc:
        return Grade(False, 0.0, _threw(exc.message, exc.stack, code))
    return _normalize(assertion, result, inverse, code)


def _script_result(assertion: dict[str, Any], result: JsValue, inverse: bool, value: str) -> Grade:
    if result.kind not in ("boolean", "number", "object", "array", "null"):
        problem = (
            f"Javascript assertion script must return a boolean, number, or object ({assertion.get('value')})"
        )
        return Grade(False, 0.0, _threw(problem, "", value))
    return _normalize(assertion, result, inverse, value)


def _normalize(assertion: dict[str, Any], result: JsValue, inverse: bool, rendered: str) -> Grade:
    """``validateResult`` then ``normalizeJavascriptAssertionResult``."""
    if result.kind == "boolean":
        passed = bool(result.value) != inverse
        return Grade(passed, 1.0 if passed else 0.0, _reason(passed, bool(result.value), rendered))
    if result.kind == "number":
        score = result.number
        threshold = assertion.get("threshold")
        raw = score > 0 if threshold is None else score >= float(threshold)
        passed = raw != inverse
        return Grade(passed, score, _reason(passed, raw, rendered))
    grading = result.value if result.kind == "object" else None
    if not _is_grading_result(grading):
        shown = "undefined" if result.kind == "undefined" else json.dumps(result.value, separators=(",", ":"))
        kind = "object" if result.kind in ("array", "null") else result.kind
        problem = (
            "Custom function must return a boolean, number, or GradingResult object. "
            f"Got type {kind}: {shown}"
        )
        return Grade(False, 0.0, _threw(problem, "", rendered))
    assert isinstance(grading, dict)
    raw_pass = bool(grading["pass"])
    passed = raw_pass != inverse
    if passed == raw_pass:
        reason = str(grading["reason"])
    else:
        reason = "Assertion passed" if passed else f"Custom function returned {js_string(raw_pass)}"
    weights = grading.get("namedScoreWeights") or {}
    named = {
        str(name): float(score)
        for name, score in (grading.get("namedScores") or {}).items()
        if isinstance(score, (int, float))
    }
    given = {str(k): float(v) for k, v in weights.items() if k in named and isinstance(v, (int, float))}
    return Grade(passed, float(grading["score"]), reason, named, given)


def _is_grading_result(value: Any) -> bool:
    """promptfoo's ``isGradingResult``: ``pass`` boolean, ``score`` number, ``reason`` string."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("pass"), bool)
        and isinstance(value.get("score"), (int, float))
        and not isinstance(value.get("score"), bool)
        and isinstance(value.get("reason"), str)
        and (value.get("namedScores") is None or isinstance(value.get("namedScores"), dict))
        and (value.get("componentResults") is None or isinstance(value.get("componentResults"), list))
    )


def _reason(passed: bool, raw: bool, rendered: str) -> str:
    if passed:
        return "Assertion passed"
    return _appended(f"Custom function returned {js_string(raw)}", rendered)


def _threw(message: str, stack: str, rendered: str | None) -> str:
    return _appended(f"Custom function threw error: {message}\nStack Trace: {stack}", rendered)


def _appended(reason: str, rendered: str | None) -> str:
    return f"{reason}\n{rendered}" if rendered else reason


async def script_value(
    kind: str, value: str, output: Any, context: dict[str, Any], folder: Path | None
) -> Any:
    """The value a ``file://x.js`` gives a non-script assertion (``contains: file://expected.js``),
    refused as promptfoo refuses a function, a boolean or a GradingResult."""
    try:
        result = await call_file(f"{kind}: its value {value}", value, folder, "assertion", [output, context])
    except JsError as exc:
        raise EvaluatorError(f"{kind}: {exc.message}") from None
    what = {"function": "a function", "boolean": "a boolean"}.get(result.kind)
    if what is None and isinstance(result.value, dict) and "pass" in result.value:
        what = "a GradingResult"
    if what is not None:
        kinds = what.removeprefix("a ") + (" values" if what == "a boolean" else "s")
        kinds = "GradingResult objects" if what == "a GradingResult" else kinds
        raise EvaluatorError(
            f'Script for "{kind}" assertion returned {what}. Only javascript/python/ruby assertion types '
            f"can return {kinds}. For other assertion types, return the expected value (string, number, "
            "array, or object)."
        )
    return None if result.kind == "undefined" else result.value


#: How a transform is named in its errors (``getTransformLabel``).
def transform_label(code: str) -> str:
    """promptfoo's label of a transform: ``[file transform]`` or the inline code, cut at 80 characters."""
    if code.startswith(FILE):
        return "[file transform]"
    line = " ".join(code.split())
    return f"[inline transform]: {line if len(line) <= 80 else line[:79] + '…'}"


def transform_request(
    code: str, value: Any, context: dict[str, Any], name: str, folder: Path | None
) -> dict[str, Any]:
    """The worker request of a transform: ``file://x.js[:fn]``, or inline code over ``name``
    (``output`` or ``vars``) and ``context`` (one line is returned as an expression)."""
    if code.startswith(FILE):
        path, function = resolve(code, folder)
        return {"op": "file", "path": path, "name": function, "pick": "transform", "args": [value, context]}
    body = code if "\n" in code else f"return {code}"
    return {"op": "inline", "params": [name, "context"], "body": body, "args": [value, context]}


def transform_result(code: str, result: JsValue) -> Any:
    """A transform's value; null or undefined is promptfoo's error."""
    if result.kind in ("undefined", "null"):
        raise EvaluatorError(f"Transform function did not return a value\n\n{transform_label(code)}")
    return result.number if result.special is not None else result.value


async def transform(
    what: str, code: Any, value: Any, context: dict[str, Any], folder: Path | None, name: str = "output"
) -> Any:
    """``transform(code, value, context)`` at run time; an error names ``what`` and the transform."""
    if not isinstance(code, str):
        raise EvaluatorError(
            f"{what}: a transform is JavaScript text or a file:// path, not {type(code).__name__}"
        )
    if code.startswith(FILE) and not is_js_file(code):
        raise EvaluatorError(f"{what}: Unsupported transform file format: {code}")
    try:
        result = await send(what, transform_request(code, value, context, name, folder))
    except JsError as exc:
        raise EvaluatorError(f"{what}: Transform failed ({transform_label(code)}): {exc.message}") from None
    try:
        return transform_result(code, result)
    except EvaluatorError as exc:
        raise EvaluatorError(f"{what}: {exc}") from None
