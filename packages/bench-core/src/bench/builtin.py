"""bench-core's own plugin: built-in targets, reporters, the native suite format, the local executor,
the importer of bench's own results JSONL and the container sandbox.

It is registered through the ``bench`` entry-point group like any third-party plugin, each class
by name and import path: a run imports only the targets and reporters it uses (a recorded suite
written to the terminal needs neither the HTML reporter nor the command target's sandboxes).
"""

from __future__ import annotations

from bench.hookspecs import (
    RegisterExecutor,
    RegisterImporter,
    RegisterReporter,
    RegisterSandbox,
    RegisterSuiteLoader,
    RegisterTarget,
    hookimpl,
)
from bench.workspace.container import ContainerSandbox

TARGETS = {
    "recorded": "bench.execution.targets.recorded:RecordedTarget",
    "echo": "bench.execution.targets.echo:EchoTarget",
    "python": "bench.execution.targets.python:PythonTarget",
    "command": "bench.execution.targets.command:CommandTarget",
    "litellm": "bench.execution.targets.litellm_target:LiteLLMTarget",
}
REPORTERS = {
    "json": "bench.report.reporters.json:JsonReporter",
    "jsonl": "bench.report.reporters.jsonl:JsonlReporter",
    "csv": "bench.report.reporters.csv:CsvReporter",
    "junit": "bench.report.reporters.junit:JunitReporter",
    "markdown": "bench.report.reporters.markdown:MarkdownReporter",
    "html": "bench.report.reporters.html:HtmlReporter",
}


@hookimpl
def bench_register_targets(register: RegisterTarget) -> None:
    for name, path in TARGETS.items():
        register(name, path)


@hookimpl
def bench_register_reporters(register: RegisterReporter) -> None:
    for name, path in REPORTERS.items():
        register(name, path)


@hookimpl
def bench_register_suite_loaders(register: RegisterSuiteLoader) -> None:
    register("bench", "bench.suite.native:NativeSuiteLoader")


@hookimpl
def bench_register_executors(register: RegisterExecutor) -> None:
    register("local", "bench.execution.local:LocalExecutor")


@hookimpl
def bench_register_importers(register: RegisterImporter) -> None:
    register("bench", "bench.intake.native:BenchResultsImporter")


@hookimpl
def bench_register_sandboxes(register: RegisterSandbox) -> None:
    register(ContainerSandbox)  # the sandboxes hook takes classes only
