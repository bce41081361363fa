"""What every check receives and returns."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import Sample


@dataclass(frozen=True)
class Call:
    """One assertion to check: the output, its value, the whole mapping, whether ``not-`` was set."""

    output: str
    value: Any
    assertion: dict[str, Any]
    inverse: bool
    sample: Sample
    #: The test's merged ``options`` (``provider_config`` for the tools-call checks).
    options: dict[str, Any] = field(default_factory=dict)
    #: The output as a transform left it (an object stays one): what promptfoo hands a script.
    data: Any = None
    #: The folder a ``file://`` path starts from (the config's).
    folder: Path | None = None


@dataclass
class Grade:
    """One assertion's result, as promptfoo's GradingResult: pass, score and reason."""

    passed: bool
    score: float
    reason: str
    #: Scores the check names itself (a script's GradingResult ``namedScores``).
    named_scores: dict[str, float] = field(default_factory=dict)
    #: Their weights (a GradingResult's ``namedScoreWeights``); a name not here weighs 1.
    named_weights: dict[str, float] = field(default_factory=dict)


class AssertionInvalid(Exception):
    """promptfoo throws here (an invariant): the row is an error, not a failure."""


Check = Callable[[Call], Grade]


def binary(passed: bool, failure: str) -> Grade:
    """Pass scores 1 and reads "Assertion passed"; a failure scores 0 with its reason."""
    return Grade(passed, 1.0 if passed else 0.0, "Assertion passed" if passed else failure)


def js_string(value: Any) -> str:
    """JavaScript's ``String(value)`` for the values YAML gives (numbers, booleans, null)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (list, dict)):
        return ",".join(js_string(v) for v in value) if isinstance(value, list) else "[object Object]"
    return str(value)


def js_stringify(value: Any) -> str:
    """``JSON.stringify`` (compact, non-ASCII kept)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
