"""Prompts that write a var the Jinja way, ``{{name}}``: bench sends that as text, so say so.

bench's templates take ``{name}``; ``{{name}}`` is how a prompt writes the literal text
``{name}``, and ``{{ name }}`` is no placeholder at all. A user coming from Jinja, promptfoo or
inspect_ai who writes either for one of the task's vars would silently send the braces: each such
spot becomes a warning that ``bench validate`` and ``bench run`` print (rendering is unchanged).
An evaluator's value (bench.suite.variables.evaluator_values) is checked the same way, and a placeholder in
it that names no var, which is compared as written, is warned about too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bench.document import YamlDocument
from bench.vocabulary.errors import FieldPath
from bench.vocabulary.templates import render

#: ``{{name}}`` or ``{{ name }}`` (dotted names too) not inside further braces: ``{{{name}}}`` is
#: how a prompt writes the text ``{{name}}`` on purpose.
_DOUBLE = re.compile(r"(?<!\{)\{\{\s*([A-Za-z_]\w*)((?:\.\w+)*)\s*\}\}(?!\})")
MAX_SHOWN = 10


class TemplateWarnings:
    """The warnings of a suite's prompts: the first ``MAX_SHOWN`` kept, the rest counted."""

    def __init__(self) -> None:
        self.shown: list[str] = []
        #: Warnings past the first ``MAX_SHOWN``, counted by what they say.
        self.more: dict[str, int] = {}

    def check(
        self,
        doc: YamlDocument,
        path: FieldPath,
        template: str,
        values: Mapping[str, Any],
        used: str = "sent",
        what: str = "prompts",
    ) -> None:
        """Note each ``{{var}}`` of ``template`` whose name is one of ``values`` (the task's vars);
        ``used`` says what becomes of the text (sent, compared), ``what`` names it in the count."""
        if "{{" not in template:
            return
        for match in _DOUBLE.finditer(template):
            name = match.group(1)
            if name not in values:
                continue
            written = match.group(0)
            message = (
                f"'{written}' is {used} as the text '{render(written, {})}', not the value of var "
                f"'{name}': bench's templates write a var as {{{name}{match.group(2)}}} "
                "(ignore this if you meant the text; see docs/suites.md#templates)"
            )
            self._note(doc, path, message, f"{what} write a var as {{{{name}}}}")

    def unknown(
        self, doc: YamlDocument, path: FieldPath, subject: str, name: str, values: Mapping[str, Any]
    ) -> None:
        """Note a ``{name}`` of ``subject`` (an evaluator's value) that names none of ``values``."""
        known = ", ".join(sorted(values)) or "none"
        message = (
            f"{subject} '{{{name}}}' names no var of this task (vars given: {known}), so it is "
            "compared as written (see docs/suites.md#templates)"
        )
        self._note(doc, path, message, "evaluator values name no var")

    def _note(self, doc: YamlDocument, path: FieldPath, message: str, counted_as: str) -> None:
        if len(self.shown) >= MAX_SHOWN:
            self.more[counted_as] = self.more.get(counted_as, 0) + 1
            return
        self.shown.append(str(doc.error(message, path)))

    def lines(self) -> list[str]:
        """What to print, one warning a line."""
        return [*self.shown, *(f"{count} more {what}" for what, count in self.more.items())]
