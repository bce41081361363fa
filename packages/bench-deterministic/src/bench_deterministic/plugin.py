"""Registers bench-deterministic's evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from bench import RegisterEvaluator, hookimpl
from bench_deterministic.code import CodeExecution
from bench_deterministic.conversation import NeverSaid, ToolCalledBefore, TurnCount
from bench_deterministic.expected import ExpectedMatcher
from bench_deterministic.files import DirectoryStructure, FileContentMatch, FileExists, FileJsonSchema
from bench_deterministic.jsondoc import IsJson, JsonPathMatch, JsonSchema
from bench_deterministic.normalize import FuzzyMatch, NormalizedMatch
from bench_deterministic.numbers import MathEquivalence, NumericMatch
from bench_deterministic.postcondition import Postcondition
from bench_deterministic.text import (
    BooleanAssert,
    Contains,
    ExactMatch,
    IContains,
    NotContains,
    Regex,
    StartsWith,
)
from bench_deterministic.toolcalls import ToolCallAssertion, ToolCalls

EVALUATORS = (
    ExpectedMatcher,
    ExactMatch,
    Contains,
    IContains,
    NotContains,
    StartsWith,
    Regex,
    BooleanAssert,
    NormalizedMatch,
    FuzzyMatch,
    NumericMatch,
    MathEquivalence,
    IsJson,
    JsonSchema,
    JsonPathMatch,
    ToolCalls,
    ToolCallAssertion,
    FileExists,
    FileContentMatch,
    FileJsonSchema,
    DirectoryStructure,
    CodeExecution,
    Postcondition,
    TurnCount,
    ToolCalledBefore,
    NeverSaid,
)


@hookimpl
def bench_register_evaluators(register: RegisterEvaluator) -> None:
    for evaluator in EVALUATORS:
        register(evaluator)
