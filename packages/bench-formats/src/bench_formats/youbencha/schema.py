"""youBencha's zod schemas for test cases and eval configs, with its error texts (``path: message``)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

AGENT_TYPES = ("copilot-cli", "claude-code")
MODELS = (
    "claude-sonnet-4.5",
    "claude-sonnet-4",
    "claude-haiku-4.5",
    "gpt-5",
    "gpt-5.1",
    "gpt-5.1-codex-mini",
    "gpt-5.1-codex",
    "gemini-3-pro-preview",
    "claude-sonnet-4-5-20250929",
)
_WORKSPACE_NAME = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9._-]*$")
_PRIVATE = ("localhost", "127.0.0.1", "0.0.0.0", "::1")
_PRIVATE_PREFIXES = ("192.168.", "10.", "172.16.")


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class _Errors(list[str]):
    def add(self, path: str, message: str) -> None:
        self.append(f"{path}: {message}")

    def type(self, data: dict[str, Any], key: str, expected: str, path: str = "") -> bool:
        """Zod's type check: a missing key is "Required", a wrong one "Expected X, received Y"."""
        where = f"{path}{key}"
        if key not in data:
            self.add(where, "Required")
            return False
        got = _kind(data[key])
        if got != expected:
            self.add(where, f"Expected {expected}, received {got}")
            return False
        return True

    def length(self, value: str, path: str, low: int, high: int, short: str, long: str) -> None:
        if len(value) < low:
            self.add(path, short)
        elif len(value) > high:
            self.add(path, long)


def _public_url(url: str) -> bool:
    if not url.startswith(("http://", "https://")):
        return False
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return False
    return bool(host) and host not in _PRIVATE and not host.startswith(_PRIVATE_PREFIXES)


def _optional(errors: _Errors, data: dict[str, Any], key: str, expected: str, path: str = "") -> bool:
    return key in data and data[key] is not None and errors.type(data, key, expected, path)


def _evaluators(errors: _Errors, data: dict[str, Any], inline_only: bool) -> None:
    if not errors.type(data, "evaluators", "array"):
        return
    items = data["evaluators"]
    if not items:
        errors.add("evaluators", "At least one evaluator is required")
    for i, item in enumerate(items):
        where = f"evaluators.{i}"
        if not isinstance(item, dict):
            errors.add(where, f"Expected object, received {_kind(item)}")
            continue
        if inline_only or "name" in item:
            if errors.type(item, "name", "string", f"{where}."):
                _optional(errors, item, "config", "object", f"{where}.")
                extra = [k for k in item if k not in ("name", "config")]
                if extra and not inline_only:
                    keys = ", ".join(f"'{k}'" for k in extra)
                    errors.add(where, f"Unrecognized key(s) in object: {keys}")
            continue
        if "file" in item:
            if errors.type(item, "file", "string", f"{where}.") and not item["file"]:
                errors.add(f"{where}.file", "Evaluator file path is required")
            extra = [k for k in item if k != "file"]
            if extra:
                errors.add(where, "Unrecognized key(s) in object: " + ", ".join(f"'{k}'" for k in extra))
            continue
        errors.add(where, "Invalid input")


def _meta(errors: _Errors, data: dict[str, Any], what: str) -> None:
    if errors.type(data, "name", "string"):
        errors.length(
            data["name"],
            "name",
            1,
            200,
            f"{what} name is required",
            f"{what} name exceeds maximum length of 200 characters",
        )
    if errors.type(data, "description", "string"):
        errors.length(
            data["description"],
            "description",
            1,
            1000,
            f"{what} description is required",
            f"{what} description exceeds maximum length of 1000 characters",
        )


