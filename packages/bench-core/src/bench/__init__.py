"""bench: evaluate what LLMs and agents produce.

This module is the public API for plugin authors and for running suites from Python
(``bench.load``, ``bench.run``, ``bench.arun``: docs/python-api.md): everything a plugin needs is
importable from ``bench`` (plugins never import ``bench.<folder>`` modules, whose layout may
change). Names load on first use so that ``bench --help`` stays instant. ``bench.testing`` is
the public API for testing a plugin.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from bench.version import __version__

if TYPE_CHECKING:
    from bench.api import LoadedSuite as LoadedSuite
    from bench.api import RunKeywords as RunKeywords
    from bench.api import RunResult as RunResult
    from bench.api import arun as arun
    from bench.api import load as load
    from bench.api import load_plan as load_plan
    from bench.api import plan_client as plan_client
    from bench.api import run as run
    from bench.document import YamlDocument as YamlDocument
    from bench.document import load_yaml as load_yaml
    from bench.evaluator import Evaluator as Evaluator
    from bench.evaluator import EvaluatorConfig as EvaluatorConfig
    from bench.evaluator import Result as Result
    from bench.evaluator import Sample as Sample
    from bench.evidence import EvidenceUnavailable as EvidenceUnavailable
    from bench.evidence import NoFiles as NoFiles
    from bench.evidence import as_text as as_text
    from bench.evidence import parse_reference as parse_reference
    from bench.execution.killable import run_killable as run_killable
    from bench.execution.local import LocalExecutor as LocalExecutor
    from bench.execution.sink import serialize_result as serialize_result
    from bench.execution.sink import statistics_row as statistics_row
    from bench.executor import Executor as Executor
    from bench.executor import ExecutorSettings as ExecutorSettings
    from bench.executor import Job as Job
    from bench.executor import Sink as Sink
    from bench.hookspecs import RegisterEvaluator as RegisterEvaluator
    from bench.hookspecs import RegisterExecutor as RegisterExecutor
    from bench.hookspecs import RegisterImporter as RegisterImporter
    from bench.hookspecs import RegisterReporter as RegisterReporter
    from bench.hookspecs import RegisterSuiteLoader as RegisterSuiteLoader
    from bench.hookspecs import RegisterTarget as RegisterTarget
    from bench.hookspecs import hookimpl as hookimpl
    from bench.importer import ImportedRun as ImportedRun
    from bench.importer import ImportedTask as ImportedTask
    from bench.importer import Importer as Importer
    from bench.importer import ImportSource as ImportSource
    from bench.importer import JsonLines as JsonLines
    from bench.llm.client import LLMClient as LLMClient
    from bench.llm.judge import Judge as Judge
    from bench.llm.judge import JudgeConfig as JudgeConfig
    from bench.llm.judge import TemplateJudgeConfig as TemplateJudgeConfig
    from bench.llm.judge import Vote as Vote
    from bench.llm.judge import framed as framed
    from bench.llm.limits.coordination import Coordinator as Coordinator
    from bench.llm.limits.coordination import Deltas as Deltas
    from bench.llm.limits.coordination import LeaseBook as LeaseBook
    from bench.llm.limits.coordination import Leases as Leases
    from bench.llm.limits.coordination import LocalCoordinator as LocalCoordinator
    from bench.llm.request import LLMRequest as LLMRequest
    from bench.llm.request import LLMResult as LLMResult
    from bench.llm.tool_loop import ToolLoopOutcome as ToolLoopOutcome
    from bench.llm.tool_loop import tool_loop as tool_loop
    from bench.llm.verdict import ask_verdict as ask_verdict
    from bench.llm.verdict import data_rule as data_rule
    from bench.llm.verdict import delimit as delimit
    from bench.reporter import Reporter as Reporter
    from bench.suite.loader import load_suite as load_suite
    from bench.suite.plan import Plan as Plan
    from bench.suite.plan import PlannedTask as PlannedTask
    from bench.suite.plan import PlanRow as PlanRow
    from bench.suite.selection.narrowing import Selection as Selection
    from bench.suite_loader import SuiteFolder as SuiteFolder
    from bench.suite_loader import SuiteLoader as SuiteLoader
    from bench.target import SuiteContext as SuiteContext
    from bench.target import Target as Target
    from bench.target import TargetConfig as TargetConfig
    from bench.vocabulary.errors import BenchError as BenchError
    from bench.vocabulary.errors import ConfigError as ConfigError
    from bench.vocabulary.errors import EvaluatorError as EvaluatorError
    from bench.vocabulary.errors import ModelCallError as ModelCallError
    from bench.vocabulary.errors import PluginError as PluginError
    from bench.vocabulary.errors import RunStopped as RunStopped
    from bench.vocabulary.errors import TargetError as TargetError
    from bench.vocabulary.errors import did_you_mean as did_you_mean
    from bench.vocabulary.jsonio import dumps as dumps
    from bench.vocabulary.jsonio import loads_strict as loads_strict
    from bench.vocabulary.models import Message as Message
    from bench.vocabulary.models import Response as Response
    from bench.vocabulary.models import Task as Task
    from bench.vocabulary.models import ToolCall as ToolCall
    from bench.vocabulary.models import ToolMock as ToolMock
    from bench.vocabulary.models import Usage as Usage
    from bench.vocabulary.redact import excerpt as excerpt
    from bench.vocabulary.redact import quoted as quoted
    from bench.vocabulary.results import EvaluatorOutcome as EvaluatorOutcome
    from bench.vocabulary.results import RunReport as RunReport
    from bench.vocabulary.results import Summary as Summary
    from bench.vocabulary.results import TaskResult as TaskResult
    from bench.vocabulary.templates import MissingPlaceholder as MissingPlaceholder
    from bench.vocabulary.templates import placeholders as placeholders
    from bench.vocabulary.templates import render as render
    from bench.vocabulary.tool_calls import decode_arguments as decode_arguments
    from bench.vocabulary.tool_calls import parse_tool_call as parse_tool_call
    from bench.workspace import sandbox as sandbox
    from bench.workspace.captures import land_captures as land_captures
    from bench.workspace.checkout import changes as changes
    from bench.workspace.checkout import summarize as summarize
    from bench.workspace.confined import list_inside as list_inside
    from bench.workspace.confined import read_inside as read_inside
    from bench.workspace.git import GitError as GitError
    from bench.workspace.git import git as git
    from bench.workspace.tools import READ_ONLY_TOOLS as READ_ONLY_TOOLS
    from bench.workspace.tools import ToolResult as ToolResult
    from bench.workspace.tools import Workbench as Workbench
    from bench.workspace.tools import specs as specs


#: name -> the module that defines it
_EXPORTS = {
    "hookimpl": "bench.hookspecs",
    "RegisterEvaluator": "bench.hookspecs",
    "RegisterTarget": "bench.hookspecs",
    "RegisterReporter": "bench.hookspecs",
    "RegisterSuiteLoader": "bench.hookspecs",
    "RegisterExecutor": "bench.hookspecs",
    "RegisterImporter": "bench.hookspecs",
    "Importer": "bench.importer",
    "ImportSource": "bench.importer",
    "ImportedRun": "bench.importer",
    "ImportedTask": "bench.importer",
    "JsonLines": "bench.importer",
    "BenchError": "bench.vocabulary.errors",
    "ConfigError": "bench.vocabulary.errors",
    "did_you_mean": "bench.vocabulary.errors",
    "EvaluatorError": "bench.vocabulary.errors",
    "PluginError": "bench.vocabulary.errors",
    "TargetError": "bench.vocabulary.errors",
    "Evaluator": "bench.evaluator",
    "EvaluatorConfig": "bench.evaluator",
    "Result": "bench.evaluator",
    "Sample": "bench.evaluator",
    "Target": "bench.target",
    "TargetConfig": "bench.target",
    "SuiteContext": "bench.target",
    "Message": "bench.vocabulary.models",
    "Response": "bench.vocabulary.models",
    "Task": "bench.vocabulary.models",
    "ToolCall": "bench.vocabulary.models",
    "ToolMock": "bench.vocabulary.models",
    "Usage": "bench.vocabulary.models",
    "EvidenceUnavailable": "bench.evidence",
    "NoFiles": "bench.evidence",
    "as_text": "bench.evidence",
    "parse_reference": "bench.evidence",
    "excerpt": "bench.vocabulary.redact",
    "quoted": "bench.vocabulary.redact",
    "Reporter": "bench.reporter",
    "RunReport": "bench.vocabulary.results",
    "Summary": "bench.vocabulary.results",
    "TaskResult": "bench.vocabulary.results",
    "EvaluatorOutcome": "bench.vocabulary.results",
    "SuiteLoader": "bench.suite_loader",
    "YamlDocument": "bench.document",
    "load_yaml": "bench.document",
    "SuiteFolder": "bench.suite_loader",
    "dumps": "bench.vocabulary.jsonio",
    "loads_strict": "bench.vocabulary.jsonio",
    "MissingPlaceholder": "bench.vocabulary.templates",
    "placeholders": "bench.vocabulary.templates",
    "render": "bench.vocabulary.templates",
    "LLMClient": "bench.llm.client",
    "Coordinator": "bench.llm.limits.coordination",
    "Deltas": "bench.llm.limits.coordination",
    "LeaseBook": "bench.llm.limits.coordination",
    "Leases": "bench.llm.limits.coordination",
    "LocalCoordinator": "bench.llm.limits.coordination",
    "LLMRequest": "bench.llm.request",
    "LLMResult": "bench.llm.request",
    "ModelCallError": "bench.vocabulary.errors",
    "RunStopped": "bench.vocabulary.errors",
    "Judge": "bench.llm.judge",
    "JudgeConfig": "bench.llm.judge",
    "TemplateJudgeConfig": "bench.llm.judge",
    "Vote": "bench.llm.judge",
    "framed": "bench.llm.judge",
    "decode_arguments": "bench.vocabulary.tool_calls",
    "parse_tool_call": "bench.vocabulary.tool_calls",
    "ToolLoopOutcome": "bench.llm.tool_loop",
    "tool_loop": "bench.llm.tool_loop",
    "ask_verdict": "bench.llm.verdict",
    "data_rule": "bench.llm.verdict",
    "delimit": "bench.llm.verdict",
    "run_killable": "bench.execution.killable",
    "changes": "bench.workspace.checkout",
    "summarize": "bench.workspace.checkout",
    "list_inside": "bench.workspace.confined",
    "read_inside": "bench.workspace.confined",
    "GitError": "bench.workspace.git",
    "git": "bench.workspace.git",
    "READ_ONLY_TOOLS": "bench.workspace.tools",
    "Workbench": "bench.workspace.tools",
    "ToolResult": "bench.workspace.tools",
    "specs": "bench.workspace.tools",
    "run": "bench.api",
    "arun": "bench.api",
    "load": "bench.api",
    "LoadedSuite": "bench.api",
    "RunKeywords": "bench.api",
    "RunResult": "bench.api",
    "Selection": "bench.suite.selection.narrowing",
    "Plan": "bench.suite.plan",
    "PlannedTask": "bench.suite.plan",
    "PlanRow": "bench.suite.plan",
    "land_captures": "bench.workspace.captures",
    "load_suite": "bench.suite.loader",
    "Executor": "bench.executor",
    "ExecutorSettings": "bench.executor",
    "Job": "bench.executor",
    "Sink": "bench.executor",
    "LocalExecutor": "bench.execution.local",
    "serialize_result": "bench.execution.sink",
    "statistics_row": "bench.execution.sink",
    "load_plan": "bench.api",
    "plan_client": "bench.api",
}
#: modules exported whole: name -> module
_MODULES = {"sandbox": "bench.workspace.sandbox"}

__all__ = ["__version__", *_EXPORTS, *(name for name in _MODULES if name not in _EXPORTS)]


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(_MODULES[name])
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'bench' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
