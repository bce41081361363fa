"""finish-reason (``src/assertions/finishReason.ts``): the response's finish reason, compared
case-insensitively. bench reads it from the response's ``metadata.finish_reason``."""

from __future__ import annotations

from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Check, Grade, binary


def finish_reason(call: Call) -> Grade:
    if not isinstance(call.value, str):
        raise AssertionInvalid('"finish-reason" assertion type must have a string value')
    metadata = call.sample.response.metadata
    actual = metadata.get("finish_reason", metadata.get("finishReason"))
    if not actual:
        raise AssertionInvalid(
            "bench does not know this response's finish reason (its target records none in "
            "metadata.finish_reason), so it cannot check it"
        )
    not_ = "not " if call.inverse else ""
    passed = (call.value.lower() == str(actual).lower()) != call.inverse
    return binary(passed, f'Expected finish reason {not_}"{call.value}" but got "{actual}"')


CHECKS: dict[str, Check] = {"finish-reason": finish_reason}
