"""bench-core's own plugin: built-in targets, reporters, the native suite format, the local executor,
the importer of bench's own results JSONL and the container sandbox.

It is registered through the ``bench`` entry-point group like any third-party plugin.
"""

from __future__ import annotations

from bench.execution.local import LocalExecutor
from bench.execution.targets.command import BUILT_IN_SANDBOXES, CommandTarget
from bench.execution.targets.echo import EchoTarget
from bench.execution.targets.litellm_target import LiteLLMTarget
from bench.execution.targets.python import PythonTarget
from bench.execution.targets.recorded import RecordedTarget
from bench.hookspecs import (
    RegisterExecutor,
    RegisterImporter,
    RegisterReporter,
    RegisterSandbox,
    RegisterSuiteLoader,
    RegisterTarget,
    hookimpl,
)
from bench.intake.native import BenchResultsImporter
from bench.report.reporters.csv import CsvReporter
from bench.report.reporters.html import HtmlReporter
from bench.report.reporters.json import JsonReporter
from bench.report.reporters.jsonl import JsonlReporter
from bench.report.reporters.junit import JunitReporter
from bench.report.reporters.markdown import MarkdownReporter
from bench.suite.native import NativeSuiteLoader


@hookimpl
def bench_register_targets(register: RegisterTarget) -> None:
    for target in (RecordedTarget, EchoTarget, PythonTarget, CommandTarget, LiteLLMTarget):
        register(target)


@hookimpl
def bench_register_reporters(register: RegisterReporter) -> None:
    register(JsonReporter)
    register(JsonlReporter)
    register(CsvReporter)
    register(JunitReporter)
    register(MarkdownReporter)
    register(HtmlReporter)


@hookimpl
def bench_register_suite_loaders(register: RegisterSuiteLoader) -> None:
    register(NativeSuiteLoader)


@hookimpl
def bench_register_executors(register: RegisterExecutor) -> None:
    register(LocalExecutor)


@hookimpl
def bench_register_importers(register: RegisterImporter) -> None:
    register(BenchResultsImporter)


@hookimpl
def bench_register_sandboxes(register: RegisterSandbox) -> None:
    for sandbox in BUILT_IN_SANDBOXES:
        register(sandbox)
