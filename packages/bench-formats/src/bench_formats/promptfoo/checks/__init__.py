"""promptfoo's assertion types, one module per family; ``REGISTRY`` maps a base type to its check."""

from __future__ import annotations

from bench_formats.promptfoo.checks.base import Check, Grade
from bench_formats.promptfoo.checks.json_checks import CHECKS as _JSON
from bench_formats.promptfoo.checks.metrics import CHECKS as _METRICS
from bench_formats.promptfoo.checks.sql import CHECKS as _SQL
from bench_formats.promptfoo.checks.text import CHECKS as _TEXT

#: Deterministic checks by base type (``not-`` stripped).
REGISTRY: dict[str, Check] = {**_TEXT, **_JSON, **_SQL, **_METRICS}

__all__ = ["REGISTRY", "Check", "Grade"]
