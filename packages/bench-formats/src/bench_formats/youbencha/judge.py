"""youBencha's agentic-judge run the way youBencha runs it: an agent CLI reads the workspace and answers."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

from pydantic import Field

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample
from bench.vocabulary import excerpt
from bench.workspace import OfflineRefused, child_prefix
from bench_formats.youbencha.agents import judge_argv
from bench_formats.youbencha.outcome import skipped

_FENCED = re.compile(r"```(?:json)?\s*\n?([\s\S]*?)\n?```")
_LOOSE = re.compile(r'\{[\s\S]*?"status"[\s\S]*?"metrics"[\s\S]*?"message"[\s\S]*?\}')
_FLAT = re.compile(r'\{[^{}]*"status"[^{}]*"metrics"[^{}]*"message"[^{}]*\}')
DEFAULT_TIMEOUT_MS = 300000


class AgentJudgeConfig(EvaluatorConfig):
    """Settings of youbencha-agentic-judge (youBencha's agentic-judge ``config``)."""

    agent_type: str | None = None
    """The agent CLI: copilot-cli or claude-code (youBencha's ``config.type``)."""
    agent_name: str | None = None
    """The agent (copilot ``--agent``; claude: named in the prompt)."""
    agent_model: str | None = None
    """youBencha's judge ``model``, passed to the CLI's ``--model``."""
    assertions: dict[str, Any] | list[Any] | None = None
    """Name → statement (or a list of statements: youBencha's older form)."""
    criteria: dict[str, Any] | list[Any] | None = None
    """youBencha's older name for assertions."""
    prompt: str | None = None
    """Text put before the assertions."""
    instructions_file: str | None = Field(default=None, alias="instructions-file")
    """A template replacing youBencha's own (relative to the working directory)."""
    timeout: float | None = None
    """Milliseconds (default 300000)."""
    program: list[str] | None = None
    """The CLI and any leading arguments (default: the agent type's program, see
    docs/formats/youbencha.md); ``{suite_dir}`` is the suite's folder."""


def assertion_list(assertions: Any) -> str:
    """youBencha's ``formatAssertions``."""
    if isinstance(assertions, list):
        return "\n".join(f"{i + 1}. {a}" for i, a in enumerate(assertions))
    if isinstance(assertions, dict):
        return "\n".join(f"- **{k}**: {v}" for k, v in assertions.items())
    return ""


def judge_prompt(config: AgentJudgeConfig) -> str:
    """youBencha's ``buildEvaluationPrompt``: the template with {{ASSERTIONS}}/{{CRITERIA}} replaced."""
    listed = assertion_list(config.assertions or config.criteria)
    combined = f"{config.prompt}\n\n{listed}" if config.prompt else listed
    if config.instructions_file:
        template = (Path.cwd() / config.instructions_file).read_text(encoding="utf-8")
    elif config.agent_name:
        head = f"{config.prompt}\n\n" if config.prompt else ""
        return f"{head}# Evaluation Assertions:\n{listed}"
    else:
        template = (
            resources.files("bench_formats.youbencha")
            .joinpath("agentic-judge.template.md")
            .read_text("utf-8")
        )
    return template.replace("{{ASSERTIONS}}", combined, 1).replace("{{CRITERIA}}", combined, 1)


def _verdict(text: str) -> dict[str, Any] | None:
    try:
        found = json.loads(text)
    except ValueError:
        return None
    if (
        not isinstance(found, dict)
        or not found.get("status")
        or not found.get("metrics")
        or not found.get("message")
    ):
        return None
    if found["status"] not in ("passed", "failed"):
        return None
    return found


def parse_verdict(output: str) -> dict[str, Any] | None:
    """youBencha's ``parseAgentOutput``: the first of its five strategies that yields a verdict."""
    fenced = _FENCED.search(output)
    if fenced and (found := _verdict(fenced.group(1).strip())):
        return found
    loose = _LOOSE.search(output)
    if loose and (found := _verdict(loose.group(0))):
        return found
    if found := _verdict(output.strip()):
        return found
    last = output.rfind("}")
    if last > 0:
        first = output.rfind("{", 0, last)
        if first >= 0 and (found := _verdict(output[first : last + 1])):
            return found
    for match in reversed(_FLAT.findall(output)):
        if found := _verdict(match):
            return found
    return None


def _offline(argv: list[str], agent_type: str, own_program: bool) -> list[str]:
    """In an offline run (docs/offline.md): the agent CLI's model is off this machine, so the judge
    is skipped with the reason, an error, never youBencha's passing ``skipped``; a ``program`` of
    the suite's own runs in a network namespace of its own. ``argv`` unchanged otherwise."""
    try:
        prefix = child_prefix()
    except OfflineRefused as exc:
        raise EvaluatorError(f"youbencha-agentic-judge: {exc}") from None
    if prefix and not own_program:
        reason = f"offline: youbencha-agentic-judge runs {agent_type}, whose model is not on this machine"
        raise EvaluatorError(reason, details={"skipped_offline": [reason]})
    return [*prefix, *argv]


class AgentJudge(Evaluator[AgentJudgeConfig]):
    """youBencha's agentic-judge: runs the agent CLI in the workspace with the judge template and
    reads its JSON verdict ``{status, metrics, message}``. The status is the judge's; a failed or
    timed-out agent, or an answer without a verdict, is youBencha's ``skipped``."""

    name = "youbencha-agentic-judge"
    Config = AgentJudgeConfig
    example = """
    name: youbencha-judge-example
    tasks:
      - id: readme
        response: "Added a comment to the README."
        evaluate:
          - type: youbencha-agentic-judge
            agent_type: copilot-cli
            program: [python3, "{suite_dir}/judge.py"]
            assertions:
              readme_modified: The README was modified.
    """
    example_files: ClassVar[dict[str, str]] = {
        "judge.py": 'print(\'```json\\n{"status": "passed", "metrics": {"readme_modified": 1}, '
        '"message": "The README has a new comment."}\\n```\')\n'
    }

    async def evaluate(self, sample: Sample) -> Result:
        c = self.config
        label = "agentic-judge"
        if not c.agent_type or not (c.assertions or c.criteria):
            return skipped(
                label,
                "Agent not configured or not available - check agent.type in evaluator config "
                "and ensure agent is installed",
            )
        if c.agent_type not in ("copilot-cli", "claude-code"):
            return skipped(label, f"Unknown adapter type: {c.agent_type}")
        folder = sample.task.workspace or str(Path.cwd())
        argv = judge_argv(c.agent_type, judge_prompt(c), c.agent_name, c.agent_model, folder)
        if c.program:
            suite_dir = str(self.folder or Path.cwd())
            argv = [*(p.replace("{suite_dir}", suite_dir) for p in c.program), *argv[1:]]
        argv = _offline(argv, c.agent_type, bool(c.program))
        timeout = (c.timeout or DEFAULT_TIMEOUT_MS) / 1000
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                cwd=folder,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            return skipped(label, f"Agent execution failed: {exc}")
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout)
        except asyncio.TimeoutError:
            os.killpg(proc.pid, signal.SIGKILL)
            await proc.wait()
            return skipped(label, "Agent execution timed out")
        output = out.decode("utf-8", "replace")
        if proc.returncode != 0:
            why = err.decode("utf-8", "replace").strip() or f"exit code {proc.returncode}"
            return skipped(label, f"Agent execution failed: {why}")
        verdict = parse_verdict(output)
        if verdict is None:
            preview = excerpt(output, 500, ellipsis="").replace("\n", " ")
            return skipped(
                label,
                "Agent output is not valid JSON or missing required fields (status, metrics, message). "
                f'Output preview: "{preview}..."',
            )
        metrics = verdict["metrics"]
        scores = [
            float(v) for v in metrics.values() if isinstance(v, (int, float)) and not isinstance(v, bool)
        ]
        score = sum(scores) / len(scores) if scores else None
        passed = verdict["status"] == "passed"
        details = {
            "youbencha_status": verdict["status"],
            "assertions": metrics,
            "message": verdict["message"],
        }
        return Result(passed, score, str(verdict["message"]), details)
