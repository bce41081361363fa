"""Prompts that write a var the Jinja way, ``{{name}}``: bench sends that as text, so say so.

bench's templates take ``{name}``; ``{{name}}`` is how a prompt writes the literal text
``{name}``, and ``{{ name }}`` is no placeholder at all. A user coming from Jinja, promptfoo or
inspect_ai who writes either for one of the task's vars would silently send the braces: each such
spot becomes a warning that ``bench validate`` and ``bench run`` print (rendering is unchanged).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bench.errors import FieldPath
from bench.suite.yamlio import YamlDocument
from bench.templates import render

#: ``{{name}}`` or ``{{ name }}`` (dotted names too) not inside further braces: ``{{{name}}}`` is
#: how a prompt writes the text ``{{name}}`` on purpose.
_DOUBLE = re.compile(r"(?<!\{)\{\{\s*([A-Za-z_]\w*)((?:\.\w+)*)\s*\}\}(?!\})")
MAX_SHOWN = 10


class TemplateWarnings:
    """The warnings of a suite's prompts: the first ``MAX_SHOWN`` kept, the rest counted."""

    def __init__(self) -> None:
        self.shown: list[str] = []
        self.more = 0

    def check(self, doc: YamlDocument, path: FieldPath, template: str, values: Mapping[str, Any]) -> None:
        """Note each ``{{var}}`` of ``template`` whose name is one of ``values`` (the task's vars)."""
        if "{{" not in template:
            return
        for match in _DOUBLE.finditer(template):
            name = match.group(1)
            if name not in values:
                continue
            if len(self.shown) >= MAX_SHOWN:
                self.more += 1
                continue
            written = match.group(0)
            message = (
                f"'{written}' is sent as the text '{render(written, {})}', not the value of var "
                f"'{name}': bench's templates write a var as {{{name}{match.group(2)}}} "
                "(ignore this if you meant the text; see docs/suites.md#templates)"
            )
            self.shown.append(str(doc.error(message, path)))

    def lines(self) -> list[str]:
        """What to print, one warning a line."""
        extra = [f"{self.more} more prompts write a var as {{{{name}}}}"] if self.more else []
        return [*self.shown, *extra]
