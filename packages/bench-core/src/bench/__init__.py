"""bench: evaluate what LLMs and agents produce.

This module is the contract a plugin author needs: the evaluator, target, reporter, executor
and suite-loader base classes with the types they take and return, ``hookimpl`` and the
``Register*`` hook types, bench's errors, and the Python API (``bench.load``, ``bench.run``,
``bench.arun``: docs/python-api.md). The rest of the public API is in documented submodules
(docs/plugins.md, "What bench exports"): ``bench.llm`` (model calls, judges, the tool loop),
``bench.workspace`` (an agent's workspace: git, confined reads, tools), ``bench.vocabulary``
(quoting, JSON and template helpers), ``bench.evidence`` (evidence references),
``bench.distributed`` (running a plan elsewhere: bench-ray's plumbing) and ``bench.testing``.
Plugins import nothing else from bench; every other module's layout may change.

Names load on first use so that ``bench --help`` stays instant. The names that moved to a
submodule still work here for one release, with a ``DeprecationWarning`` naming their new place.
"""

from __future__ import annotations

import importlib
import warnings
from typing import TYPE_CHECKING, Any

from bench.vocabulary import lazy_exports
from bench.vocabulary.version import __version__

if TYPE_CHECKING:
    from bench.api import LoadedSuite as LoadedSuite
    from bench.api import RunKeywords as RunKeywords
    from bench.api import RunResult as RunResult
    from bench.api import arun as arun
    from bench.api import load as load
    from bench.api import run as run
    from bench.document import YamlDocument as YamlDocument
    from bench.document import load_yaml as load_yaml
    from bench.evaluator import Evaluator as Evaluator
    from bench.evaluator import EvaluatorConfig as EvaluatorConfig
    from bench.evaluator import Result as Result
    from bench.evaluator import Sample as Sample
    from bench.executor import Executor as Executor
    from bench.executor import ExecutorSettings as ExecutorSettings
    from bench.executor import Job as Job
    from bench.executor import Sink as Sink
    from bench.hookspecs import RegisterEvaluator as RegisterEvaluator
    from bench.hookspecs import RegisterExecutor as RegisterExecutor
    from bench.hookspecs import RegisterReporter as RegisterReporter
    from bench.hookspecs import RegisterSuiteLoader as RegisterSuiteLoader
    from bench.hookspecs import RegisterTarget as RegisterTarget
    from bench.hookspecs import hookimpl as hookimpl
    from bench.reporter import Reporter as Reporter
    from bench.suite.selection.narrowing import Selection as Selection
    from bench.suite_loader import SuiteFolder as SuiteFolder
    from bench.suite_loader import SuiteLoader as SuiteLoader
    from bench.target import SuiteContext as SuiteContext
    from bench.target import Target as Target
    from bench.target import TargetConfig as TargetConfig
    from bench.vocabulary.errors import BenchError as BenchError
    from bench.vocabulary.errors import ConfigError as ConfigError
    from bench.vocabulary.errors import EvaluatorError as EvaluatorError
    from bench.vocabulary.errors import PluginError as PluginError
    from bench.vocabulary.errors import TargetError as TargetError
    from bench.vocabulary.models import Response as Response
    from bench.vocabulary.models import Task as Task
    from bench.vocabulary.results import RunReport as RunReport
    from bench.vocabulary.results import Summary as Summary
    from bench.vocabulary.results import TaskResult as TaskResult

