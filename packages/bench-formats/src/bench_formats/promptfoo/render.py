"""promptfoo's Nunjucks rendering, done with sandboxed Jinja2 under Nunjucks' rules.

promptfoo renders with ``autoescape: false``, undefined values as empty text (and members of an
undefined value as undefined), a global ``env`` and a ``load`` filter that is ``JSON.parse``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from bench.vocabulary import excerpt

#: ``{{ name }}``: the first such reference in a var, as promptfoo's ``resolveVariables`` finds it.
_REFERENCE = re.compile(r"\{\{\s*(\w+)\s*\}\}")
RESOLVE_PASSES = 5
#: Config ``env`` values, added to the process environment as the template global ``env``.
_CONFIG_ENV: dict[str, str] = {}
#: The config's own filters (promptfoo's ``nunjucksFilters``), by name.
_CONFIG_FILTERS: dict[str, Callable[..., Any]] = {}


def set_config_env(env: dict[str, Any]) -> None:
    """Set the config's ``env:`` (shown to templates as ``env`` over the process environment)."""
    _CONFIG_ENV.clear()
    _CONFIG_ENV.update({str(k): str(v) for k, v in env.items()})
    _environment.cache_clear()
    _compile.cache_clear()


def set_config_filters(filters: dict[str, Callable[..., Any]]) -> None:
    """Set the config's own filters (``nunjucksFilters``), seen by every template from now on."""
    _CONFIG_FILTERS.clear()
    _CONFIG_FILTERS.update(filters)
    _environment.cache_clear()
    _compile.cache_clear()


@lru_cache(maxsize=1)
def _environment() -> Any:
    from jinja2 import ChainableUndefined
    from jinja2.sandbox import SandboxedEnvironment

    from bench_formats.promptfoo import loops

    env = SandboxedEnvironment(autoescape=False, undefined=ChainableUndefined, keep_trailing_newline=True)
    loops.install(env)
    env.filters["load"] = json.loads
    env.filters["dump"] = json.dumps
    env.filters.update(_CONFIG_FILTERS)
    env.globals["env"] = {**os.environ, **_CONFIG_ENV}
    env.finalize = _output
    return env


def template_env() -> dict[str, str]:
    """What templates see as ``env``: the process environment and the config's ``env:``."""
    return dict(_environment().globals["env"])


def _output(value: Any) -> Any:
    """What ``{{ value }}`` writes, as Nunjucks does: null empty, true as ``true``, lists joined."""
    if isinstance(value, str) or value is None or type(value).__name__.endswith("Undefined"):
        return "" if value is None else value
    return _js_string(value)


@lru_cache(maxsize=256)
def _compile(template: str) -> Any:
    from bench_formats.promptfoo import loops

    env = _environment()
    return env.from_string(loops.rewrite(env.parse(template)))


def has_template(text: str) -> bool:
    """Whether ``text`` holds Nunjucks syntax (plain text renders as itself)."""
    return "{{" in text or "{%" in text or "{#" in text


#: A template whose only syntax is ``{{ name }}`` references: rendered without Jinja (same output).
_SIMPLE = re.compile(r"\{\{\s*([A-Za-z_]\w*)\s*\}\}")


def render(template: str, values: dict[str, Any]) -> str:
    """Render one Nunjucks template over ``values``."""
    if not has_template(template):
        return template
    rest = _SIMPLE.sub("", template)
    if not has_template(rest) and not any(mark in rest for mark in ("}}", "%}", "#}")):
        return _SIMPLE.sub(lambda m: _substitute(values, m.group(1)), template)
    from jinja2 import TemplateError

    try:
        return str(_compile(template).render(values))
    except TemplateError as exc:
        shown = excerpt(template, 60, ellipsis="...")
        raise RenderError(f"cannot render template {shown!r}: {exc}") from None


def _substitute(values: dict[str, Any], name: str) -> str:
    """What Jinja writes for ``{{ name }}`` (see ``_output``)."""
    value = values[name] if name in values else _environment().globals.get(name)
    if isinstance(value, str):
        return value
    return "" if value is None else _js_string(value)


