"""Tests from a CSV file, as promptfoo's ``src/csv.ts`` reads them (docs/formats/promptfoo.md)."""

from __future__ import annotations

import csv
import math
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
_SPECIAL = (
    "expected",
    "prefix",
    "suffix",
    "description",
    "providerOutput",
    "metric",
    "threshold",
    "metadata",
    "config",
)
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
    """One CSV row as a promptfoo test (``testCaseFromCsvRow``); a bad ``__config`` cell is refused."""
    variables: dict[str, str] = {}
    asserts: list[dict[str, Any]] = []
    configs: dict[int, dict[str, Any]] = {}
    options: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    test: dict[str, Any] = {}
    metric = None
    for raw_key, value in row.items():
        key = raw_key.strip()
        if not key.startswith("__") and any(key.startswith(f"_{k}") for k in _SPECIAL):
            warn(f'You used a single underscore for the key "{key}". Did you mean to use "_{key}" instead?')
        if key.startswith("__expected"):
            if value.strip():
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
            threshold = _finite(value)
            if threshold is not None:
                test["threshold"] = threshold
        elif key.startswith("__metadata:"):
            name = key[len("__metadata:") :]
            if name.endswith("[]"):
                if value.strip():
                    items = _ITEM_COMMA.split(value)
                    metadata[name[:-2]] = [item.strip().replace("\\,", ",") for item in items]
            elif value.strip():
                metadata[name] = value
        elif key.startswith("__config:"):
            _config(key, value, configs, warn)
        else:
            variables[key] = value
    for index, assertion in enumerate(asserts):
        if metric is not None:
            assertion["metric"] = metric
        for field, number in configs.get(index, {}).items():
            assertion[field] = number
            metadata[field] = number
    test.update({"vars": variables, "assert": asserts, "options": options})
    if metadata:
        test["metadata"] = metadata
    return test


def _config(key: str, value: str, configs: dict[int, dict[str, Any]], warn: Callable[[str], None]) -> None:
    """A ``__config:__expected[N]:threshold`` cell into ``configs`` (by assertion index)."""
    parts = key[len("__config:") :].split(":")
    if len(parts) != 2:
        warn(
            f'Invalid __config column format: "{key}". Expected format: '
            "__config:__expected:threshold or __config:__expected<N>:threshold"
        )
        return
    column, field = parts
    match = re.fullmatch(r"__expected(\d+)", column)
    index = 0 if column == "__expected" else int(match.group(1)) - 1 if match else -1
    if index < 0:
        raise ConfigError(f'Invalid expected key "{column}" in __config column')
    if field != "threshold":
        raise ConfigError(f'Invalid config key "{field}" in __config column')
    number = _finite(value)
    if number is None:
        raise ConfigError(f"Invalid numeric value for {field}")
    configs.setdefault(index, {})[field] = number


def _finite(text: str) -> float | int | None:
    """promptfoo's ``parseFiniteNumber``: a whole number as an int; None when not a plain number."""
    text = text.strip()
    if not re.fullmatch(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", text):
        return None
    number = float(text)
    if math.isinf(number):
        return None
    return int(number) if number.is_integer() else number


def iter_csv_tests(path: Path, warn: Callable[[str], None]) -> Iterator[dict[str, Any]]:
    """The tests of a CSV file, one per row, described ``Row #N`` unless ``__description`` says."""
    for index, (line, row) in enumerate(_rows(path), start=1):
        try:
            test = case_from_row(row, warn)
        except ConfigError as exc:
            raise ConfigError(exc.message, file=path, line=line) from None
        test.setdefault("description", f"Row #{index}")
        yield test


#: The largest cell limit every platform's csv module takes (a C long; 32 bits on Windows).
_MAX_CELL = 2**31 - 1


def allow_cells_of(size: int) -> None:
    """Let the csv module read cells of up to ``size`` characters, as promptfoo's parser does
    (Python's default limit is 131,072). The limit is process-wide, so it is only ever raised."""
    wanted = min(size + 1, _MAX_CELL)
    if csv.field_size_limit() < wanted:
        csv.field_size_limit(wanted)


def _rows(path: Path) -> Iterator[tuple[int, dict[str, str]]]:
    """Rows and the line each ends on, read with strict quoting, or relaxed when that fails (as promptfoo)."""
    try:
        allow_cells_of(path.stat().st_size)  # no cell is longer than the file
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
            yield reader.line_num, dict(zip(header, cells, strict=True))