def _agent(errors: _Errors, data: dict[str, Any]) -> None:
    if not errors.type(data, "agent", "object"):
        return
    agent = data["agent"]
    if "type" not in agent:
        errors.add("agent.type", "Required")
    elif agent["type"] not in AGENT_TYPES:
        errors.add(
            "agent.type",
            f"Invalid enum value. Expected 'copilot-cli' | 'claude-code', received '{agent['type']}'",
        )
    _optional(errors, agent, "agent_name", "string", "agent.")
    if agent.get("model") is not None and agent["model"] not in MODELS:
        choices = " | ".join(f"'{m}'" for m in MODELS)
        errors.add("agent.model", f"Invalid enum value. Expected {choices}, received '{agent['model']}'")
    if not _optional(errors, agent, "config", "object", "agent."):
        return
    config = agent["config"]
    if _optional(errors, config, "prompt", "string", "agent.config."):
        errors.length(
            config["prompt"],
            "agent.config.prompt",
            1,
            50000,
            "Prompt is required",
            "Prompt exceeds maximum length of 50000 characters",
        )
    if _optional(errors, config, "prompt_file", "string", "agent.config.") and not config["prompt_file"]:
        errors.add("agent.config.prompt_file", "Prompt file path is required")
    if config.get("prompt") and config.get("prompt_file"):
        errors.add("agent.config", 'Cannot specify both "prompt" and "prompt_file". Please use only one.')


def test_case_errors(data: Any) -> list[str]:
    """youBencha's ``testCaseConfigSchema`` problems, each ``path: message`` (empty when valid)."""
    errors = _Errors()
    if not isinstance(data, dict):
        errors.add("", f"Expected object, received {_kind(data)}")
        return errors
    _meta(errors, data, "Test case")
    if errors.type(data, "repo", "string"):
        if not data["repo"]:
            errors.add("repo", "Repository URL is required")
        elif not _public_url(data["repo"]):
            errors.add("repo", "Repository must be a valid HTTP(S) URL to a public repository")
    _optional(errors, data, "branch", "string")
    _optional(errors, data, "commit", "string")
    _agent(errors, data)
    if data.get("expected_source") is not None and data["expected_source"] != "branch":
        errors.add("expected_source", 'Invalid literal value, expected "branch"')
    _optional(errors, data, "expected", "string")
    _evaluators(errors, data, inline_only=False)
    _pre_execution(errors, data)
    post_evaluation_errors(errors, data)
    _optional(errors, data, "workspace_dir", "string")
    if _optional(errors, data, "workspace_name", "string"):
        name = data["workspace_name"]
        if not name:
            errors.add("workspace_name", "Workspace name cannot be empty")
        elif len(name) > 100:
            errors.add("workspace_name", "Workspace name exceeds maximum length of 100 characters")
        if name and not _WORKSPACE_NAME.match(name):
            errors.add(
                "workspace_name",
                "Workspace name must start with alphanumeric and contain only letters, numbers, "
                "dots, underscores, and hyphens",
            )
    if _optional(errors, data, "timeout", "number") and not data["timeout"] > 0:
        errors.add("timeout", "Number must be greater than 0")
    if not errors and data.get("expected_source") and not data.get("expected"):
        errors.add("expected", "When expected_source is provided, expected value must also be provided")
    return errors


def eval_config_errors(data: Any) -> list[str]:
    """youBencha's ``evalConfigSchema`` problems (an eval config's evaluators are inline only)."""
    errors = _Errors()
    if not isinstance(data, dict):
        errors.add("", f"Expected object, received {_kind(data)}")
        return errors
    _meta(errors, data, "Eval")
    if errors.type(data, "directory", "string") and not data["directory"]:
        errors.add("directory", "Directory path is required")
    _optional(errors, data, "expected_directory", "string")
    _evaluators(errors, data, inline_only=True)
    post_evaluation_errors(errors, data)
    _optional(errors, data, "output_dir", "string")
    return errors


def _pre_execution(errors: _Errors, data: dict[str, Any]) -> None:
    """``preExecutionConfigSchema``: ``name: script`` and a ``config`` with a ``command``."""
    if not _optional(errors, data, "pre_execution", "array"):
        return
    for i, hook in enumerate(data["pre_execution"]):
        where = f"pre_execution.{i}."
        if not isinstance(hook, dict):
            errors.add(f"pre_execution.{i}", f"Expected object, received {_kind(hook)}")
            continue
        if hook.get("name") != "script":
            got = hook.get("name")
            errors.add(
                f"{where}name",
                "Required" if got is None else f"Invalid enum value. Expected 'script', received '{got}'",
            )
        if not errors.type(hook, "config", "object", where):
            continue
        config = hook["config"]
        at = f"{where}config."
        errors.type(config, "command", "string", at)
        for key, kind in (
            ("args", "array"),
            ("env", "object"),
            ("timeout_ms", "number"),
            ("working_dir", "string"),
        ):
            _optional(errors, config, key, kind, at)
        if isinstance(config.get("args"), list):
            for j, arg in enumerate(config["args"]):
                if not isinstance(arg, str):
                    errors.add(f"{at}args.{j}", f"Expected string, received {_kind(arg)}")
        if isinstance(config.get("env"), dict):
            for key, value in config["env"].items():
                if not isinstance(value, str):
                    errors.add(f"{at}env.{key}", f"Expected string, received {_kind(value)}")
        timeout = config.get("timeout_ms")
        if _kind(timeout) == "number" and timeout <= 0:
            errors.add(f"{at}timeout_ms", "Number must be greater than 0")


