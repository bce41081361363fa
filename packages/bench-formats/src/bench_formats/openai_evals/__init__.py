"""OpenAI's evals registry: its suite loader and evaluator types (registered by ``bench_formats.plugin``)."""

from __future__ import annotations

from typing import Any

from bench_formats.openai_evals.basic import OpenAIEvals
from bench_formats.openai_evals.classify import OpenAIEvalsClassify
from bench_formats.openai_evals.loader import OpenAIEvalsLoader

#: Suite loader classes (subclasses of ``bench.SuiteLoader``).
LOADERS: tuple[Any, ...] = (OpenAIEvalsLoader,)
#: Evaluator classes (subclasses of ``bench.Evaluator``).
EVALUATORS: tuple[Any, ...] = (OpenAIEvals, OpenAIEvalsClassify)
