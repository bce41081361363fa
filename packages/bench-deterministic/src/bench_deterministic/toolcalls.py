"""Tool calls: AI Eval's ``tool_calls`` expectations and AgentClash's ``tool_call_assertion``."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Response, Result, Sample
from bench.llm import decode_arguments, parse_tool_call
from bench_deterministic import toolcall_rules
from bench_deterministic.jsondoc import json_equal
from bench_deterministic.patterns import PatternError, compile_pattern

REGEX_PREFIX = "regex:"


@dataclass
class Call:
    """One tool call the response made; ``arguments`` is None when they were not valid JSON."""

    position: int  # 1-based
    name: str
    arguments: dict[str, Any] | None
    raw: Any


def calls_of(response: Response) -> list[Call]:
    """The response's tool calls: ``tool_calls``, else those in its assistant messages."""
    found: list[tuple[str, Any]] = [(c.name, c.arguments) for c in response.tool_calls]
    if not found:
        for message in response.messages:
            for raw in message.model_extra.get("tool_calls", []) if message.model_extra else []:
                call = parse_tool_call(raw, decode=False)  # the arguments as written, for the details
                if call is not None:
                    found.append((call.name, call.arguments))
    calls = []
    for position, (name, raw) in enumerate(found, start=1):
        # Text that is not JSON stays text, so it is not a dict: None, "not valid JSON".
        arguments = decode_arguments(raw) if isinstance(raw, str) else raw
        calls.append(Call(position, name, arguments if isinstance(arguments, dict) else None, raw))
    return calls


def _value_matches(actual: Any, expected: Any) -> bool:
    if isinstance(expected, str) and expected.startswith(REGEX_PREFIX):
        text = actual if isinstance(actual, str) else json.dumps(actual)
        return compile_pattern(expected[len(REGEX_PREFIX) :]).search(text)
    if isinstance(expected, dict) and isinstance(actual, dict):
        return all(k in actual and _value_matches(actual[k], v) for k, v in expected.items())
    return json_equal(actual, expected)


def args_match(arguments: dict[str, Any], expected: dict[str, Any]) -> bool:
    """Subset match: every expected key is present and matches (``regex:`` strings as patterns)."""
    return all(key in arguments and _value_matches(arguments[key], value) for key, value in expected.items())


def _check_patterns(value: Any) -> None:
    if isinstance(value, str) and value.startswith(REGEX_PREFIX):
        try:
            compile_pattern(value[len(REGEX_PREFIX) :])
        except PatternError as exc:
            raise ValueError(str(exc)) from None
    elif isinstance(value, dict):
        for item in value.values():
            _check_patterns(item)


