"""finish-reason (``src/assertions/finishReason.ts``): the response's finish reason, compared
case-insensitively. bench reads it from the response's ``metadata.finish_reason`` (bench's
``litellm`` target records the model's), normalized as promptfoo's providers normalize it."""

from __future__ import annotations

from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Check, Grade, binary

#: promptfoo's ``FINISH_REASON_MAP`` (``src/util/finishReason.ts``): providers' words to its own.
_NORMAL = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content_filter",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    "pause_turn": "pause_turn",
}


def finish_reason(call: Call) -> Grade:
    if not isinstance(call.value, str):
        raise AssertionInvalid('"finish-reason" assertion type must have a string value')
    metadata = call.sample.response.metadata
    raw = metadata.get("finish_reason", metadata.get("finishReason"))
    actual = _NORMAL.get(raw.strip().lower(), raw.strip().lower()) if isinstance(raw, str) else ""
    if not actual:
        # promptfoo's echo and exec providers supply none either: it fails (passes when inverted)
        return binary(call.inverse, "Provider did not supply stop/finish reason")
    not_ = "not " if call.inverse else ""
    passed = (call.value.lower() == actual.lower()) != call.inverse
    return binary(passed, f'Expected finish reason {not_}"{call.value}" but got "{actual}"')


CHECKS: dict[str, Check] = {"finish-reason": finish_reason}