POST_EVALUATIONS = ("webhook", "database", "script")
#: Each ``config`` shape of ``postEvaluationConfigSchema``'s union, in its order: key → (kind, default).
_POST_SHAPES: tuple[dict[str, tuple[str, Any]], ...] = (
    {
        "url": ("url", ...),
        "method": ("method", "POST"),
        "headers": ("strings", None),
        "include_artifacts": ("boolean", False),
        "retry_on_failure": ("boolean", True),
        "timeout_ms": ("positive", 5000),
    },
    {
        "type": ("json-file", ...),
        "output_path": ("string", ...),
        "include_full_bundle": ("boolean", True),
        "append": ("boolean", True),
    },
    {
        "command": ("string", ...),
        "args": ("string list", None),
        "env": ("strings", None),
        "timeout_ms": ("positive", 30000),
        "working_dir": ("string", None),
    },
)


def _fits(kind: str, value: Any) -> bool:
    """Whether ``value`` is what the zod type named ``kind`` accepts."""
    if kind in ("boolean", "string"):
        return _kind(value) == kind
    if kind == "positive":
        return _kind(value) == "number" and value > 0
    if kind == "url":  # zod's url(): what `new URL()` parses, a scheme at least
        return isinstance(value, str) and bool(urlsplit(value).scheme)
    if kind == "strings":
        return isinstance(value, dict) and all(isinstance(x, str) for x in value.values())
    if kind == "string list":
        return isinstance(value, list) and all(isinstance(x, str) for x in value)
    if kind == "method":
        return value in ("POST", "PUT", "PATCH")
    return bool(value == kind)  # a literal: "json-file"


def post_evaluation_config(config: dict[str, Any]) -> dict[str, Any] | None:
    """The config as zod's union parses it: the first shape it fits, its defaults filled in and
    other keys dropped; None when it fits none (``Invalid input``)."""
    for shape in _POST_SHAPES:
        parsed: dict[str, Any] = {}
        for key, (kind, default) in shape.items():
            if config.get(key) is None:
                if default is ...:
                    break
                if default is not None:
                    parsed[key] = default
            elif _fits(kind, config[key]):
                parsed[key] = config[key]
            else:
                break
        else:
            return parsed
    return None


def post_evaluation_errors(errors: list[str], data: dict[str, Any]) -> None:
    """``post_evaluation``: each ``{name, config}`` with a name youBencha knows and a config it parses."""
    items = data.get("post_evaluation")
    if items is None:
        return
    if not isinstance(items, list):
        errors.append(f"post_evaluation: Expected array, received {_kind(items)}")
        return
    for i, hook in enumerate(items):
        if not isinstance(hook, dict):
            errors.append(f"post_evaluation.{i}: Expected object, received {_kind(hook)}")
            continue
        name = hook.get("name")
        if name not in POST_EVALUATIONS:
            expected = " | ".join(f"'{n}'" for n in POST_EVALUATIONS)
            got = (
                "Required" if name is None else f"Invalid enum value. Expected {expected}, received '{name}'"
            )
            errors.append(f"post_evaluation.{i}.name: {got}")
        config = hook.get("config")
        if not isinstance(config, dict):
            got = "Required" if config is None else f"Expected object, received {_kind(config)}"
            errors.append(f"post_evaluation.{i}.config: {got}")
        elif post_evaluation_config(config) is None:
            errors.append(f"post_evaluation.{i}.config: Invalid input")
