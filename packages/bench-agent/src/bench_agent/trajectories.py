"""Checks of what the agent did, step by step: tool_selection, efficiency and trajectory."""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample
from bench_agent.steps import Step, assistant_turns, steps


class ToolSelectionConfig(EvaluatorConfig):
    """Settings of tool_selection."""

    expected_tools: list[str] = Field(min_length=1)
    """The tools the agent should use."""
    allow_other_tools: bool = True
    """When false, tools outside ``expected_tools`` lower the score (it becomes the Jaccard index)."""


class ToolSelection(Evaluator[ToolSelectionConfig]):
    """Did the agent use the tools it should have (AI Eval ``004``)?

    Score: the share of ``expected_tools`` the agent called at least once; with
    ``allow_other_tools: false``, |expected ∩ used| / |expected ∪ used|. Passes at
    ``score_threshold`` (default: 1, every expected tool used).
    """

    name = "tool_selection"
    Config = ToolSelectionConfig
    example = """
    name: tool-selection-example
    tasks:
      - id: weather
        response:
          output: "It is 18°C in Paris."
          tool_calls: [{name: search, arguments: {q: "Paris weather"}}, {name: calculate, arguments: {}}]
        evaluators:
          - type: tool_selection
            expected_tools: ["search", "calculate"]
            score_threshold: 0.8
    """

    def evaluate(self, sample: Sample) -> Result:
        used = {s.name for s in steps(sample.response)}
        expected = set(self.config.expected_tools)
        hit = expected & used
        scope = expected if self.config.allow_other_tools else expected | used
        score = len(hit) / len(scope)
        missing, extra = sorted(expected - used), sorted(used - expected)
        details = {"used": sorted(used), "missing": missing, "unexpected": extra}
        reason = f"used {len(hit)} of {len(expected)} expected tools"
        if missing:
            reason += f"; missing: {', '.join(missing)}"
        if extra and not self.config.allow_other_tools:
            reason += f"; unexpected: {', '.join(extra)}"
        return Result(score == 1.0, score, reason, details)


class EfficiencyConfig(EvaluatorConfig):
    """Settings of efficiency (at least one budget)."""

    max_steps: int | None = Field(default=None, gt=0)
    """Most model turns (assistant messages) the agent may take."""
    max_tokens: int | None = Field(default=None, gt=0)
    """Most tokens (input + output) the agent may spend."""

    @model_validator(mode="after")
    def _one_budget(self) -> EfficiencyConfig:
        if self.max_steps is None and self.max_tokens is None:
            raise ValueError("give max_steps, max_tokens or both")
        return self


class Efficiency(Evaluator[EfficiencyConfig]):
    """Did the agent stay within its step and token budgets (AI Eval ``004``)?

    Steps are model turns (assistant messages of the trajectory); tokens are the response's
    reported usage. Each budget scores 1 when met, else budget / used; the score is their mean,
    and passing needs every budget met (or ``score_threshold``).
    """

    name = "efficiency"
    Config = EfficiencyConfig
    example = """
    name: efficiency-example
    tasks:
      - id: lookup
        response:
          output: "Done."
          messages:
            - {role: user, content: "Find the config file."}
            - role: assistant
              tool_calls: [{id: c1, type: function, function: {name: list_dir, arguments: "{}"}}]
            - {role: tool, tool_call_id: c1, content: "config.yaml"}
            - {role: assistant, content: "It is config.yaml."}
          usage: {input_tokens: 900, output_tokens: 120}
        evaluators:
          - type: efficiency
            max_steps: 5
            max_tokens: 2000
    """

    def evaluate(self, sample: Sample) -> Result:
        response = sample.response
        scores: list[float] = []
        notes: list[str] = []
        details: dict[str, Any] = {"tool_calls": len(steps(response))}
        if self.config.max_steps is not None:
            taken = assistant_turns(response)
            details["steps"] = taken
            scores.append(min(1.0, self.config.max_steps / taken) if taken else 1.0)
            notes.append(f"{taken} steps of {self.config.max_steps} allowed")
        if self.config.max_tokens is not None:
            usage = response.usage
            used = usage.total_tokens
            if used is None and usage.input_tokens is not None and usage.output_tokens is not None:
                used = usage.input_tokens + usage.output_tokens
            if used is None:
                raise EvaluatorError(
                    "efficiency: max_tokens needs the response's token usage, which is unknown"
                )
            details["tokens"] = used
            scores.append(min(1.0, self.config.max_tokens / used) if used else 1.0)
            notes.append(f"{used} tokens of {self.config.max_tokens} allowed")
        score = sum(scores) / len(scores)
        return Result(all(s == 1.0 for s in scores), score, "; ".join(notes), details)


