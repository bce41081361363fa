"""Registers bench-agent's evaluator types and the ``agent`` target through the ``bench`` entry points."""

from __future__ import annotations

from bench import RegisterEvaluator, RegisterTarget, hookimpl

# Registered by name and import path: a class is imported when a suite first uses it,
# so bench's start-up does not import every class of the plugin.
EVALUATORS = {
    "git-diff": "bench_agent.diffs:GitDiff",
    "git_diff": "bench_agent.diffs:GitDiff",
    "expected-diff": "bench_agent.expected:ExpectedDiff",
    "expected_diff": "bench_agent.expected:ExpectedDiff",
    "task_completion": "bench_agent.judges:TaskCompletion",
    "tool_selection": "bench_agent.trajectories:ToolSelection",
    "efficiency": "bench_agent.trajectories:Efficiency",
    "trajectory": "bench_agent.trajectories:Trajectory",
    "trajectory_match": "bench_agent.trajectories:Trajectory",
    "recovery_behavior": "bench_agent.signals:RecoveryBehavior",
    "exploration_efficiency": "bench_agent.signals:ExplorationEfficiency",
    "error_cascade": "bench_agent.signals:ErrorCascade",
    "scope_adherence": "bench_agent.signals:ScopeAdherence",
    "confidence_calibration": "bench_agent.judges:ConfidenceCalibration",
    "tests_deleted": "bench_agent.hacking.evaluators:DeletedTests",
    "skips_added": "bench_agent.hacking.evaluators:SkipsAdded",
    "asserts_weakened": "bench_agent.hacking.evaluators:AssertsWeakened",
    "test_files_touched": "bench_agent.hacking.evaluators:TouchedTestFiles",
    "ci_config_edited": "bench_agent.hacking.evaluators:CIConfigEdited",
    "snapshots_rewritten": "bench_agent.hacking.evaluators:SnapshotsRewritten",
    "network_calls_added": "bench_agent.hacking.evaluators:NetworkCallsAdded",
    "grader_files_accessed": "bench_agent.hacking.evaluators:GraderFilesAccessed",
    "reward_hacking": "bench_agent.hacking.evaluators:RewardHacking",
}

TARGETS = {
    "agent": "bench_agent.loop:AgentTarget",
}


@hookimpl
def bench_register_evaluators(register: RegisterEvaluator) -> None:
    for name, path in EVALUATORS.items():
        # none claims a mapping's keys: such a mapping need not import them to ask
        register(name, path, infer_from=())


@hookimpl
def bench_register_targets(register: RegisterTarget) -> None:
    for name, path in TARGETS.items():
        register(name, path)
