"""AgentClash's ``{{var}}`` case templates (``runtime/challengepack/case_template.go``), as the
prompt_eval executor renders them: lenient, so an unresolved placeholder stays literal."""

from __future__ import annotations

import json
import re
from typing import Any

_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}\}")
_BENCH_TOKEN = re.compile(r"\{([A-Za-z_][\w.]*)\}")


def context(payload: dict[str, Any], inputs: list[dict[str, Any]]) -> dict[str, Any]:
    """The template context: the case payload, then its inputs' values (inputs win)."""
    ctx = dict(payload)
    for item in inputs:
        key = str(item.get("key") or "").strip()
        if key and item.get("value") is not None:
            ctx[key] = item["value"]
    return ctx


def render(template: str, ctx: dict[str, Any]) -> str:
    """Replace the placeholders that resolve; leave the others as they were written."""

    def substitute(match: re.Match[str]) -> str:
        value: Any = ctx
        for segment in match.group(1).strip().split("."):
            if not segment or not isinstance(value, dict) or segment not in value:
                return match.group(0)
            value = value[segment]
        return _text(value)

    return _PLACEHOLDER.sub(substitute, template)


def _text(value: Any) -> str:
    """Go's formatCaseTemplateValue: floats as %f with trailing zeros cut, the rest as JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:f}".rstrip("0").rstrip(".")
    encoded = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    # Go's json.Marshal escapes these for HTML.
    return encoded.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def literal(text: str) -> str:
    """``text`` written so that bench's ``{name}`` templates send it unchanged."""
    return _BENCH_TOKEN.sub(lambda m: "{{" + m.group(1) + "}}", text)
