"""Tests from a CSV file, as promptfoo's ``src/csv.ts`` reads them (FORMATS.md 1.9)."""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench import ConfigError

#: promptfoo's base assertion types (``BaseAssertionTypesSchema``), longest first for the grammar.
BASE_TYPES = (
    "answer-relevance",
    "bleu",
    "classifier",
    "contains-all",
    "contains-any",
    "contains-html",
    "contains-json",
    "contains-sql",
    "contains-xml",
    "contains",
    "context-faithfulness",
    "context-recall",
    "context-relevance",
    "conversation-relevance",
    "cost",
    "equals",
    "factuality",
    "finish-reason",
    "g-eval",
    "gleu",
    "guardrails",
    "icontains-all",
    "icontains-any",
    "icontains",
    "is-html",
    "is-json",
    "is-refusal",
    "is-sql",
    "is-valid-function-call",
    "is-valid-openai-function-call",
    "is-valid-openai-tools-call",
    "is-xml",
    "javascript",
    "latency",
    "levenshtein",
    "llm-rubric",
    "meteor",
    "model-graded-closedqa",
    "model-graded-factuality",
    "moderation",
    "perplexity-score",
    "perplexity",
    "pi",
    "python",
    "regex",
    "rouge-n",
    "select-best",
    "similar",
    "starts-with",
    "trace-error-spans",
    "trace-span-count",
    "trace-span-duration",
    "webhook",
    "word-count",
)
_GRAMMAR = re.compile(
    r"^(not-)?(" + "|".join(re.escape(t) for t in BASE_TYPES) + r")(?:\((\d+(?:\.\d+)?)\))?(?::([\s\S]*))?$"
)
_LISTS = {"contains-all", "contains-any", "icontains-all", "icontains-any"}
_RAW = {"contains-json", "is-json"}
_THRESHOLDED = {
    "answer-relevance",
    "classifier",
    "context-faithfulness",
    "context-recall",
    "context-relevance",
    "cost",
    "latency",
    "levenshtein",
    "perplexity-score",
    "perplexity",
    "rouge-n",
    "similar",
    "starts-with",
}
_SPECIAL = ("expected", "prefix", "suffix", "description", "providerOutput", "metric", "threshold")
#: A comma that separates ``__metadata:KEY[]`` items (``\,`` is a comma inside an item).
_ITEM_COMMA = re.compile(r"(?<!\\),")


def assertion_from_string(expected: str) -> dict[str, Any]:
    """One ``__expected`` cell as a promptfoo assertion (``assertionFromString``)."""
    for prefix in ("javascript:", "fn:", "eval:"):
        if expected.startswith(prefix):
            return {"type": "javascript", "value": expected[len(prefix) :].strip()}
    if expected.startswith("grade:") or expected.startswith("llm-rubric:"):
        return {"type": "llm-rubric", "value": expected[6 if expected.startswith("grade:") else 11 :]}
    if expected.startswith("python:") or (
        expected.startswith("file://") and (expected.endswith(".py") or ".py:" in expected)
    ):
        cut = len("python:") if expected.startswith("python:") else len("file://")
        return {"type": "python", "value": expected[cut:].strip()}
    if expected.startswith("file://") and (
        expected.endswith((".js", ".ts")) or ".js:" in expected or ".ts:" in expected
    ):
        return {"type": "javascript", "value": expected[len("file://") :].strip()}
    match = _GRAMMAR.match(expected)
    if not match:
        return {"type": "equals", "value": expected}
    negate, kind, threshold, value = match.groups()
    full = f"not-{kind}" if negate else kind
    value = (value or "").strip()
    if kind in _LISTS:
        return {"type": full, "value": [item.strip() for item in value.split(",")]}
    if kind in _RAW:
        return {"type": full, "value": match.group(4) or ""}
    if kind in _THRESHOLDED:
        number = float(threshold) if threshold else 0.0
        return {"type": full, "value": value, "threshold": number or (0.8 if kind == "similar" else 0.75)}
    return {"type": full, "value": value}


def case_from_row(row: dict[str, str], warn: Callable[[str], None]) -> dict[str, Any]:
    """One CSV row as a promptfoo test (``testCaseFromCsvRow``)."""
    variables: dict[str, str] = {}
    asserts: list[dict[str, Any]] = []
    positions: dict[str, int] = {}
    configs: list[tuple[str, str, str]] = []
    options: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    test: dict[str, Any] = {}
    metric = None
    for key, value in row.items():
        if not key.startswith("__") and any(key.startswith(f"_{k}") for k in _SPECIAL):
            warn(f'You used a single underscore for the key "{key}". Did you mean to use "_{key}" instead?')
        if key.startswith("__expected"):
            if value.strip():
                positions[key] = len(asserts)
                asserts.append(assertion_from_string(value.strip()))
        elif key in ("__prefix", "__suffix"):
            options[key[2:]] = value
        elif key == "__description":
            if value:
                test["description"] = value
        elif key == "__providerOutput":
            if value:
                test["providerOutput"] = value
        elif key == "__metric":
            metric = value
        elif key == "__threshold":
            if value.strip():
                test["threshold"] = _number(value)
        elif key.startswith("__metadata:"):
            name = key[len("__metadata:") :]
            if name.endswith("[]"):
                if value.strip():
                    items = [item.strip().replace("\\,", ",") for item in _ITEM_COMMA.split(value)]
                    metadata[name[:-2]] = [item for item in items if item]
            elif value.strip():
                metadata[name] = value
        elif key.startswith("__config:"):
            parts = key.split(":")
            if len(parts) == 3 and value.strip():
                configs.append((parts[1], parts[2], value.strip()))
        else:
            variables[key] = value
    for assertion in asserts:
        if metric:
            assertion["metric"] = metric
    for column, field, value in configs:
        # __expected names the first assertion; __expectedN the Nth
        index = positions.get(column)
        if column == "__expected" and index is None:
            index = 0 if asserts else None
        if index is not None and index < len(asserts):
            assertion = asserts[index]
            assertion[field] = _number(value) if field in ("threshold", "weight") else value
    test.update({"vars": variables, "assert": asserts, "options": options})
    if metadata:
        test["metadata"] = metadata
    return test


def _number(text: str) -> float | int:
    """``Number.parseFloat``: an int when whole."""
    match = re.match(r"\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text)
    if not match:
        return float("nan")
    number = float(match.group(0))
    return int(number) if number.is_integer() else number


def iter_csv_tests(path: Path, warn: Callable[[str], None]) -> Iterator[dict[str, Any]]:
    """The tests of a CSV file, one per row, described ``Row #N`` unless ``__description`` says."""
    for index, row in enumerate(_rows(path), start=1):
        test = case_from_row(row, warn)
        test.setdefault("description", f"Row #{index}")
        yield test


def _rows(path: Path) -> Iterator[dict[str, str]]:
    """Rows read with strict quoting, or relaxed quoting when strict reading fails (as promptfoo)."""
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            # A pass to check quoting; rows are re-read lazily below to keep memory flat.
            for _ in csv.reader(handle, strict=True):
                pass
        strict = True
    except csv.Error:
        strict = False
    except OSError as exc:
        raise ConfigError(f"cannot read tests file: {exc.strerror}", file=path) from None
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle, strict=strict)
        header = next(reader, None)
        if header is None:
            return
        for cells in reader:
            if not cells:
                continue
            cells = (cells + [""] * len(header))[: len(header)]
            yield dict(zip(header, cells, strict=True))
