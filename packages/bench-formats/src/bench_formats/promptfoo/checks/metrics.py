"""cost and latency against a ``threshold`` (``src/assertions/cost.ts``, ``latency.ts``)."""

from __future__ import annotations

from bench_formats.promptfoo.checks.base import AssertionInvalid, Call, Check, Grade, binary


def _limit(call: Call, name: str) -> float | None:
    threshold = call.assertion.get("threshold")
    if threshold is None:
        if call.inverse:
            raise AssertionInvalid(f"{name} assertion requires a threshold when using not-{name.lower()}")
        if not call.assertion.get("metric"):
            raise AssertionInvalid(
                f"{name} assertion without a threshold must set `metric` to record as a named metric"
            )
    return threshold


def cost(call: Call) -> Grade:
    # bench's echo and recorded targets report no cost: promptfoo's echo reports 0.
    spent = call.sample.response.usage.cost_usd or 0.0
    limit = _limit(call, "Cost")
    if limit is None:
        return Grade(True, spent, "Assertion passed")
    passed = spent > limit if call.inverse else spent <= limit
    shown = f"{spent:.2g}"
    failure = (
        f"Cost {shown} is less than or equal to threshold {limit:g}"
        if call.inverse
        else f"Cost {shown} is greater than threshold {limit:g}"
    )
    return binary(passed, failure)


def latency(call: Call) -> Grade:
    ms = call.sample.response.usage.latency_ms
    if ms is None:
        raise AssertionInvalid(
            "Latency assertion does not support cached results. Rerun the eval with --no-cache"
        )
    limit = _limit(call, "Latency")
    if limit is None:
        return Grade(True, ms, "Assertion passed")
    passed = ms > limit if call.inverse else ms <= limit
    failure = (
        f"Latency {ms:g}ms is less than or equal to threshold {limit:g}ms"
        if call.inverse
        else f"Latency {ms:g}ms is greater than threshold {limit:g}ms"
    )
    return binary(passed, failure)


CHECKS: dict[str, Check] = {"cost": cost, "latency": latency}
