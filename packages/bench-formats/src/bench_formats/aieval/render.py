"""AI Eval's ``prompt.Render`` (internal/prompt/render.go), step for step."""

from __future__ import annotations

from typing import Any

from bench_formats.aieval.gotemplate import TemplateError, execute, go_format

_GO_CONSTRUCTS = ("{{.", "{{range", "{{if")


class RenderError(ValueError):
    """What AI Eval reports for the case (every trial of it fails with this message)."""


def render(prompt: dict[str, Any], variables: dict[str, Any] | None) -> str:
    """The prompt's text for one case's ``input``; raises RenderError with AI Eval's message.

    Required variables must be given; defaults fill the others; ``{{key}}`` is replaced by each
    value's text, then, when ``{{.``, ``{{range`` or ``{{if`` remain, the text runs as a Go
    template; otherwise ``{{``/``}}`` must balance. ``gotemplate.Unsupported`` passes through.
    """
    data = dict(variables or {})
    for variable in prompt["variables"]:
        name = variable["name"]
        if not name or name in data:
            continue
        if variable["required"]:
            raise RenderError(f'prompt: missing required variable "{name}"')
        if variable["default"] != "":
            data[name] = variable["default"]
    rendered = str(prompt["template"])
    for key, value in data.items():
        rendered = rendered.replace("{{" + key + "}}", go_format(value))
    if any(construct in rendered for construct in _GO_CONSTRUCTS):
        try:
            return execute(prompt["name"], rendered, data)
        except TemplateError as exc:
            stage = "parse" if "executing" not in str(exc) else "render"
            raise RenderError(f"prompt: {stage} template: {exc}") from None
    _check_delimiters(rendered)
    return rendered


def _check_delimiters(text: str) -> None:
    depth = 0
    i = 0
    while i + 1 < len(text):
        pair = text[i : i + 2]
        if pair == "{{":
            depth += 1
            i += 2
            continue
        if pair == "}}":
            if depth == 0:
                raise RenderError('prompt: unmatched "}}"')
            depth -= 1
            i += 2
            continue
        i += 1
    if depth:
        raise RenderError('prompt: unmatched "{{"')