#: name -> the module that defines it
_EXPORTS = {
    # the hooks
    "hookimpl": "bench.hookspecs",
    "RegisterEvaluator": "bench.hookspecs",
    "RegisterTarget": "bench.hookspecs",
    "RegisterReporter": "bench.hookspecs",
    "RegisterSuiteLoader": "bench.hookspecs",
    "RegisterExecutor": "bench.hookspecs",
    # evaluators
    "Evaluator": "bench.evaluator",
    "EvaluatorConfig": "bench.evaluator",
    "Sample": "bench.evaluator",
    "Result": "bench.evaluator",
    # targets, and the task and response every evaluator sees
    "Target": "bench.target",
    "TargetConfig": "bench.target",
    "SuiteContext": "bench.target",
    "Task": "bench.vocabulary.models",
    "Response": "bench.vocabulary.models",
    # reporters
    "Reporter": "bench.reporter",
    "RunReport": "bench.vocabulary.results",
    "Summary": "bench.vocabulary.results",
    "TaskResult": "bench.vocabulary.results",
    # executors
    "Executor": "bench.executor",
    "ExecutorSettings": "bench.executor",
    "Job": "bench.executor",
    "Sink": "bench.executor",
    # suite loaders
    "SuiteLoader": "bench.suite_loader",
    "SuiteFolder": "bench.suite_loader",
    "YamlDocument": "bench.document",
    "load_yaml": "bench.document",
    # errors
    "BenchError": "bench.vocabulary.errors",
    "ConfigError": "bench.vocabulary.errors",
    "EvaluatorError": "bench.vocabulary.errors",
    "TargetError": "bench.vocabulary.errors",
    "PluginError": "bench.vocabulary.errors",
    # the Python API
    "load": "bench.api",
    "run": "bench.api",
    "arun": "bench.api",
    "LoadedSuite": "bench.api",
    "RunResult": "bench.api",
    "RunKeywords": "bench.api",
    "Selection": "bench.suite.selection.narrowing",
}

#: a name that moved out of ``bench`` -> the public submodule that exports it now
_MOVED = {
    **dict.fromkeys(
        [
            "LLMClient",
            "LLMRequest",
            "LLMResult",
            "Message",
            "ToolCall",
            "ToolMock",
            "Usage",
            "ModelCallError",
            "RunStopped",
            "Judge",
            "JudgeConfig",
            "TemplateJudgeConfig",
            "Vote",
            "framed",
            "ask_verdict",
            "data_rule",
            "delimit",
            "tool_loop",
            "ToolLoopOutcome",
            "parse_tool_call",
            "decode_arguments",
        ],
        "bench.llm",
    ),
    **dict.fromkeys(
        [
            "git",
            "GitError",
            "changes",
            "summarize",
            "list_inside",
            "read_inside",
            "READ_ONLY_TOOLS",
            "Workbench",
            "ToolResult",
            "specs",
            "sandbox",
        ],
        "bench.workspace",
    ),
    **dict.fromkeys(
        [
            "dumps",
            "loads_strict",
            "quoted",
            "excerpt",
            "render",
            "placeholders",
            "MissingPlaceholder",
            "did_you_mean",
        ],
        "bench.vocabulary",
    ),
    **dict.fromkeys(
        [
            "EvidenceUnavailable",
            "NoFiles",
            "as_text",
            "parse_reference",
            "Turn",
            "response_turns",
            "transcript_text",
        ],
        "bench.evidence",
    ),
    **dict.fromkeys(
        [
            "Coordinator",
            "Deltas",
            "LeaseBook",
            "Leases",
            "LocalCoordinator",
            "LocalExecutor",
            "Plan",
            "PlannedTask",
            "PlanRow",
            "load_plan",
            "plan_client",
            "serialize_result",
            "statistics_row",
            "land_captures",
            "run_killable",
        ],
        "bench.distributed",
    ),
    "load_suite": "bench.testing",
}

__all__ = ["__version__", *_EXPORTS]


_exported = lazy_exports("bench", _EXPORTS)


def __getattr__(name: str) -> Any:
    moved = _MOVED.get(name)
    if moved is None:
        return _exported(name)
    warnings.warn(
        f"bench.{name} is deprecated: import it from {moved} ({moved}.{name}); "
        f"bench.{name} will be removed in the next release",
        DeprecationWarning,
        stacklevel=2,
    )
    return getattr(importlib.import_module(moved), name)
