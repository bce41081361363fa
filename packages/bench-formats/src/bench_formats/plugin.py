"""Registers bench-formats' suite loaders and evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from bench import RegisterEvaluator, RegisterSuiteLoader, RegisterTarget, hookimpl
from bench.importer import RegisterImporter
from bench_formats import agentclash, aieval, imports, openai_evals, parts, promptfoo, youbencha

FORMATS = (promptfoo, youbencha, agentclash, aieval, openai_evals)


@hookimpl
def bench_register_suite_loaders(register: RegisterSuiteLoader) -> None:
    for fmt in FORMATS:
        for loader in fmt.LOADERS:
            register(loader)
    register(parts.SuitePartLoader)


@hookimpl
def bench_register_evaluators(register: RegisterEvaluator) -> None:
    for fmt in FORMATS:
        for evaluator in fmt.EVALUATORS:
            register(evaluator)


@hookimpl
def bench_register_targets(register: RegisterTarget) -> None:
    for fmt in FORMATS:
        for target in getattr(fmt, "TARGETS", ()):
            register(target)


@hookimpl
def bench_register_importers(register: RegisterImporter) -> None:
    for importer in imports.IMPORTERS:
        register(importer)
