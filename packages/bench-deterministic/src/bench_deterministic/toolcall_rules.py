"""AgentClash's own ``tool_call_assertion`` form (``runtime/scoring/tool_call_assertion.go``).

One assertion over the calls that match ``tool_name`` and ``arguments_contain``: presence
(``must_call``), ``count`` or ``min_count``/``max_count``, and ``ordered_tools`` in
``order_mode`` ``subsequence`` (default) or ``exact``. The validation messages are AgentClash's.
"""

from __future__ import annotations

from typing import Any

from bench import Result
from bench_deterministic.jsondoc import json_equal

#: Keys that only AgentClash's form has (``must_call`` counts when it is a boolean).
KEYS = ("tool_name", "count", "min_count", "max_count", "order_mode")


def problems(c: Any) -> list[str]:
    """AgentClash's validation errors for the config, in its order and words."""
    errs: list[str] = []
    for key in ("count", "min_count", "max_count"):
        value = getattr(c, key)
        if value is not None and value < 0:
            errs.append(f"{key} must be greater than or equal to 0")
    if c.count is not None and (c.min_count is not None or c.max_count is not None):
        errs.append("count cannot be combined with min_count or max_count")
    if c.min_count is not None and c.max_count is not None and c.min_count > c.max_count:
        errs.append("min_count must be less than or equal to max_count")
    counted = c.count is not None or c.min_count is not None or c.max_count is not None
    if isinstance(c.must_call, bool) and counted:
        if c.must_call and c.count == 0:
            errs.append("must_call cannot be true when count is 0")
        if c.must_call and c.max_count == 0:
            errs.append("must_call cannot be true when max_count is 0")
        if not c.must_call and c.count is not None and c.count > 0:
            errs.append("must_call cannot be false when count is greater than 0")
        if not c.must_call and c.min_count is not None and c.min_count > 0:
            errs.append("must_call cannot be false when min_count is greater than 0")
    if c.arguments_contain is not None and not isinstance(c.arguments_contain, dict):
        errs.append("arguments_contain must be a JSON object")
    errs += [f"ordered_tools[{i}] must not be empty" for i, t in enumerate(c.ordered_tools) if not t.strip()]
    if c.order_mode is not None:
        if c.order_mode.strip() not in ("subsequence", "exact"):
            errs.append('order_mode must be "subsequence" or "exact"')
        if not c.ordered_tools:
            errs.append("ordered_tools is required when order_mode is set")
    return errs


def evidence_problems(c: Any) -> list[str]:
    """AgentClash's validation errors for the validator's ``target`` and ``expected_from``
    (``runtime/scoring/validation.go``), whichever form the settings take."""
    errs: list[str] = []
    if c.target is not None and c.target.strip() != "tool_calls":
        errs.append('target must be "tool_calls" for tool_call_assertion validators')
    if c.expected_from is not None and c.expected_from.strip():
        errs.append("expected_from must be omitted for tool_call_assertion validators")
    return errs


def json_contains(actual: Any, expected: Any) -> bool:
    """AgentClash's ``jsonContains``: objects by subset, arrays as multisets of contained items."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and json_contains(actual[k], v) for k, v in expected.items()
        )
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(expected) > len(actual):
            return False
        used = [False] * len(actual)
        for item in expected:
            for i, candidate in enumerate(actual):
                if not used[i] and json_contains(candidate, item):
                    used[i] = True
                    break
            else:
                return False
        return True
    return json_equal(actual, expected)


def in_order(names: list[str], wanted: list[str]) -> bool:
    """Whether ``wanted`` appears in ``names`` as a subsequence."""
    position = 0
    for name in names:
        if position < len(wanted) and name == wanted[position]:
            position += 1
    return position == len(wanted)


def evaluate(c: Any, calls: list[Any]) -> Result:
    """The verdict (score 1 or 0) for calls with ``name`` and decoded ``arguments`` (None: not JSON)."""
    tool = (c.tool_name or "").strip()
    fragment = c.arguments_contain
    matches = [
        call
        for call in calls
        if (not tool or call.name == tool)
        and (fragment is None or (call.arguments is not None and json_contains(call.arguments, fragment)))
    ]
    found = len(matches)
    reasons: list[str] = []
    counted = c.count is not None or c.min_count is not None or c.max_count is not None
    if isinstance(c.must_call, bool) or (not counted and (tool or fragment is not None)):
        must = c.must_call if isinstance(c.must_call, bool) else True
        if must and not found:
            reasons.append("expected matching tool call was not observed")
        if not must and found:
            reasons.append("forbidden matching tool call was observed")
    if c.count is not None and found != c.count:
        reasons.append(f"matched tool call count {found} != expected {c.count}")
    if c.min_count is not None and found < c.min_count:
        reasons.append(f"matched tool call count {found} < min_count {c.min_count}")
    if c.max_count is not None and found > c.max_count:
        reasons.append(f"matched tool call count {found} > max_count {c.max_count}")
    names = [call.name for call in calls]
    wanted = [t.strip() for t in c.ordered_tools]
    if wanted and (c.order_mode or "subsequence").strip() == "exact":
        if names != wanted:
            reasons.append(f"observed tool order {names} does not exactly match expected order {wanted}")
    elif wanted and not in_order(names, wanted):
        reasons.append(f"observed tool order {names} does not contain expected subsequence {wanted}")
    details = {"matched_count": found, "observed_tool_names": names}
    if reasons:
        return Result(False, 0.0, "; ".join(reasons), details)
    return Result(True, 1.0, f"{found} matching tool call(s); every assertion holds", details)
