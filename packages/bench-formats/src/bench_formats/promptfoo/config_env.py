"""promptfoo's load-time ``{{ env.NAME }}`` rendering of a config (``renderConfigEnvTemplates``).

promptfoo renders env templates all over a YAML/JSON config as it reads it: first the config's
``env:`` values over the process environment alone, then the whole config over the process
environment with those values on top. Each ``{{ ... }}`` tag is rendered only if it reads ``env``
and names a value that is set (or has a filter); any other tag (``{{ vars.x }}``, ``{{ prompt }}``,
an unset name) stays as written for test time. It renders each provider of ``providers:`` once
more as it loads it, with the provider's own ``env:`` on top (``loadApiProvider``), and so each
grading provider when a check loads it (``getGradingProvider``). Files the config names (tests,
prompts) are read later, unrendered.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from bench_formats.promptfoo.render import RenderError, render, template_env

#: One ``{{ ... }}`` tag, as ``renderEnvOnlyInObject`` finds them.
_TAG = re.compile(r"\{\{(?:[^}]|\}(?!\}))*\}\}")
_READS_ENV = re.compile(r"\benv\.|env\[")
_ENV_NAME = re.compile(r"env\.(\w+)|env\[['\"]([^'\"]+)['\"]\]")


def render_env_only(value: Any, env: Mapping[str, Any] | None = None) -> Any:
    """``value`` with each ``{{ ... env.NAME ... }}`` tag rendered over ``env`` (what templates see
    as ``env`` when None): a tag naming no value ``env`` has (and with no filter) stays as written,
    and so do tags that do not read ``env``; ``_conversation`` is left alone."""
    if isinstance(value, str):
        if "{{" not in value:
            return value
        shown = template_env() if env is None else env
        return _TAG.sub(lambda match: _env_tag(match.group(0), shown), value)
    if isinstance(value, list):
        return [render_env_only(item, env) for item in value]
    if isinstance(value, dict):
        return {k: v if k == "_conversation" else render_env_only(v, env) for k, v in value.items()}
    return value


def _env_tag(tag: str, env: Mapping[str, Any]) -> str:
    if not _READS_ENV.search(tag):
        return tag
    found = _ENV_NAME.search(tag)
    name = found and (found.group(1) or found.group(2))
    if "|" not in tag and not (name and name in env):
        return tag
    try:
        return render(tag, {"env": dict(env)})
    except RenderError:  # promptfoo logs it at debug level and keeps the tag
        return tag


def render_config_env(config: dict[str, Any]) -> dict[str, Any]:
    """The config as promptfoo's ``readConfig`` leaves it: its ``env:`` rendered over the process
    environment, then everything rendered over the process environment and that ``env:``."""
    config_env = config.get("env")
    if isinstance(config_env, dict) and config_env:
        config_env = render_env_only(config_env, dict(os.environ))
    on_top = config_env if isinstance(config_env, dict) else {}
    rendered = render_env_only(config, {**os.environ, **on_top})
    assert isinstance(rendered, dict)
    return rendered


def render_providers_env(spec: Any, config_env: Mapping[str, Any]) -> Any:
    """``providers:`` as promptfoo's ``loadApiProvider`` renders each: its id, ``config`` and
    ``label`` over the process environment, the config's ``env:`` and the provider's own ``env:``."""
    if isinstance(spec, list):
        return [_provider_env(item, config_env) for item in spec]
    return _provider_env(spec, config_env)


def _provider_env(item: Any, config_env: Mapping[str, Any]) -> Any:
    base = {**os.environ, **config_env}
    if isinstance(item, str):
        return render_env_only(item, base)
    if not isinstance(item, dict):
        return item
    if "id" not in item and len(item) == 1:  # {id: {config...}}
        (provider_id, options) = next(iter(item.items()))
        rendered = _options_env(options or {}, base)
        return {render_env_only(provider_id, {**base, **_own_env(options)}): rendered}
    options = _options_env(item, base)
    if isinstance(item.get("id"), str):
        options["id"] = render_env_only(item["id"], {**base, **_own_env(item)})
    return options


def _own_env(options: Any) -> dict[str, Any]:
    own = options.get("env") if isinstance(options, dict) else None
    return own if isinstance(own, dict) else {}


def _options_env(options: dict[str, Any], base: Mapping[str, Any]) -> dict[str, Any]:
    env = {**base, **_own_env(options)}
    out = dict(options)
    for key in ("config", "label"):
        if key in out:
            out[key] = render_env_only(out[key], env)
    return out


def render_grading_provider(spec: Any) -> Any:
    """A check's provider (an assertion's ``provider``, a test's ``options.provider``) as promptfoo's
    ``getGradingProvider`` loads it: an id string, or a mapping's ``id``, ``config`` and ``label``,
    rendered over what templates see as ``env`` with the provider's own ``env:`` on top; each
    provider of a mapping by kind (``{embedding: ..., text: ...}``) alike."""
    if isinstance(spec, str):
        return render_env_only(spec)
    if not isinstance(spec, dict):
        return spec
    if "id" not in spec:
        return {kind: render_grading_provider(item) for kind, item in spec.items()}
    env = {**template_env(), **_own_env(spec)}
    out = _options_env(spec, env)
    if isinstance(spec["id"], str):
        out["id"] = render_env_only(spec["id"], env)
    return out
