"""The youBencha test case and eval config loaders: each file becomes one native bench task."""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

from bench import ConfigError, SuiteFolder, SuiteLoader, YamlDocument
from bench_formats.reading import json_data, yaml_data
from bench_formats.sniff import near_miss, top_keys
from bench_formats.youbencha import agents, mapping, rc, schema

MAX_CONFIG_BYTES = 1024 * 1024
#: ``URL=PATH`` pairs separated by ``;``: run a test case's repository from a local clone.
REPOS_ENV = "BENCH_YOUBENCHA_REPOS"
DEFAULT_TIMEOUT_MS = 300000


def _parse(path: Path) -> Any:
    """youBencha's ``parseConfig``: ``.json`` is JSON, any other extension YAML."""
    size = path.stat().st_size
    if size > MAX_CONFIG_BYTES:
        raise ConfigError(f"Configuration file too large: {size} bytes (max: {MAX_CONFIG_BYTES})", file=path)
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        try:
            return json_data(path, text)
        except ValueError as exc:
            raise ConfigError(f"Failed to parse JSON: {exc}", file=path) from None
    return yaml_data(path, text)  # bench's YAML errors and limits, with line and column


def _variables(loader: SuiteLoader, data: Any) -> Any:
    variables = rc.load_variables(Path.cwd(), Path.home(), loader.warnings)
    return rc.substitute(data, variables) if variables else data


def _local_repo(url: str) -> str:
    for pair in os.environ.get(REPOS_ENV, "").split(";"):
        source, sep, local = pair.partition("=")
        if sep and source.strip() == url:
            return local.strip()
    return url


class TestCaseLoader(SuiteLoader):
    """A youBencha test case (``repo`` + ``agent`` + ``evaluators``), run as ``yb run`` runs it."""

    name: ClassVar[str] = "youbencha-testcase"

    def claims(self, path: Path) -> bool:
        return {"repo", "agent", "evaluators"} <= top_keys(path)

    def declines(self, path: Path) -> tuple[float, str] | None:
        return near_miss(top_keys(path), ("repo", "agent", "evaluators"), "a youBencha test case")

    def load(self, path: Path) -> YamlDocument:
        data = _variables(self, _parse(path))
        errors = schema.test_case_errors(data)
        if errors:
            raise ConfigError("Invalid test case configuration: " + "; ".join(errors), file=path)
        folder = path.resolve().parent
        rule = self.suite_folder(path)
        agent = data["agent"]
        config = dict(agent.get("config") or {})
        prompt = config.get("prompt")
        if config.get("prompt_file"):
            prompt_path = folder / config["prompt_file"]
            rule.check(prompt_path, f"agent.config.prompt_file {config['prompt_file']}")
            try:
                prompt = prompt_path.read_text(encoding="utf-8")
            except OSError:
                raise ConfigError(
                    f"Prompt file not found: {config['prompt_file']}. Expected at {prompt_path}", file=path
                ) from None
        expected = data.get("expected") if data.get("expected_source") == "branch" else None
        ctx = mapping.Context(folder, rule, expected_branch=expected, warnings=self.warnings)
        target = {
            "type": "command",
            "command": agents.agent_argv(agent["type"], agent.get("agent_name"), agent.get("model"), config),
        }
        task: dict[str, Any] = {
            "id": data["name"],
            "description": data["description"],
            # bench's prompts are templates: youBencha's is text, so its braces are escaped
            "prompt": (prompt or "").replace("{", "{{").replace("}", "}}"),
            "timeout": (data.get("timeout") or DEFAULT_TIMEOUT_MS) / 1000,
            "metadata": {"youbencha": {"agent": agent["type"], "kind": "test case"}},
            "evaluate": [mapping.evaluator(e, ctx) for e in data["evaluators"]],
        }
        suite: dict[str, Any] = {
            "name": data["name"],
            "description": data["description"],
            "repo": _local_repo(data["repo"]),
            "target": target,
            "tasks": [task],
        }
        if data.get("commit"):
            suite["ref"] = data["commit"]
        elif data.get("branch"):
            suite["branch"] = data["branch"]
        if data.get("pre_execution"):
            target.update(preexec_target(target["command"], data, folder))
        if data.get("post_evaluation"):
            suite["after_task"] = posteval_step(data, path, agent["type"])
        if data.get("workspace_dir") or data.get("workspace_name"):
            suite.update(placement(data, rule, path))
        return YamlDocument(path=path, data=suite, root=None)


