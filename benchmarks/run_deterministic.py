"""Benchmark: evaluator throughput per deterministic type over N responses.

Each type is bound from a suite-style mapping and run on N different responses through the same
``evaluate`` call the runner makes (settings, thresholds and negation applied), in one process.
Reported: evaluations/second and microseconds per evaluation. ``code_execution`` starts a process
per response, so it runs on ``--code`` responses (default 100) instead of N.

    nox -s bench -- --deterministic          # or: python benchmarks/run_deterministic.py --n 10000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.document import YamlDocument
from bench.evaluator import Sample
from bench.execution.runner import evaluate
from bench.plugins.registry import get_registry
from bench.suite.binding import Binder
from bench.vocabulary.models import Response, Task, ToolCall


def _person(i: int) -> str:
    return json.dumps({"user": {"name": f"user{i}", "email": f"u{i}@example.com", "age": 20 + i % 50}})


def _calls(i: int) -> Response:
    calls = [
        ToolCall(name="get_weather", arguments={"location": "San Francisco", "day": i % 7}),
        ToolCall(name="search", arguments={"query": f"golang error wrapping {i}"}),
    ]
    return Response(output="", tool_calls=calls)


CASES: list[tuple[str, dict[str, Any], Callable[[int], str | Response]]] = [
    ("exact_match", {"type": "exact_match", "value": "answer 7"}, lambda i: f"answer {i % 10}"),
    ("contains", {"type": "contains", "value": ["hello", "world"]}, lambda i: f"hello {i} brave new world"),
    ("icontains", {"type": "icontains", "value": "HELLO"}, lambda i: f"hello {i}"),
    ("not_contains", {"type": "not_contains", "value": ["sorry", "cannot"]}, lambda i: f"sure, item {i}"),
    ("starts_with", {"type": "starts_with", "value": "Dear"}, lambda i: f"Dear user {i}"),
    ("regex", {"type": "regex", "value": r"^\d{4}-\d{2}-\d{2}$"}, lambda i: f"20{i % 100:02d}-01-31"),
    ("boolean_assert", {"type": "boolean_assert", "value": True}, lambda i: "true" if i % 2 else "no"),
    (
        "normalized_match",
        {
            "type": "normalized_match",
            "value": "the eiffel tower",
            "pipeline": ["trim", "lowercase", "strip_punctuation"],
        },
        lambda i: f"  The Eiffel Tower{'!' * (i % 3)} ",
    ),
    (
        "fuzzy_match",
        {"type": "fuzzy_match", "value": "The capital of France is Paris."},
        lambda i: f"The capital of France is Paris{i}.",
    ),
    (
        "numeric_match",
        {"type": "numeric_match", "value": 0.3, "absolute_tolerance": 1e-9},
        lambda i: repr(0.1 * (i % 5) + 0.2),
    ),
    (
        "numeric_match (extract)",
        {"type": "numeric_match", "value": 1234.5, "extract_number": True},
        lambda i: f"It costs ${1234 + i % 3}.50 today",
    ),
    (
        "math_equivalence",
        {"type": "math_equivalence", "value": "0.5"},
        lambda i: rf"$\frac{{{i % 4 + 1}}}{{{2 * (i % 4 + 1)}}}$",
    ),
    ("is_json", {"type": "is_json"}, _person),
    (
        "json_schema",
        {
            "type": "json_schema",
            "schema": {
                "type": "object",
                "required": ["user"],
                "properties": {
                    "user": {"type": "object", "properties": {"email": {"type": "string", "format": "email"}}}
                },
            },
        },
        _person,
    ),
    (
        "json_path_match",
        {"type": "json_path_match", "path": "$.user.age", "comparator": "greater_than", "value": 30},
        _person,
    ),
    (
        "tool_calls",
        {
            "type": "tool_calls",
            "calls": [
                {"name": "get_weather", "order": 1},
                {"name": "search", "args_match": {"query": "regex:^golang"}},
            ],
        },
        _calls,
    ),
    (
        "tool_call_assertion",
        {"type": "tool_call_assertion", "must_call": ["search"], "ordered_tools": ["get_weather", "search"]},
        _calls,
    ),
    (
        "postcondition",
        {"type": "postcondition", "condition": "regex_match", "value": r"item \d+"},
        lambda i: f"item {i}",
    ),
]
FILE_CASES: list[tuple[str, dict[str, Any]]] = [
    ("file_exists", {"type": "file_exists", "path": "src/app.py"}),
    ("file_content_match", {"type": "file_content_match", "path": "src/app.py", "value": "def total("}),
    (
        "file_json_schema",
        {
            "type": "file_json_schema",
            "path": "config.json",
            "schema": {"type": "object", "required": ["port"]},
        },
    ),
    ("directory_structure", {"type": "directory_structure", "required_files": ["README.md", "src/app.py"]}),
]


def bind(settings: dict[str, Any]) -> Any:
    binder = Binder(get_registry())
    return binder.bind_mapping(YamlDocument(Path("<bench>"), settings, None), (), settings)


async def measure(settings: dict[str, Any], samples: list[Sample]) -> tuple[float, int]:
    bound = bind(settings)
    await evaluate(bound, samples[0])  # warm caches (compiled patterns, schemas, imports)
    started = time.perf_counter()
    passed = 0
    for sample in samples:
        outcome = await evaluate(bound, sample)
        assert outcome.error is None, outcome.error
        passed += outcome.passed
    return time.perf_counter() - started, passed


def sample(response: str | Response, task: Task) -> Sample:
    if isinstance(response, str):
        response = Response(output=response)
    return Sample(task, response, response.text)


def report(name: str, n: int, seconds: float, passed: int) -> None:
    print(
        f"{name:26s} {n:>7,} in {seconds:7.3f} s  {n / seconds:>11,.0f}/s  "
        f"{seconds / n * 1e6:>9.1f} µs each  ({passed:,} passed)"
    )


async def main(n: int, code_n: int) -> None:
    task = Task(id="t", prompt="q")
    print(
        f"deterministic evaluators, {n:,} responses each (code_execution: {code_n:,}); "
        f"cpu cores: {os.cpu_count()}"
    )
    for name, settings, make in CASES:
        samples = [sample(make(i), task) for i in range(n)]
        seconds, passed = await measure(settings, samples)
        report(name, n, seconds, passed)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "src").mkdir()
        (root / "README.md").write_text("# demo\n")
        (root / "src" / "app.py").write_text("def total(prices):\n    return sum(prices)\n")
        (root / "config.json").write_text('{"port": 8080}')
        in_workspace = Task(id="t", prompt="q", workspace=str(root))
        samples = [sample(f"done {i}", in_workspace) for i in range(n)]
        for name, settings in FILE_CASES:
            seconds, passed = await measure(settings, samples)
            report(name, n, seconds, passed)
    code = "```python\ndef add(a, b):\n    return a + b\n```"
    settings = {"type": "code_execution", "test_code": "assert add(2, 3) == 5"}
    bound = bind(settings)
    started = time.perf_counter()
    outcomes = await asyncio.gather(*(evaluate(bound, sample(code, task)) for _ in range(code_n)))
    seconds = time.perf_counter() - started
    isolation = outcomes[0].details.get("isolation")
    report(f"code_execution ({isolation})", code_n, seconds, sum(o.passed for o in outcomes))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n", type=int, default=10_000, help="responses per type")
    parser.add_argument("--code", type=int, default=100, help="programs for code_execution")
    args = parser.parse_args()
    asyncio.run(main(args.n, args.code))
