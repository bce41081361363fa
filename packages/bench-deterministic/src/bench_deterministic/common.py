"""What the deterministic checks share: where the expected value comes from, and verdicts."""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import model_validator

from bench import EvaluatorConfig, EvaluatorError, Result, Sample


class CompareConfig(EvaluatorConfig):
    """Settings of a check that compares the response with an expected value.

    The value is ``value`` (or, in a task's ``expected:`` block, the block's entry), else the
    evaluator's ``expected_from`` evidence reference (``literal:Paris``, ``case.expectations.x``).
    """

    expected_from: str | None = None
    """Where the expected value comes from, when ``value`` is not given (an evidence reference)."""

    #: The field holding the expected value; ``None``: the type needs no expected value.
    value_field: ClassVar[str | None] = "value"

    @model_validator(mode="after")
    def _has_expected(self) -> CompareConfig:
        field = self.value_field
        if isinstance(field, str) and getattr(self, field, None) is None and self.expected_from is None:
            raise ValueError(f"set {field} (or expected_from: an evidence reference)")
        return self


def expected_of(sample: Sample, configured: Any) -> Any:
    """The configured value, else the resolved ``expected_from`` text."""
    if configured is not None:
        return configured
    if sample.expected is None:
        raise EvaluatorError("no expected value: set value or expected_from")
    return sample.expected


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def verdict(passed: bool, reason: str, **details: Any) -> Result:
    """A pass/fail result with score 1 or 0."""
    return Result(passed=passed, score=1.0 if passed else 0.0, reason=reason, details=details)
