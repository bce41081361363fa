"""promptfoo's JavaScript while the config loads: ``nunjucksFilters`` and ``transformVars``.

Both run in the run's Node.js worker (``node_worker``), synchronously, as promptfoo runs them
before it renders a prompt. Without Node.js a template that uses such a filter, and a test with
``transformVars``, are refused with a message that names them: nothing is rendered differently
from promptfoo.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import ConfigError, EvaluatorError, SuiteFolder
from bench_formats.promptfoo import node_worker, python_transforms
from bench_formats.promptfoo.javascript_checks import transform_label, transform_request, transform_result
from bench_formats.promptfoo.js_context import is_js_file, split_file
from bench_formats.promptfoo.node_worker import JsError, JsValue, NodeFailed, NodeMissing
from bench_formats.promptfoo.paths import expand
from bench_formats.promptfoo.render import set_config_filters

Warn = Callable[[str], None]


def install_filters(spec: Any, config: Path, folder: SuiteFolder, warn: Warn) -> None:
    """Make the config's ``nunjucksFilters`` (name -> path or glob of a JavaScript file, relative
    to the config) the filters every template sees. As promptfoo's ``readFilters``, a path is
    globbed as written: ``file://x.js`` matches no file, so that filter does not exist."""
    filters: dict[str, Callable[..., Any]] = {}
    if spec is not None and not isinstance(spec, dict):
        raise ConfigError(
            "nunjucksFilters is a mapping of filter names to JavaScript files",
            file=config,
            field=("nunjucksFilters",),
        )
    for name, pattern in (spec or {}).items():
        if not isinstance(pattern, str):
            raise ConfigError(
                f"nunjucksFilters: '{name}' is the path of a JavaScript file, not {type(pattern).__name__}",
                file=config,
                field=("nunjucksFilters", name),
            )
        files = expand(pattern, config.parent, folder, f"nunjucksFilters reads {pattern}")
        if not files:
            hint = " (promptfoo reads these paths without file://)" if pattern.startswith("file://") else ""
            warn(
                f"nunjucksFilters: '{name}' names {pattern}, which matches no file{hint}: "
                "a template that uses the filter fails to render"
            )
            continue
        filters[str(name)] = _filter(str(name), files[-1])  # the last match wins, as in promptfoo
    set_config_filters(filters)


def _filter(name: str, path: Path) -> Callable[..., Any]:
    """A Jinja filter that calls the file's exported function in Node.js with (value, ...args)."""

    def run(value: Any, *args: Any) -> Any:
        from jinja2 import TemplateRuntimeError

        what = f"filter '{name}' ({path.name})"
        request = {"op": "file", "path": str(path), "name": None, "pick": "function"}
        try:
            result = node_worker.worker().call({**request, "args": [_plain(value), *map(_plain, args)]})
        except NodeMissing:
            raise TemplateRuntimeError(node_worker.missing_message(what)) from None
        except NodeFailed as exc:
            raise TemplateRuntimeError(f"{what}: did not run: {exc}") from None
        except JsError as exc:
            raise TemplateRuntimeError(f"{what}: {exc.message}") from None
        return _value(result)

    return run


def _plain(value: Any) -> Any:
    """A template value as JSON data for Node.js (an undefined one is null)."""
    if type(value).__name__.endswith("Undefined"):
        return None
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _value(result: JsValue) -> Any:
    if result.kind == "undefined":
        return None
    return result.number if result.special is not None else result.value


def check_file(code: Any, base: Path, folder: SuiteFolder, what: str) -> None:
    """Refuse a ``file://`` script (``transform``, ``javascript`` value) outside the suite's folder."""
    if isinstance(code, str) and is_js_file(code):
        path = Path(split_file(code)[0])
        folder.check(path if path.is_absolute() else base / path, what)


def transform_vars(
    code: Any, variables: dict[str, Any], config: Path, folder: SuiteFolder, test: str
) -> dict[str, Any]:
    """A test's vars after its ``options.transformVars`` (``vars`` and ``context`` in, an object
    out, merged over the vars), as promptfoo applies it before the var combinations; a
    ``file://x.py`` one runs in the Python worker (``python_transforms``)."""
    what = f"{test}: options.transformVars"
    if not isinstance(code, str):
        raise ConfigError(f"{what} is JavaScript text or a file:// path", file=config)
    if python_transforms.is_python_transform(code):
        return python_transforms.transform_vars(code, variables, config, folder, test)
    if code.startswith("file://") and not is_js_file(code):
        raise ConfigError(
            f"{what}: bench runs JavaScript and Python transforms here, not {code}", file=config
        )
    check_file(code, config.parent, folder, f"{what} reads {code}")
    request = transform_request(
        code, variables, {"prompt": {}, "uuid": str(uuid.uuid4())}, "vars", config.parent
    )
    try:
        result = node_worker.worker(config.parent).call(request)
        value = transform_result(code, result)
    except NodeMissing:
        raise ConfigError(node_worker.missing_message(what), file=config) from None
    except NodeFailed as exc:
        raise ConfigError(f"{what}: did not run: {exc}", file=config) from None
    except JsError as exc:
        raise ConfigError(
            f"{what}: Transform failed ({transform_label(code)}): {exc.message}", file=config
        ) from None
    except EvaluatorError as exc:
        raise ConfigError(f"{what}: {exc}", file=config) from None
    if not isinstance(value, dict):
        raise ConfigError(f"{what}: Transform function did not return a valid object", file=config)
    return {**variables, **value}