class EvalConfigLoader(SuiteLoader):
    """A youBencha eval config (``directory`` + ``evaluators``): ``yb eval`` on a local folder."""

    name: ClassVar[str] = "youbencha-eval"

    def claims(self, path: Path) -> bool:
        keys = top_keys(path)
        return {"directory", "evaluators"} <= keys and "tasks" not in keys

    def declines(self, path: Path) -> tuple[float, str] | None:
        return near_miss(top_keys(path), ("directory", "evaluators"), "a youBencha eval config")

    def load(self, path: Path) -> YamlDocument:
        data = _variables(self, _parse(path))
        errors = schema.eval_config_errors(data)
        if errors:
            raise ConfigError("Invalid eval configuration: " + "; ".join(errors), file=path)
        directory = (Path.cwd() / data["directory"]).resolve()
        if not directory.is_dir():
            raise ConfigError(f"Directory not found: {directory}", file=path)
        expected_dir = None
        if data.get("expected_directory"):
            found = (Path.cwd() / data["expected_directory"]).resolve()
            expected_dir = str(found) if found.is_dir() else None
        git_skip = None if (directory / ".git").exists() else mapping.NOT_A_REPO
        ctx = mapping.Context(
            path.resolve().parent,
            self.suite_folder(path),
            expected_dir=expected_dir,
            git_skip=git_skip,
            local=True,
            warnings=self.warnings,
        )
        evaluate = [mapping.evaluator(e, ctx) for e in data["evaluators"]]
        artifacts: dict[str, Any] = {}
        bases = {
            str((e.get("config") or {}).get("base_commit") or "HEAD")
            for e in data["evaluators"]
            if e["name"] == "git-diff"
        }
        if git_skip is None and bases:
            from bench_formats.youbencha.localdiff import folder_diff

            if len(bases) > 1:
                raise ConfigError(
                    "git-diff evaluators with different base_commit values: give one", file=path
                )
            try:
                files = folder_diff(directory, bases.pop())
            except (RuntimeError, OSError) as exc:  # youBencha: git-diff is skipped on any error
                evaluate = [
                    mapping.skipped(e["name"], str(exc)) if e.get("type") == "git-diff" else e
                    for e in evaluate
                ]
            else:
                artifacts["diff"] = {"files": files}
        task: dict[str, Any] = {
            "id": data["name"],
            "description": data["description"],
            "workspace": str(directory),
            "response": {"output": "", "artifacts": artifacts},
            "metadata": {"youbencha": {"kind": "eval config", "directory": str(directory)}},
            "evaluate": evaluate,
        }
        if data.get("post_evaluation"):
            task["after_task"] = posteval_step(data, path, None)
        suite = {"name": data["name"], "description": data["description"], "tasks": [task]}
        return YamlDocument(path=path, data=suite, root=None)


def preexec_target(agent: Sequence[str], data: dict[str, Any], folder: Path) -> dict[str, Any]:
    """The command target running the test case's ``pre_execution`` hooks, then its agent."""
    # imported here, not with the package: ``python -m`` of a module its package already
    # imported makes runpy warn on the wrapper's stderr, which is the task's error text
    from bench_formats.youbencha import preexec

    spec = {
        "hooks": data["pre_execution"],
        "test_case": data["name"],
        "repo": data["repo"],
        "branch": data.get("branch") or "",
        "suite_dir": str(folder),
    }
    return {
        "command": [sys.executable, "-m", "bench_formats.youbencha.preexec", "--", *agent],
        "env": {preexec.ENV: json.dumps(spec)},
    }


def placement(data: dict[str, Any], rule: SuiteFolder, path: Path) -> dict[str, Any]:
    """``workspace_dir``/``workspace_name`` as ``generateWorkspacePaths`` reads them: the folder
    resolved against the working directory (default ``.youbencha-workspace``), which must lie
    inside the test case's folder (B06) unless --allow-outside-root."""
    written = data.get("workspace_dir") or ".youbencha-workspace"
    folder = (Path.cwd() / written).resolve()
    real = rule.escape(folder)
    if real is not None:
        what = f"workspace_dir {written}"
        raise ConfigError(rule.refusal(what, real, "a test case may only place its workspace"), file=path)
    found: dict[str, Any] = {"workspace_dir": str(folder)}
    if data.get("workspace_name"):
        found["workspace_name"] = data["workspace_name"]
    return found


def posteval_step(data: dict[str, Any], path: Path, agent_type: str | None) -> dict[str, Any]:
    """The ``after_task`` command running the file's ``post_evaluation`` hooks (posteval.py)."""
    hooks = [
        {"name": h["name"], "config": schema.post_evaluation_config(h["config"])}
        for h in data["post_evaluation"]
    ]
    spec = {
        "hooks": hooks,
        "agent_type": agent_type or "none",
        "cwd": str(Path.cwd()),  # youBencha resolves working_dir and output_path against it
        "placed": bool(data.get("workspace_dir") or data.get("workspace_name")),
        "test_case": {
            "name": data["name"],
            "description": data["description"],
            "config_file": str(path),
            "config_hash": config_hash(data),
            "repo": data.get("repo") or "",
            "branch": data.get("branch") or "unknown",
        },
    }
    return {
        "command": [sys.executable, "-m", "bench_formats.youbencha.posteval"],
        "env": {"BENCH_YOUBENCHA_POST_EVALUATION": json.dumps(spec)},
        "timeout": max(_hook_limit_s(h["name"], h["config"]) for h in hooks),
    }


def _hook_limit_s(name: str, config: dict[str, Any]) -> float:
    """How long a hook may take in youBencha (they run at once): the step's limit is the longest."""
    if name == "script":  # timeout_ms, then SIGKILL 2 s after SIGTERM
        return float(config["timeout_ms"]) / 1000 + 5
    if name == "webhook":  # each try within timeout_ms, 1 s and 2 s between tries
        tries = 3 if config["retry_on_failure"] else 1
        return tries * float(config["timeout_ms"]) / 1000 + 3 + 5
    return 30.0  # database: one local file write


def config_hash(data: dict[str, Any]) -> str:
    """``generateConfigHash``'s form (sha256 of the config as JSON, 16 hex digits) over the file's
    data as read; youBencha hashes its parsed config, so the digits differ."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]
