"""promptfoo's assertion types, one module per family; ``REGISTRY`` maps a base type to its check."""

from __future__ import annotations

from bench_formats.promptfoo.checks.base import Check, Grade
from bench_formats.promptfoo.checks.finish import CHECKS as _FINISH
from bench_formats.promptfoo.checks.guardrails import CHECKS as _GUARDRAILS
from bench_formats.promptfoo.checks.html_checks import CHECKS as _HTML
from bench_formats.promptfoo.checks.json_checks import CHECKS as _JSON
from bench_formats.promptfoo.checks.metrics import CHECKS as _METRICS
from bench_formats.promptfoo.checks.overlap import CHECKS as _OVERLAP
from bench_formats.promptfoo.checks.refusal import CHECKS as _REFUSAL
from bench_formats.promptfoo.checks.sql import CHECKS as _SQL
from bench_formats.promptfoo.checks.text import CHECKS as _TEXT
from bench_formats.promptfoo.checks.tools_call import CHECKS as _TOOLS
from bench_formats.promptfoo.checks.words import CHECKS as _WORDS
from bench_formats.promptfoo.checks.xml_checks import CHECKS as _XML

#: Deterministic checks by base type (``not-`` stripped).
REGISTRY: dict[str, Check] = {
    **_TEXT, **_JSON, **_SQL, **_METRICS, **_XML, **_HTML, **_WORDS, **_FINISH, **_REFUSAL,
    **_OVERLAP, **_TOOLS, **_GUARDRAILS,
}  # fmt: skip

__all__ = ["REGISTRY", "Check", "Grade"]