class ExpectedCall(BaseModel):
    """One expected call (AI Eval)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    args_match: dict[str, Any] = Field(default_factory=dict)
    order: int = Field(default=0, ge=0)
    required: bool = True

    @field_validator("args_match")
    @classmethod
    def _patterns(cls, value: dict[str, Any]) -> dict[str, Any]:
        _check_patterns(value)
        return value


class ToolCallsConfig(EvaluatorConfig):
    """Settings of tool_calls."""

    calls: list[ExpectedCall] = Field(min_length=1)
    """The expected calls: ``name``, ``args_match`` (subset; ``regex:`` strings), ``order``
    (1-based position, 0 or absent for anywhere), ``required`` (default true)."""


class ToolCalls(Evaluator[ToolCallsConfig]):
    """AI Eval's ``expected.tool_calls``: each expected call must be found among the response's calls.

    Ordered expectations (``order: N``) must be the N-th call; unordered ones may be any call not
    already matched. The score is the fraction of expected calls found; the check passes when
    every required one is found (or, with ``score_threshold``, when the score reaches it — the
    ``tool_call`` evaluator of AI Eval's ``evaluators:`` list).
    """

    name = "tool_calls"
    aliases = ("tool_call",)
    expected_block = "calls"
    Config = ToolCallsConfig
    example = """
    name: tool-calls-example
    tasks:
      - id: weather
        response:
          output: ""
          tool_calls:
            - {name: get_weather, arguments: {location: "San Francisco", unit: "c"}}
            - {name: search, arguments: '{"query": "golang error wrapping"}'}
        expected:
          tool_calls:
            - {name: get_weather, args_match: {location: "San Francisco"}, order: 1}
            - {name: search, args_match: {query: "regex:^golang\\\\s+error"}}
      - id: with-threshold
        response:
          tool_calls: [{name: search, arguments: {query: "x"}}]
        expected:
          tool_calls:
            - {name: search}
            - {name: summarize, required: false}
        evaluators:
          - {type: tool_call, score_threshold: 0.5}
    """

    def evaluate(self, sample: Sample) -> Result:
        calls = calls_of(sample.response)
        used: set[int] = set()
        missing: list[str] = []
        notes: list[str] = []
        found = 0
        expectations = sorted(self.config.calls, key=lambda e: e.order == 0)  # ordered ones first
        for expected in expectations:
            match = self._match(expected, calls, used, notes)
            if match is None:
                if expected.required:
                    where = f" at position {expected.order}" if expected.order else ""
                    missing.append(f"{expected.name}{where}")
            else:
                used.add(match.position)
                found += 1
        score = found / len(self.config.calls)
        details: dict[str, Any] = {"calls": [{"name": c.name, "arguments": c.raw} for c in calls]}
        if notes:
            details["notes"] = notes
        if missing:
            extra = f" ({'; '.join(notes)})" if notes else ""
            return Result(False, score, f"missing tool call: {', '.join(missing)}{extra}", details)
        return Result(True, score, f"{found} of {len(self.config.calls)} expected tool calls found", details)

    @staticmethod
    def _match(expected: ExpectedCall, calls: list[Call], used: set[int], notes: list[str]) -> Call | None:
        candidates = [c for c in calls if c.position not in used]
        if expected.order:
            candidates = [c for c in candidates if c.position == expected.order]
        for call in candidates:
            if call.name != expected.name:
                continue
            if call.arguments is None:
                notes.append(f"call {call.position} ({call.name}): arguments are not valid JSON")
                continue
            if args_match(call.arguments, expected.args_match):
                return call
        return None


class CountRange(BaseModel):
    """How many times a tool may be called."""

    model_config = ConfigDict(extra="forbid")

    min: int | None = Field(default=None, ge=0)
    max: int | None = Field(default=None, ge=0)
    exact: int | None = Field(default=None, ge=0)


class ArgumentsCheck(BaseModel):
    """A call to ``tool`` whose arguments contain these values must exist."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    arguments: dict[str, Any]

    @field_validator("arguments")
    @classmethod
    def _patterns(cls, value: dict[str, Any]) -> dict[str, Any]:
        _check_patterns(value)
        return value


class AssertionConfig(EvaluatorConfig):
    """Settings of tool_call_assertion (bench's lists, or AgentClash's single assertion)."""

    must_call: list[str] | bool = Field(default_factory=list)
    """Tools that must be called at least once; AgentClash's form: true/false (the matching calls
    must / must not exist)."""
    must_not_call: list[str] = Field(default_factory=list)
    """Tools that must never be called."""
    call_counts: dict[str, int | CountRange] = Field(default_factory=dict)
    """Per tool: an exact count, or ``{min, max}`` / ``{exact}``."""
    arguments_contain: list[ArgumentsCheck] | dict[str, Any] | Any = None
    """Calls whose arguments must contain values: strings as substrings (or ``regex:``), others equal.
    AgentClash's form: one JSON object the matching calls' arguments contain (values equal)."""
    ordered_tools: list[str] = Field(default_factory=list)
    """Tools that must be called in this relative order (other calls may come between)."""
    tool_name: str | None = None
    """AgentClash's form: the tool the assertion is about (any tool when absent)."""
    count: int | None = None
    """AgentClash's form: exactly this many matching calls."""
    min_count: int | None = None
    """AgentClash's form: at least this many matching calls."""
    max_count: int | None = None
    """AgentClash's form: at most this many matching calls."""
    order_mode: str | None = None
    """AgentClash's form: ``subsequence`` (default) or ``exact`` for ``ordered_tools``."""
    target: str | None = None
    """The evidence judged: ``tool_calls`` (the response's calls) or absent; any other is refused."""
    expected_from: str | None = None
    """Refused: the assertion's expectations are its settings (AgentClash requires it omitted)."""

    @property
    def agentclash(self) -> bool:
        """True for AgentClash's single-assertion form."""
        return (
            isinstance(self.must_call, bool)
            or isinstance(self.arguments_contain, dict)
            or any(getattr(self, key) is not None for key in toolcall_rules.KEYS)
        )

    @model_validator(mode="after")
    def _something(self) -> AssertionConfig:
        evidence = toolcall_rules.evidence_problems(self)
        if self.agentclash:
            if self.must_not_call or self.call_counts:
                raise ValueError(
                    "AgentClash's form (tool_name, must_call: true/false, count, min_count, max_count, "
                    "order_mode) cannot be mixed with must_not_call or call_counts"
                )
            errors = toolcall_rules.problems(self) + evidence  # in AgentClash's order
            if errors:
                raise ValueError("; ".join(errors))
            return self
        if evidence:
            raise ValueError("; ".join(evidence))
        if self.arguments_contain is not None and not isinstance(self.arguments_contain, list):
            raise ValueError("arguments_contain must be a JSON object")
        if self.arguments_contain is not None:
            self.arguments_contain = [ArgumentsCheck.model_validate(a) for a in self.arguments_contain]
        if not (
            self.must_call
            or self.must_not_call
            or self.call_counts
            or self.arguments_contain
            or self.ordered_tools
        ):
            raise ValueError(
                "nothing to assert: set must_call, must_not_call, call_counts, arguments_contain "
                "or ordered_tools"
            )
        return self


def _contains(actual: Any, expected: Any) -> bool:
    if isinstance(expected, str) and expected.startswith(REGEX_PREFIX):
        return _value_matches(actual, expected)
    if isinstance(expected, str) and isinstance(actual, str):
        return expected in actual
    if isinstance(expected, dict) and isinstance(actual, dict):
        return all(k in actual and _contains(actual[k], v) for k, v in expected.items())
    if isinstance(actual, list) and not isinstance(expected, list):
        return any(_contains(item, expected) for item in actual)
    return json_equal(actual, expected)


class ToolCallAssertion(Evaluator[AssertionConfig]):
    """Assertions over the whole trajectory of tool calls (AgentClash ``tool_call_assertion``).

    Every assertion given is checked; the score is the fraction that hold and the check passes
    when all do. The reason lists each failed assertion. AgentClash's own form (``tool_name``,
    ``must_call: true/false``, ``count`` | ``min_count``/``max_count``, ``arguments_contain`` as one
    object, ``ordered_tools`` with ``order_mode: subsequence | exact``; ``target: tool_calls``) is one
    assertion over the matching calls, scored 1 or 0, with AgentClash's validation messages.
    """

    name = "tool_call_assertion"
    Config = AssertionConfig
    example = """
    name: tool-call-assertion-example
    tasks:
      - id: refund
        response:
          tool_calls:
            - {name: lookup_order, arguments: {order_id: "A-17"}}
            - {name: create_refund, arguments: {order_id: "A-17", reason: "damaged item"}}
        evaluate:
          type: tool_call_assertion
          must_call: [create_refund]
          must_not_call: [delete_account]
          call_counts: {create_refund: 1, lookup_order: {min: 1, max: 3}}
          arguments_contain:
            - {tool: create_refund, arguments: {order_id: "A-17", reason: "damaged"}}
          ordered_tools: [lookup_order, create_refund]
      - id: agentclash-form
        response:
          tool_calls: [{name: submit, arguments: {answer: {value: "42"}}}]
        evaluate:
          type: tool_call_assertion
          target: tool_calls
          tool_name: submit
          must_call: true
          arguments_contain: {answer: {value: "42"}}
    """

    def evaluate(self, sample: Sample) -> Result:
        config = self.config
        calls = calls_of(sample.response)
        if config.agentclash:
            return toolcall_rules.evaluate(config, calls)
        names = [c.name for c in calls]
        failures: list[str] = []
        checks = 0
        for tool in config.must_call if isinstance(config.must_call, list) else []:
            checks += 1
            if tool not in names:
                failures.append(f"{tool} was never called")
        for tool in config.must_not_call:
            checks += 1
            if tool in names:
                failures.append(f"{tool} was called {names.count(tool)} time(s)")
        for tool, wanted in config.call_counts.items():
            checks += 1
            count = names.count(tool)
            bounds = CountRange(exact=wanted) if isinstance(wanted, int) else wanted
            low = bounds.exact if bounds.exact is not None else bounds.min
            high = bounds.exact if bounds.exact is not None else bounds.max
            if (low is not None and count < low) or (high is not None and count > high):
                span = (
                    f"exactly {low}" if low == high else f"{low if low is not None else 0}..{high or 'any'}"
                )
                failures.append(f"{tool} was called {count} time(s), expected {span}")
        checks_of: list[ArgumentsCheck] = config.arguments_contain or []  # type: ignore[assignment]  # a list here: the validator made it one
        for check in checks_of:
            checks += 1
            relevant = [c for c in calls if c.name == check.tool]
            if any(c.arguments is None for c in relevant):
                failures.append(f"{check.tool}: arguments are not valid JSON")
            elif not any(
                c.arguments is not None and _contains(c.arguments, check.arguments) for c in relevant
            ):
                failures.append(
                    f"no {check.tool} call has arguments containing {json.dumps(check.arguments)}"
                )
        if config.ordered_tools:
            checks += 1
            if not toolcall_rules.in_order(names, config.ordered_tools):
                failures.append(f"tools not called in order {' -> '.join(config.ordered_tools)}")
        if not checks:  # pragma: no cover - refused by the config
            raise EvaluatorError("nothing to assert")
        score = 1 - len(failures) / checks
        details = {"calls": names, "failures": failures}
        if failures:
            return Result(False, score, "; ".join(failures), details)
        return Result(True, 1.0, f"all {checks} tool-call assertions hold", details)
