"""youBencha's agentic judge (``agentic-judge:*``): named assertions, each scored 0, 0.5 or 1.

When the task ran in a workspace, the judge is an agent itself: it gets the diff in its prompt and
read-only tools (``read_file``, ``list_dir`` from ``bench.workspace.tools``) to look at the
repository as the agent left it (no new request once ``max_tool_calls`` calls are made; see
that setting), then gives its verdict.
"""

from __future__ import annotations

import statistics
from typing import Any

from pydantic import BaseModel, Field, field_validator

from bench import EvaluatorError, Sample
from bench.llm import Judge, JudgeConfig, LLMClient, LLMRequest, Vote, tool_loop
from bench.workspace import READ_ONLY_TOOLS, Workbench, specs
from bench_llm_judge import prompts


class AgenticJudgeConfig(JudgeConfig):
    """Settings of the agentic judge (youBencha's definition-file fields are accepted as they are)."""

    assertions: dict[str, str] = Field(min_length=1)
    """Name → statement to check, each scored 1 (holds), 0.5 (partly) or 0 (does not)."""
    type: str | None = None
    """youBencha's agent type (``copilot-cli``); recorded, the judge runs through bench's LLM client."""
    agent_name: str | None = None
    """youBencha's agent name; recorded."""
    timeout: int | None = None
    """youBencha's timeout in milliseconds; recorded (bench's task timeout bounds the run)."""
    max_tool_calls: int = Field(default=10, ge=0)
    """With a workspace: how many file reads and listings the judge may make before its verdict.
    The limit is checked before each request to the judge, and the calls the judge asks for in one
    answer are all made: an answer asking for several calls may overrun it by at most that answer's
    calls but one (limit 10: 9 made, then an answer asking for 3 makes 12). 0: no tools."""


#: How much of the diff the judge's prompt holds (it can read files for more).
MAX_DIFF_CHARS = 20_000


class AssertionScore(BaseModel):
    name: str = Field(description="The assertion's name, as given.")
    score: float = Field(description="1 if it holds, 0.5 if partly, 0 if not.")

    @field_validator("score")
    @classmethod
    def _three_levels(cls, value: float) -> float:
        if value not in (0, 0.5, 1):
            raise ValueError("an assertion scores 0, 0.5 or 1")
        return value

    reason: str = Field(description="One sentence.")


class AssertionsVerdict(BaseModel):
    assertions: list[AssertionScore]


class AgenticJudge(Judge[AgenticJudgeConfig]):
    """Scores each named assertion about the response 0, 0.5 or 1 with a reason (youBencha).

    The score is the mean over assertions, and every assertion's score and reason are listed in
    the result. Without ``score_threshold`` the response passes when every assertion scores 1.
    Names such as ``agentic-judge:readme-grammar`` select this type.
    """

    name = "agentic-judge"
    Config = AgenticJudgeConfig
    Verdict = AssertionsVerdict
    system = prompts.SYSTEM
    prompt_version = prompts.PROMPT_VERSION
    lists_verdicts = True
    example = """
    name: agentic-judge-example
    target: {type: echo}
    tasks:
      - id: readme
        prompt: "This repository holds a small HTTP server written in Go."
        evaluate:
          name: agentic-judge:readme-quality
          model: openai/gpt-4o-mini
          assertions:
            grammatically_correct: "The text is grammatically correct."
            explains_purpose: "The text says what the repository is for."
    """

    def messages(self, sample: Sample) -> list[dict[str, Any]]:
        listed = "\n".join(f"- {name}: {text}" for name, text in self.config.assertions.items())
        diff = sample.response.artifacts.get("diff")
        if sample.task.workspace is None and not isinstance(diff, dict):
            return self.framed(prompts.ASSERTIONS, {"assertions": listed, "response": sample.output})
        patch = str(diff.get("patch") or "(no changes)") if isinstance(diff, dict) else "(not recorded)"
        change = f"{patch[:MAX_DIFF_CHARS]}\n\n[final answer]\n{sample.output}"
        values = {"assertions": listed, "response": change, "answer": "(in the block above)"}
        return self.framed(prompts.WORKSPACE_ASSERTIONS, values)

    async def ask(
        self, sample: Sample, llm: LLMClient, model: str, index: int, messages: list[dict[str, Any]]
    ) -> Any:
        workspace = sample.task.workspace
        if workspace is None or self.config.max_tool_calls == 0:
            return await super().ask(sample, llm, model, index, messages)
        explored = await self._explore(llm, model, index, messages, workspace)
        return await super().ask(sample, llm, model, index, explored)

    async def _explore(
        self, llm: LLMClient, model: str, index: int, messages: list[dict[str, Any]], workspace: str
    ) -> list[dict[str, Any]]:
        """Let the judge read the workspace until it stops calling tools; the conversation so far."""
        temperature = self.config.temperature
        request = LLMRequest(
            model=model,
            messages=messages,
            params={
                "tools": specs(READ_ONLY_TOOLS),
                **({"temperature": temperature} if temperature is not None else {}),
            },
            api_base=self.config.api_base,
            api_key_env=self.config.api_key_env,
            purpose="judge",
            index=index,
        )
        done = await tool_loop(
            llm,
            request,
            Workbench(workspace, allowed=READ_ONLY_TOOLS),
            max_calls=self.config.max_tool_calls,
            id_prefix="judge",
            on_error=lambda _turn, exc: EvaluatorError(f"judge {model}: {exc}"),
        )
        return [*done.messages, {"role": "user", "content": "Now give your verdict on every assertion."}]

    def vote(self, sample: Sample, verdict: AssertionsVerdict, model: str) -> Vote:
        scored = {a.name: a for a in verdict.assertions}
        missing = [name for name in self.config.assertions if name not in scored]
        if missing:
            raise EvaluatorError(f"judge {model} did not score the assertions: {', '.join(missing)}")
        items = [scored[name] for name in self.config.assertions]
        score = statistics.fmean(float(a.score) for a in items)
        reason = "; ".join(f"{a.name}: {a.score:g} ({a.reason})" for a in items)
        extra = {"assertions": {a.name: {"score": a.score, "reason": a.reason} for a in items}}
        return Vote(all(a.score == 1 for a in items), score, reason, extra)