class ExpectedCall(BaseModel):
    """One expected tool call: its name and, optionally, arguments it must include."""

    model_config = ConfigDict(extra="forbid")

    name: str
    arguments: dict[str, Any] | None = None

    def matches(self, step: Step) -> bool:
        if step.name != self.name:
            return False
        if self.arguments is None:
            return True
        given = step.arguments if isinstance(step.arguments, dict) else {}
        return all(given.get(k) == v for k, v in self.arguments.items())


Mode = Literal["exact", "in_order", "any_order", "subset", "superset"]


class TrajectoryConfig(EvaluatorConfig):
    """Settings of trajectory."""

    expected: list[ExpectedCall] = Field(min_length=1)
    """The expected tool calls: names, or ``{name, arguments}`` (arguments it must include)."""
    mode: Mode = "in_order"
    """exact, in_order, any_order, subset or superset (see the type's description)."""

    @field_validator("expected", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"name": v} if isinstance(v, str) else v for v in value]
        return value

    @field_validator("mode", mode="before")
    @classmethod
    def _dashes(cls, value: Any) -> Any:
        return value.replace("-", "_") if isinstance(value, str) else value


def _matched(expected: list[ExpectedCall], actual: list[Step]) -> int:
    """How many expected calls can be paired with distinct actual ones (any order)."""
    used: set[int] = set()
    count = 0
    for call in expected:
        for i, step in enumerate(actual):
            if i not in used and call.matches(step):
                used.add(i)
                count += 1
                break
    return count


def _in_order(expected: list[ExpectedCall], actual: list[Step]) -> int:
    """The longest prefix of ``expected`` found in ``actual`` in order (others may interleave)."""
    position = 0
    for step in actual:
        if position < len(expected) and expected[position].matches(step):
            position += 1
    return position


class Trajectory(Evaluator[TrajectoryConfig]):
    """Does the agent's sequence of tool calls match the expected one?

    Modes: ``exact`` — the same calls in the same order, nothing else; ``in_order`` — the
    expected calls appear in this order, other calls may come between; ``any_order`` — the same
    calls in any order, nothing else; ``subset`` — every call the agent made is among the
    expected ones (it did nothing unexpected); ``superset`` — every expected call was made, in any
    order, others allowed. An expected call with ``arguments`` matches only calls whose
    arguments include those values. The score is the share of expected calls matched (of the
    agent's calls for ``subset``); passing needs a full match.
    """

    name = "trajectory"
    aliases = ("trajectory_match",)
    Config = TrajectoryConfig
    example = """
    name: trajectory-example
    tasks:
      - id: fix-bug
        response:
          output: "Fixed."
          tool_calls:
            - {name: read_file, arguments: {path: app.py}}
            - {name: write_file, arguments: {path: app.py}}
            - {name: run_command, arguments: {command: "pytest -q"}}
        evaluators:
          - type: trajectory
            mode: in_order
            expected: [read_file, {name: write_file, arguments: {path: app.py}}, run_command]
    """

    def evaluate(self, sample: Sample) -> Result:
        actual = steps(sample.response)
        expected = self.config.expected
        mode = self.config.mode
        names = [s.name for s in actual]
        if mode == "exact":
            hits = sum(1 for e, s in zip(expected, actual, strict=False) if e.matches(s))
            ok = len(actual) == len(expected) and hits == len(expected)
            score = hits / max(len(expected), len(actual))
        elif mode == "in_order":
            hits = _in_order(expected, actual)
            ok, score = hits == len(expected), hits / len(expected)
        elif mode == "any_order":
            hits = _matched(expected, actual)
            ok = hits == len(expected) == len(actual)
            score = hits / max(len(expected), len(actual))
        elif mode == "superset":
            hits = _matched(expected, actual)
            ok, score = hits == len(expected), hits / len(expected)
        else:  # subset: each actual call is allowed by some expected call
            allowed = sum(1 for s in actual if any(e.matches(s) for e in expected))
            ok = allowed == len(actual)
            score = allowed / len(actual) if actual else 1.0
        counts = Counter(names)
        details = {
            "mode": mode,
            "actual": names,
            "expected": [e.name for e in expected],
            "calls": dict(counts),
        }
        shown = " → ".join(names) or "no tool calls"
        verdict = "matches" if ok else "does not match"
        return Result(ok, score, f"trajectory {verdict} ({mode}): {shown}", details)
