"""Registers bench-formats' suite loaders and evaluator types through the ``bench`` entry-point group."""

from __future__ import annotations

from bench import RegisterEvaluator, RegisterSuiteLoader, RegisterTarget, hookimpl
from bench.importer import RegisterImporter

# Registered by name and import path: a class is imported when a suite first uses it,
# so bench's start-up does not import every class of the plugin.
EVALUATORS = {
    "promptfoo": "bench_formats.promptfoo.evaluator:Promptfoo",
    "youbencha-skipped": "bench_formats.youbencha.outcome:Skipped",
    "youbencha-agentic-judge": "bench_formats.youbencha.judge:AgentJudge",
    "aieval_judged": "bench_formats.aieval.judged:AIEvalJudged",
    "openai_evals": "bench_formats.openai_evals.basic:OpenAIEvals",
    "openai_evals_classify": "bench_formats.openai_evals.classify:OpenAIEvalsClassify",
}

TARGETS = {
    "promptfoo-python": "bench_formats.promptfoo.python_provider:PromptfooPython",
    "promptfoo-serial": "bench_formats.promptfoo.serial:PromptfooSerial",
    "promptfoo-test-provider": "bench_formats.promptfoo.test_provider:PromptfooTestProvider",
}

SUITE_LOADERS = {
    "promptfoo": "bench_formats.promptfoo.loader:PromptfooLoader",
    "youbencha-testcase": "bench_formats.youbencha.loaders:TestCaseLoader",
    "youbencha-eval": "bench_formats.youbencha.loaders:EvalConfigLoader",
    "agentclash": "bench_formats.agentclash.loader:AgentClashLoader",
    "aieval": "bench_formats.aieval.loader:AIEvalLoader",
    "openai-evals": "bench_formats.openai_evals.loader:OpenAIEvalsLoader",
    "suite-part": "bench_formats.parts:SuitePartLoader",
}

IMPORTERS = {
    "promptfoo": "bench_formats.imports.promptfoo:PromptfooImporter",
    "inspect_ai": "bench_formats.imports.inspect_log:InspectImporter",
    "lm-eval": "bench_formats.imports.lm_eval:LmEvalImporter",
    "otlp": "bench_formats.imports.otlp:OtlpImporter",
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


@hookimpl
def bench_register_suite_loaders(register: RegisterSuiteLoader) -> None:
    for name, path in SUITE_LOADERS.items():
        register(name, path)


@hookimpl
def bench_register_importers(register: RegisterImporter) -> None:
    for name, path in IMPORTERS.items():
        register(name, path)
