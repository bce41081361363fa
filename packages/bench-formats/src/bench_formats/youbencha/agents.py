"""The agent CLIs youBencha runs (``src/adapters/*.ts``): their programs and argument lists."""

from __future__ import annotations

import os
from typing import Any

#: Environment variables naming the CLI programs (default: ``copilot`` and ``claude`` on PATH).
PROGRAM_ENV = {"copilot-cli": "BENCH_YOUBENCHA_COPILOT", "claude-code": "BENCH_YOUBENCHA_CLAUDE"}
DEFAULT_PROGRAM = {"copilot-cli": "copilot", "claude-code": "claude"}


def program(agent_type: str) -> str:
    """The CLI's path: ``BENCH_YOUBENCHA_COPILOT`` / ``BENCH_YOUBENCHA_CLAUDE``, else its usual name."""
    return os.environ.get(PROGRAM_ENV[agent_type]) or DEFAULT_PROGRAM[agent_type]


def copilot_args(prompt: str, agent_name: str | None, model: str | None, workspace: str) -> list[str]:
    """copilot-cli.ts ``buildCopilotCommand`` (the ``--log-dir`` under youBencha's artifacts is left out)."""
    args = ["-p", prompt]
    if model:
        args += ["--model", model]
    if agent_name:
        args += ["--agent", agent_name]
    return [*args, "--allow-all-tools", "--allow-all-paths", "--log-level", "all", "--add-dir", workspace]


def claude_args(prompt: str, agent_name: str | None, model: str | None, config: dict[str, Any]) -> list[str]:
    """claude-code.ts ``buildClaudeCommand``: print mode, the config's options, the prompt last."""
    args = ["-p", "--output-format", "text", "--dangerously-skip-permissions", "--verbose"]
    if model:
        args += ["--model", model]
    for key, flag in (
        ("system_prompt", "--system-prompt"),
        ("append_system_prompt", "--append-system-prompt"),
        ("permission_mode", "--permission-mode"),
    ):
        if config.get(key):
            args += [flag, str(config[key])]
    if config.get("allowed_tools"):
        args += ["--allowedTools", ",".join(str(t) for t in config["allowed_tools"])]
    for key, flag in (("max_tokens", "--max-tokens"), ("temperature", "--temperature")):
        if config.get(key) is not None:
            args += [flag, str(config[key])]
    if agent_name:
        prompt = f'Use the "{agent_name}" agent for this task.\n\n{prompt}'
    return [*args, prompt]


def agent_argv(
    agent_type: str, agent_name: str | None, model: str | None, config: dict[str, Any]
) -> list[str]:
    """The command target's argv for a test case's agent; ``{prompt}``/``{workspace}`` are bench's."""
    if agent_type == "copilot-cli":
        return [program(agent_type), *copilot_args("{prompt}", agent_name, model, "{workspace}")]
    return [program(agent_type), *claude_args("{prompt}", agent_name, model, config)]


def judge_argv(
    agent_type: str, prompt: str, agent_name: str | None, model: str | None, workspace: str
) -> list[str]:
    """The judge's argv: youBencha runs its judge through the same adapters."""
    exe = program(agent_type)
    if agent_type == "copilot-cli":
        return [exe, *copilot_args(prompt, agent_name, model, workspace)]
    return [exe, *claude_args(prompt, agent_name, model, {})]
