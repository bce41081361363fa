"""The youbencha format: its suite loader(s) and evaluator types (registered by ``bench_formats.plugin``)."""

from __future__ import annotations

from typing import Any

from bench_formats.youbencha.judge import AgentJudge
from bench_formats.youbencha.loaders import EvalConfigLoader, TestCaseLoader
from bench_formats.youbencha.outcome import Skipped

#: Suite loader classes (subclasses of ``bench.SuiteLoader``). Keep imports here light: jinja2
#: and friends are imported inside functions, since every bench command loads the plugin.
LOADERS: tuple[Any, ...] = (TestCaseLoader, EvalConfigLoader)
#: Evaluator classes (subclasses of ``bench.Evaluator``).
EVALUATORS: tuple[Any, ...] = (Skipped, AgentJudge)
