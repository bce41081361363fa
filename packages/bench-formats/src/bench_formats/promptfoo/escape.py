"""Text made safe from bench's own ``{name}`` templates: a rendered promptfoo prompt is final."""

from __future__ import annotations

import re

#: bench's placeholder syntax: ``{{name}}`` writes ``{name}``, ``{name}`` a value.
_TOKEN = re.compile(r"\{\{([A-Za-z_][\w.]*)\}\}|\{([A-Za-z_][\w]*(?:\.\w+)*)\}")


def escape(text: str) -> str:
    """``text`` written so that bench's renderer gives it back unchanged."""
    if "{" not in text:
        return text
    return _TOKEN.sub(lambda m: "{{{" + m.group(1) + "}}}" if m.group(1) else "{{" + m.group(2) + "}}", text)
