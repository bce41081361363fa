"""cost and latency against a ``threshold`` (0.121.20 ``src/assertions/cost.ts``, ``latency.ts``)."""

from __future__ import annotations

import math

from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Check, Grade, binary, js_string


def cost(call: Call) -> Grade:
    limit = call.assertion.get("threshold")
    if limit is None:
        raise AssertionInvalid("Cost assertion must have a threshold")
    # bench's echo and recorded targets report no cost: promptfoo's echo and providerOutput give 0.
    spent = call.sample.response.usage.cost_usd or 0.0
    passed = (spent <= limit) != call.inverse
    relation = "less than or equal to" if call.inverse else "greater than"
    return binary(passed, f"Cost {to_precision(spent, 2)} is {relation} threshold {js_string(limit)}")


def latency(call: Call) -> Grade:
    limit = call.assertion.get("threshold")
    if limit is None:
        raise AssertionInvalid("Latency assertion must have a threshold in milliseconds")
    # promptfoo times every answer, a recorded providerOutput included (``Date.now() - start``,
    # whole ms, ~0 there), so its "does not support cached results" error never comes in an eval.
    measured = call.sample.latency_ms
    ms = 0 if measured is None else round(measured)
    passed = (ms <= limit) != call.inverse
    relation = "less than or equal to" if call.inverse else "greater than"
    return binary(passed, f"Latency {ms}ms is {relation} threshold {js_string(limit)}ms")


def to_precision(value: float, digits: int) -> str:
    """JavaScript's ``Number.prototype.toPrecision``."""
    if value == 0:
        return "0." + "0" * (digits - 1) if digits > 1 else "0"
    exponent = math.floor(math.log10(abs(value)))
    if exponent < -6 or exponent >= digits:
        mantissa, _, power = f"{value:.{digits - 1}e}".partition("e")
        return f"{mantissa}e{'-' if power.startswith('-') else '+'}{int(power.lstrip('+-'))}"
    return f"{value:.{max(0, digits - 1 - exponent)}f}"


CHECKS: dict[str, Check] = {"cost": cost, "latency": latency}