class RenderError(ValueError):
    """A template that Nunjucks would reject."""


def render_value(value: Any, values: dict[str, Any]) -> Any:
    """A string rendered, each string of a list rendered, anything else unchanged."""
    if isinstance(value, str):
        return render(value, values)
    if isinstance(value, list):
        return [render(item, values) if isinstance(item, str) else item for item in value]
    return value


def render_in_object(value: Any, values: dict[str, Any]) -> Any:
    """Every string inside a JSON value rendered (promptfoo's ``renderVarsInObject``)."""
    if isinstance(value, str):
        return render(value, values)
    if isinstance(value, list):
        return [render_in_object(item, values) for item in value]
    if isinstance(value, dict):
        return {key: render_in_object(item, values) for key, item in value.items()}
    return value


def render_vars(variables: dict[str, Any]) -> dict[str, Any]:
    """Each string var rendered with the vars, as promptfoo's ``renderPrompt`` does before a text
    (not JSON) prompt: a var naming a name no var has stays as written (``Hi {{ name }}``), other
    values are unchanged. A RenderError names the var it is about."""
    rendered = {}
    for key, value in variables.items():
        if not isinstance(value, str) or references_undefined(value, variables):
            rendered[key] = value
            continue
        try:
            rendered[key] = render(value, variables)
        except RenderError as exc:
            raise RenderError(f"var '{key}': {exc}") from None
    return rendered


#: promptfoo's ``extractVariablesFromTemplate``: names in ``{{ name }}`` and ``{% if/for name %}``.
_NAMED = re.compile(r"\{\{[\s]*([^{}\s|]+)[\s]*(?:\|[^}]+)?\}\}|\{%[\s]*(?:if|for)[\s]+([^{}\s]+)[\s]*.*?%\}")
_ROOT = re.compile(r"[A-Za-z_]\w*")


def references_undefined(template: str, values: dict[str, Any]) -> bool:
    """Whether ``template`` names a var ``values`` lacks (``env`` aside): promptfoo's
    ``referencesUndefinedVariables``, which leaves such a var unrendered."""
    template = re.sub(r"\{#[\s\S]*?#\}", "", template)
    for match in _NAMED.finditer(template):
        root = _ROOT.match(match.group(1) or match.group(2))
        if root and root.group(0) != "env" and root.group(0) not in values:
            return True
    return False


def _stripped(variables: dict[str, Any]) -> dict[str, Any]:
    """One trailing newline removed from each string var (``value.replace(/\\n$/, "")``)."""
    return {
        key: value[:-1] if isinstance(value, str) and value.endswith("\n") else value
        for key, value in variables.items()
    }


def finish_vars(variables: dict[str, Any]) -> dict[str, Any]:
    """A trailing newline stripped from string vars, then ``resolveVariables`` (5 passes)."""
    out = _stripped(variables)
    for _ in range(RESOLVE_PASSES):
        changed = False
        for key, value in out.items():
            if not isinstance(value, str):
                continue
            match = _REFERENCE.search(value)
            if match and match.group(1) in out:
                out[key] = value.replace(match.group(0), _js_string(out[match.group(1)]), 1)
                changed = True
        if not changed:
            break
    return out


def _js_string(value: Any) -> str:
    """``String(value)`` as JavaScript writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (dict, list)):
        return "[object Object]" if isinstance(value, dict) else ",".join(_js_string(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def render_prompt(raw: str, variables: dict[str, Any]) -> str:
    """The prompt text promptfoo sends: a JSON prompt rendered string by string with the vars as
    they are (``renderVarsInObject``), then written as ``JSON.stringify(value, null, 2)``; any other
    prompt rendered as a template over the vars rendered with the vars (``render_vars``)."""
    try:
        parsed = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON (or brackets nested past json's reach)
        return render(raw, render_vars(variables))
    return json.dumps(render_in_object(parsed, variables), ensure_ascii=False, indent=2)


def compact_json(value: Any) -> str:
    """``JSON.stringify(value)``."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
