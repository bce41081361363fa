"""The aieval format: its suite loader(s) and evaluator types (registered by ``bench_formats.plugin``)."""

from __future__ import annotations

from typing import Any

from bench_formats.aieval.judged import AIEvalJudged
from bench_formats.aieval.loader import AIEvalLoader

#: Suite loader classes (subclasses of ``bench.SuiteLoader``). Keep imports here light: jinja2
#: and friends are imported inside functions, since every bench command loads the plugin.
LOADERS: tuple[Any, ...] = (AIEvalLoader,)
#: Evaluator classes (subclasses of ``bench.Evaluator``).
EVALUATORS: tuple[Any, ...] = (AIEvalJudged,)
