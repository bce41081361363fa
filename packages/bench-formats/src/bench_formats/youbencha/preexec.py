"""youBencha's ``pre_execution`` scripts, run in the task's workspace before its agent starts.

The youBencha loader makes the command target run ``python -m bench_formats.youbencha.preexec --
AGENT ARGV...`` with the hooks in ``BENCH_YOUBENCHA_PRE_EXECUTION``. Each hook runs as
``ScriptPreExecution`` runs it (src/pre-execution/script.ts): through ``/bin/sh -c`` with its
arguments joined by spaces, only ``PATH``, ``HOME``, ``USER``, youBencha's variables and the hook's
``env``, ``${WORKSPACE_DIR}``-style placeholders replaced in the arguments, within ``timeout_ms``.
A failed hook stops the case, as the orchestrator's ``runPreExecutions`` does; then the agent
replaces this process, its standard input (the prompt) untouched. The hooks' output goes to
standard error, so the agent's standard output stays the response.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ENV = "BENCH_YOUBENCHA_PRE_EXECUTION"
#: The exit status of a case whose pre-execution failed (the command target's error shows it).
FAILED = 97
DEFAULT_TIMEOUT_MS = 30000


def hook_env(spec: dict[str, Any], workspace: str, artifacts: str) -> dict[str, str]:
    """The variables a hook sees: youBencha's safe system ones, its own, then the hook's."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", ""),
        "USER": os.environ.get("USER", ""),
        "WORKSPACE_DIR": workspace,
        "REPO_DIR": workspace,
        "ARTIFACTS_DIR": artifacts,
        "TEST_CASE_NAME": spec["test_case"],
        "REPO_URL": spec["repo"],
        "BRANCH": spec.get("branch") or "",
    }


def replaced(args: list[str], variables: dict[str, str]) -> list[str]:
    """``replaceVariables``: each ``${NAME}`` replaced once per argument (JavaScript's ``replace``)."""
    out = []
    for arg in args:
        for name in ("WORKSPACE_DIR", "REPO_DIR", "ARTIFACTS_DIR", "TEST_CASE_NAME", "REPO_URL", "BRANCH"):
            arg = arg.replace("${" + name + "}", variables[name], 1)
        out.append(arg)
    return out


def run_hook(hook: dict[str, Any], spec: dict[str, Any], workspace: str, artifacts: str) -> str | None:
    """Run one hook; None when it succeeded (or was skipped), else youBencha's failure message."""
    config = hook.get("config") or {}
    command = config.get("command") or ""
    if not command.strip():
        print("youBencha pre-execution skipped: Script command is empty", file=sys.stderr)
        return None
    base = hook_env(spec, workspace, artifacts)
    env = {**base, **(config.get("env") or {})}
    line = " ".join([command, *replaced(list(config.get("args") or []), base)])
    timeout_ms = config.get("timeout_ms") or DEFAULT_TIMEOUT_MS
    cwd = Path(spec["suite_dir"], config["working_dir"]) if config.get("working_dir") else Path(workspace)
    try:
        child = subprocess.Popen(
            ["/bin/sh", "-c", line], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=sys.stderr
        )
    except OSError as exc:  # execute() catches what runScript throws: one message for all
        print(f"youBencha pre-execution: {exc}", file=sys.stderr)
        return "Failed to execute script"
    try:
        code = child.wait(timeout=timeout_ms / 1000)
    except subprocess.TimeoutExpired:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(timeout=2)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        print(f"youBencha pre-execution: Script timed out after {timeout_ms:g}ms", file=sys.stderr)
        return "Failed to execute script"
    # Node reports a child killed by a signal with code null, which `code || 0` reads as success.
    if code > 0:
        return f"Script exited with code {code}"
    return None


def main(argv: list[str]) -> int:
    """Run the hooks, then become the agent; returns only when a hook failed or on bad usage."""
    if not argv or argv[0] != "--" or len(argv) < 2:
        print("usage: python -m bench_formats.youbencha.preexec -- AGENT [ARGS...]", file=sys.stderr)
        return 2
    spec = json.loads(os.environ.pop(ENV))
    workspace = os.environ.get("BENCH_WORKSPACE") or os.getcwd()
    with tempfile.TemporaryDirectory(prefix="youbencha-artifacts-") as artifacts:
        failures = [
            failure
            for hook in spec["hooks"]
            if (failure := run_hook(hook, spec, workspace, artifacts)) is not None
        ]
    if failures:
        print(f"Pre-execution failed: {', '.join(failures)}", file=sys.stderr)
        return FAILED
    sys.stdout.flush()
    os.execvp(argv[1], argv[1:])  # the agent replaces this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
