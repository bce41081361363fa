"""Registers bench-agent's evaluator types and the ``agent`` target through the ``bench`` entry points."""

from __future__ import annotations

from bench import RegisterEvaluator, RegisterTarget, hookimpl
from bench_agent.diffs import GitDiff
from bench_agent.expected import ExpectedDiff
from bench_agent.hacking.evaluators import CHECKS, RewardHacking
from bench_agent.judges import ConfidenceCalibration, TaskCompletion
from bench_agent.loop import AgentTarget
from bench_agent.signals import ErrorCascade, ExplorationEfficiency, RecoveryBehavior, ScopeAdherence
from bench_agent.trajectories import Efficiency, ToolSelection, Trajectory


@hookimpl
def bench_register_evaluators(register: RegisterEvaluator) -> None:
    for evaluator in (
        GitDiff,
        ExpectedDiff,
        TaskCompletion,
        ToolSelection,
        Efficiency,
        Trajectory,
        RecoveryBehavior,
        ExplorationEfficiency,
        ErrorCascade,
        ScopeAdherence,
        ConfidenceCalibration,
        *CHECKS.values(),
        RewardHacking,
    ):
        register(evaluator)


@hookimpl
def bench_register_targets(register: RegisterTarget) -> None:
    register(AgentTarget)
