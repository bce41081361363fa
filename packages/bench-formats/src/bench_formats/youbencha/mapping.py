"""youBencha evaluator entries as bench evaluator entries (native suite data)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import ConfigError, SuiteFolder
from bench_formats.reading import json_data, yaml_data

GIT_DIFF_LIMITS = (
    "max_files_changed",
    "max_lines_added",
    "max_lines_removed",
    "max_total_changes",
    "min_change_entropy",
    "max_change_entropy",
)
NOT_A_REPO = "Git repository not found or not accessible"
NO_EXPECTED = "Expected reference directory not available or not accessible"


@dataclass
class Context:
    """What mapping an evaluator needs to know about its test case or eval config."""

    folder: Path
    """The test case's folder (``file:`` and ``prompt_file`` resolve against it)."""
    #: Where the files the evaluators name must lie (bench's suite-folder rule).
    rule: SuiteFolder
    #: test case: the expected branch; eval config: None.
    expected_branch: str | None = None
    #: eval config: the expected directory (absolute); test case: None.
    expected_dir: str | None = None
    #: eval config: why git-diff skips (the folder is no git repository root), or None.
    git_skip: str | None = None
    #: eval config: the diff of the local folder is recorded when the config is loaded.
    local: bool = False
    warnings: list[str] = field(default_factory=list)


def is_judge(name: str) -> bool:
    """youBencha's orchestrator: ``agentic-judge``, ``agentic-judge-X`` and ``agentic-judge:X``."""
    return name == "agentic-judge" or name.startswith(("agentic-judge-", "agentic-judge:"))


def skipped(name: str, reason: str) -> dict[str, Any]:
    # weight 0: a skipped evaluator neither passes nor fails the task, and has no say in its score
    return {"name": name, "type": "youbencha-skipped", "evaluator": name, "reason": reason, "weight": 0}


def definition(ref: str, folder: Path) -> dict[str, Any] | None:
    """A definition file's ``{name, config}`` when it is a plain valid one; None lets bench's own
    ``{file:}`` reading report the problem in youBencha's words."""
    path = (folder / ref).resolve()
    try:
        text = path.read_text(encoding="utf-8")
        data = json_data(path, text) if path.suffix.lower() == ".json" else yaml_data(path, text)
    except (OSError, ValueError, ConfigError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return None
    if not isinstance(data.get("config", {}), (dict, type(None))) or set(data) - {
        "name",
        "description",
        "config",
    }:
        return None
    return {"name": data["name"], "config": data.get("config") or {}}


def _dropped(name: str, keys: list[str], ctx: Context) -> None:
    if keys:
        ctx.warnings.append(f"evaluator '{name}': youBencha ignores {', '.join(keys)}; dropped")


def _git_diff(name: str, config: dict[str, Any], ctx: Context) -> dict[str, Any]:
    if ctx.git_skip is not None:
        return skipped(name, ctx.git_skip)
    found = config.get("assertions")
    assertions: dict[str, Any] = found if isinstance(found, dict) else {}
    kept = {k: v for k, v in assertions.items() if k in GIT_DIFF_LIMITS and v is not None}
    dropped = [k for k in config if k not in ("assertions", "base_commit")]
    dropped += [f"assertions.{k}" for k in assertions if k not in GIT_DIFF_LIMITS]
    _dropped(name, dropped, ctx)
    entry: dict[str, Any] = {"name": name, "type": "git-diff", "assertions": kept}
    if config.get("base_commit") and not ctx.local:  # a local folder's diff is recorded at load
        entry["base_commit"] = config["base_commit"]
    return entry


def _expected_diff(name: str, config: dict[str, Any], ctx: Context) -> dict[str, Any]:
    if ctx.expected_branch is None and ctx.expected_dir is None:
        return skipped(name, NO_EXPECTED)
    entry: dict[str, Any] = {"name": name, "type": "expected-diff"}
    if ctx.expected_branch is not None:
        entry["reference_branch"] = ctx.expected_branch
    else:
        entry["reference_dir"] = ctx.expected_dir
    threshold = config.get("threshold")
    if threshold:  # youBencha: `threshold || 0.80`, so 0 means 0.80 (bench's default)
        entry["threshold"] = threshold
    _dropped(name, [k for k in config if k != "threshold"], ctx)
    return entry


def _judge(name: str, config: dict[str, Any], ctx: Context) -> dict[str, Any]:
    config = dict(config)
    if config.get("prompt") and config.get("prompt_file"):
        raise ConfigError(
            f'Evaluator "{name}": Cannot specify both "prompt" and "prompt_file". Please use only one.'
        )
    if config.get("prompt_file"):
        written = str(config.pop("prompt_file"))
        prompt_path = ctx.rule.check(ctx.folder / written, f"evaluator '{name}' prompt_file {written}")
        config["prompt"] = prompt_path.read_text(encoding="utf-8")
    assertions = config.get("assertions") or config.get("criteria")
    if config.get("model") and isinstance(assertions, dict) and not config.get("type"):
        # a model, no agent CLI: bench-llm-judge's agentic-judge through bench's LLM client
        entry = {"name": name, "type": "agentic-judge", "assertions": assertions, "model": config["model"]}
        _dropped(name, [k for k in config if k not in ("model", "assertions", "criteria")], ctx)
        return entry
    entry = {"name": name, "type": "youbencha-agentic-judge"}
    if config.get("type") is not None:
        entry["agent_type"] = config["type"]  # `type:` is bench's evaluator type
    for key in ("agent_name", "assertions", "criteria", "prompt", "instructions-file", "timeout"):
        if config.get(key) is not None:
            entry[key] = config[key]
    if config.get("model"):
        entry["agent_model"] = config["model"]
    return entry


def evaluator(entry: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """One youBencha evaluator entry (``{name, config}`` or ``{file}``) as a bench entry."""
    if "file" in entry:
        ctx.rule.check(ctx.folder / str(entry["file"]), f"evaluators file {entry['file']}")
        found = definition(str(entry["file"]), ctx.folder)
        if found is None:
            return {"file": str((ctx.folder / str(entry["file"])).resolve())}
        entry = found
    name = str(entry["name"])
    config = entry.get("config") or {}
    if name == "git-diff":
        return _git_diff(name, config, ctx)
    if name == "expected-diff":
        return _expected_diff(name, config, ctx)
    if is_judge(name):
        return _judge(name, config, ctx)
    return skipped(name, f"Unknown evaluator: {name}")
