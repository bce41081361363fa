"""``pairwise`` and ``n_wise``: judges that compare several responses to one task.

They do not judge a single response: ``bench compare RUN_A RUN_B --judge '{type: pairwise, ...}'``
shows them the runs' responses to each task, in every order (bench's rotation), and turns their
rankings into win rates and a Bradley-Terry ranking. Labels (A, B, ...) hide which run wrote what.
``n_wise`` is AgentClash's method: its own orders (``samples`` of them, rotated cyclically with
``position_debiasing`` when there are at least as many samples as responses, else all the same).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from bench import EvaluatorError, Result, Sample
from bench.llm import Judge, JudgeConfig, LLMClient, ask_verdict, data_rule, delimit
from bench_llm_judge import prompts
from bench_llm_judge.agentclash_spec import NWiseConfig
from bench_llm_judge.methods import system_message

#: AgentClash's ``nwiseMaxAgents``: labels are the letters A..Z.
MAX_RESPONSES = 26


class PairVerdict(BaseModel):
    """The better of two responses."""

    reason: str = Field(description="A short reason.")
    winner: Literal["A", "B", "tie"] = Field(description="A, B, or tie when neither is better.")


class RankEntry(BaseModel):
    agent_label: str = Field(description="The response's label (A, B, ...).")
    rank: int = Field(ge=1, description="1 for the best; equally good responses share a rank.")
    reasoning: str = Field(default="", description="Why this rank.")


class RankingVerdict(BaseModel):
    """A rank for every response shown."""

    ranking: list[RankEntry] = Field(description="One entry per response label.")
    reason: str = Field(default="", description="A short overall reason.")


def label(position: int) -> str:
    return chr(ord("A") + position)


def shown_block(shown: Sequence[str]) -> tuple[str, list[str]]:
    """The responses as labelled data blocks, and the system rules that say they are data."""
    blocks, rules = [], []
    for position, text in enumerate(shown):
        block, tag = delimit(text, f"response-{label(position)}")
        blocks.append(f"Response {label(position)}:\n{block}")
        rules.append(data_rule(tag))
    return "\n\n".join(blocks), rules


def ranks_from(verdict: RankingVerdict, size: int) -> list[float]:
    """A rank per position; every label exactly once, ranks within 1..size (as AgentClash requires)."""
    ranks: dict[int, float] = {}
    for entry in verdict.ranking:
        position = ord(entry.agent_label.strip().upper()[:1] or "?") - ord("A")
        if len(entry.agent_label.strip()) != 1 or not 0 <= position < size:
            raise EvaluatorError(f"the judge ranked an unknown label {entry.agent_label!r}")
        if position in ranks:
            raise EvaluatorError(f"the judge ranked label {label(position)} twice")
        if entry.rank > size:
            raise EvaluatorError(f"the judge gave rank {entry.rank} to one of {size} responses")
        ranks[position] = float(entry.rank)
    missing = [label(p) for p in range(size) if p not in ranks]
    if missing:
        raise EvaluatorError(f"the judge did not rank {', '.join(missing)}")
    return [ranks[p] for p in range(size)]


class RankerMixin:
    """What ``pairwise`` and ``n_wise`` share: they only compare, through ``bench compare``."""

    name: ClassVar[str]

    async def evaluate(self, sample: Sample) -> Result:
        raise EvaluatorError(
            f"{self.name} compares the responses of several runs to one task: "
            f"use bench compare RUN_A RUN_B --judge '{{type: {self.name}, ...}}'"
        )


class PairwiseConfig(JudgeConfig):
    """Settings of ``pairwise``."""

    criteria: str = "Prefer the response that answers the task more correctly, completely and clearly."
    """What makes a response better."""


class Pairwise(RankerMixin, Judge[PairwiseConfig]):
    """Compares two (or more) runs' responses to each task: which is better, or a tie.

    With two responses the judge names A, B or tie; with more it ranks them (ties share a rank).
    Every model of ``models`` answers ``samples`` times; the mean rank per response decides.
    """

    name = "pairwise"
    Config = PairwiseConfig
    Verdict = PairVerdict
    prompt_version = prompts.PROMPT_VERSION
    example = """
    # bench compare RUN_A RUN_B --judge '{type: pairwise, model: openai/gpt-4o-mini}'
    name: pairwise-example
    target: {type: echo}
    tasks:
      - id: capital
        prompt: "The capital of France is Paris."
        evaluate: {type: contains, value: Paris}
    """

    def messages_for(self, prompt: str, shown: Sequence[str]) -> list[dict[str, Any]]:
        block, rules = shown_block(shown)
        instruction = prompts.PAIRWISE_TWO if len(shown) == 2 else prompts.PAIRWISE_MANY
        text = prompts.PAIRWISE.format_map(
            {"criteria": self.config.criteria, "task": prompt, "responses": block}
        )
        return [
            {"role": "system", "content": prompts.SYSTEM + " ".join(rules)},
            {"role": "user", "content": f"{text}\n\n{instruction}"},
        ]

    async def rank(self, prompt: str, shown: Sequence[str], llm: LLMClient, index: int) -> list[float]:
        config = self.config
        messages = self.messages_for(prompt, shown)
        two = len(shown) == 2
        runs: list[list[float]] = []
        for model in config.judges:
            for sample in range(config.samples):
                verdict, _raw = await ask_verdict(
                    llm,
                    PairVerdict if two else RankingVerdict,
                    messages,
                    model=model,
                    api_base=config.api_base,
                    api_key_env=config.api_key_env,
                    index=index * config.samples + sample,
                    mode=config.structured,
                    params={"temperature": config.temperature} if config.temperature is not None else {},
                )
                if isinstance(verdict, PairVerdict):
                    runs.append({"A": [1.0, 2.0], "B": [2.0, 1.0], "tie": [1.0, 1.0]}[verdict.winner])
                else:
                    assert isinstance(verdict, RankingVerdict)
                    runs.append(ranks_from(verdict, len(shown)))
        return [statistics.fmean(r[k] for r in runs) for k in range(len(shown))]


class NWise(RankerMixin, Judge[NWiseConfig]):
    """AgentClash's ``n_wise``: one call ranks every run's response to a task, ``samples`` times.

    With ``position_debiasing`` and at least as many samples as responses, sample ``s`` shows
    the responses shifted cyclically by ``s``; otherwise every sample shows the same order (and
    a warning says so when debiasing was asked for). Several ``models``: the first is used, as
    in AgentClash.
    """

    name = "n_wise"
    Config = NWiseConfig
    Verdict = RankingVerdict
    prompt_version = prompts.AGENTCLASH_VERSION
    example = """
    # bench compare RUN_A RUN_B --judge '{type: n_wise, prompt: Which is right?, model: openai/gpt-4o-mini}'
    name: n-wise-example
    target: {type: echo}
    tasks:
      - id: capital
        prompt: "The capital of France is Paris."
        evaluate: {type: contains, value: Paris}
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.warnings: list[str] = []

    def orderings(self, size: int) -> list[tuple[int, ...]]:
        if size > MAX_RESPONSES:
            raise EvaluatorError(f"n_wise supports at most {MAX_RESPONSES} agents per run (got {size})")
        samples = self.config.samples
        identity = tuple(range(size))
        if not self.config.position_debiasing:
            return [identity] * samples
        if samples < size:
            warning = (
                f"position_debiasing requires samples >= N_agents (got samples={samples}, N={size}); "
                "falling back to fixed ordering"
            )
            if warning not in self.warnings:
                self.warnings.append(warning)
            return [identity] * samples
        return [tuple((slot + s % size) % size for slot in range(size)) for s in range(samples)]

    async def rank(self, prompt: str, shown: Sequence[str], llm: LLMClient, index: int) -> list[float]:
        config = self.config
        if len(config.judges) > 1:
            warning = f"multi-model n_wise uses the first model {config.judges[0]!r}"
            if warning not in self.warnings:
                self.warnings.append(warning)
        block, rules = shown_block(shown)
        text = prompts.N_WISE.format_map({"prompt": config.prompt, "task": prompt, "responses": block})
        messages = [
            {"role": "system", "content": system_message(config) + " ".join(rules)},
            {"role": "user", "content": text},
        ]
        verdict, _raw = await ask_verdict(
            llm,
            RankingVerdict,
            messages,
            model=config.judges[0],
            api_base=config.api_base,
            api_key_env=config.api_key_env,
            index=index,
            mode=config.structured,
            params={"temperature": config.temperature} if config.temperature is not None else {},
        )
        return ranks_from(verdict, len(shown))
