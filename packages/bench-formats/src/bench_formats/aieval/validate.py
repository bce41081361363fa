"""AI Eval's suite validation (internal/testcase/loader.go ``Validate``), with its messages."""

from __future__ import annotations

from typing import Any

#: AI Eval's evaluator types (``isKnownEvaluatorType``).
KNOWN_TYPES = (
    "exact",
    "contains",
    "regex",
    "json_schema",
    "llm_judge",
    "similarity",
    "factuality",
    "tool_call",
    "faithfulness",
    "relevancy",
    "precision",
    "task_completion",
    "tool_selection",
    "efficiency",
    "hallucination",
    "toxicity",
    "bias",
)

#: Per type, the fields that must not be blank.
_REQUIRED = {
    "llm_judge": ("criteria",),
    "similarity": ("reference",),
    "factuality": ("ground_truth",),
    "faithfulness": ("context",),
    "relevancy": ("question",),
    "precision": ("context", "question"),
    "task_completion": ("task",),
    "hallucination": ("ground_truth",),
}
_NOT_NEGATIVE = {"llm_judge": ("score_scale",), "efficiency": ("max_steps", "max_tokens")}

#: RE2's error codes as Go's regexp/syntax words them.
_GO_CODES = {
    "missing )": "missing closing )",
    "missing ]": "missing closing ]",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid repetition size": "invalid repeat count",
    "invalid named capture group": "invalid named capture",
}


class InvalidSuite(ValueError):
    """The message AI Eval's Validate returns."""


def validate(suite: dict[str, Any]) -> None:
    """Raise InvalidSuite with AI Eval's message for the first problem, as ``Validate`` does."""
    if not suite["suite"].strip():
        raise InvalidSuite("suite: missing suite name")
    if not suite["prompt"].strip():
        raise InvalidSuite("suite: missing prompt reference")
    if not suite["cases"]:
        raise InvalidSuite("suite: no cases")
    seen: set[str] = set()
    for i, case in enumerate(suite["cases"]):
        case_id = case["id"].strip()
        if not case_id:
            raise InvalidSuite(f"cases[{i}]: missing id")
        at = f"cases[{i}] ({case_id})"
        if case_id in seen:
            raise InvalidSuite(f"{at}: duplicate id")
        seen.add(case_id)
        if case["input"] is None:
            raise InvalidSuite(f"{at}: missing input")
        if case["trials"] < 0:
            raise InvalidSuite(f"{at}: trials must be >= 0")
        if case["max_steps"] < 0:
            raise InvalidSuite(f"{at}: max_steps must be >= 0")
        for j, mock in enumerate(case["tool_mocks"]):
            if not mock["name"].strip():
                raise InvalidSuite(f"{at}: tool_mocks[{j}]: missing name")
        _expected(at, case["expected"])
        if not case["evaluators"] and expected_empty(case["expected"]):
            raise InvalidSuite(f"{at}: no expected assertions or evaluators")
        _evaluators(at, case["evaluators"])


def expected_empty(expected: dict[str, Any]) -> bool:
    """No assertion in the ``expected:`` block (``expectedEmpty``)."""
    return expected["exact_match"] == "" and not any(
        expected[key] for key in ("contains", "not_contains", "regex", "json_schema", "tool_calls")
    )


def _expected(at: str, expected: dict[str, Any]) -> None:
    for key in ("contains", "not_contains"):
        for j, text in enumerate(expected[key]):
            if not text.strip():
                raise InvalidSuite(f"{at}: expected.{key}[{j}]: empty string")
    for j, pattern in enumerate(expected["regex"]):
        problem = regexp_error(pattern)
        if problem:
            raise InvalidSuite(f"{at}: expected.regex[{j}]: {problem}")
    orders: set[int] = set()
    for j, call in enumerate(expected["tool_calls"]):
        name = call["name"].strip()
        if not name:
            raise InvalidSuite(f"{at}: expected.tool_calls[{j}]: missing name")
        if call["order"] < 0:
            raise InvalidSuite(f"{at}: expected.tool_calls[{j}] ({name}): order must be >= 0")
        if call["order"] > 0:
            if call["order"] in orders:
                raise InvalidSuite(f"{at}: expected.tool_calls: duplicate order {call['order']}")
            orders.add(call["order"])


def _evaluators(at: str, evaluators: list[dict[str, Any]]) -> None:
    for j, entry in enumerate(evaluators):
        kind = entry["type"].strip()
        if not kind:
            raise InvalidSuite(f"{at}: evaluators[{j}]: missing type")
        if kind not in KNOWN_TYPES:
            raise InvalidSuite(f'{at}: evaluators[{j}]: unknown type "{kind}"')
        where = f"{at}: evaluators[{j}] ({kind})"
        if entry["score_threshold"] < 0:
            raise InvalidSuite(f"{where}: score_threshold must be >= 0")
        for key in _REQUIRED.get(kind, ()):
            if not entry[key].strip():
                raise InvalidSuite(f"{where}: missing {key}")
        for key in _NOT_NEGATIVE.get(kind, ()):
            if entry[key] < 0:
                raise InvalidSuite(f"{where}: {key} must be >= 0")
        if kind == "bias":
            for n, category in enumerate(entry["categories"]):
                if not category.strip():
                    raise InvalidSuite(f"{where}: categories[{n}]: empty string")


def regexp_error(pattern: str) -> str | None:
    """Go's ``regexp.Compile`` error for the pattern, or None when it compiles (Go's regexp is RE2)."""
    import re2

    options = re2.Options()
    options.log_errors = False  # RE2 would print its parse errors to stderr
    try:
        re2.compile(pattern, options)
    except re2.error as exc:
        reason = exc.args[0].decode() if isinstance(exc.args[0], bytes) else str(exc.args[0])
        code, _, arg = reason.partition(": ")
        return f"error parsing regexp: {_GO_CODES.get(code, code)}: `{arg}`"
    return None
