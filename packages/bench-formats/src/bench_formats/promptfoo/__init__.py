"""The promptfoo format: its suite loader(s) and evaluator types (registered by ``bench_formats.plugin``)."""

from __future__ import annotations

from typing import Any

from bench_formats.promptfoo.evaluator import Promptfoo
from bench_formats.promptfoo.loader import PromptfooLoader
from bench_formats.promptfoo.python_provider import PromptfooPython

#: Suite loader classes (subclasses of ``bench.SuiteLoader``). Keep imports here light: jinja2
#: and friends are imported inside functions, since every bench command loads the plugin.
LOADERS: tuple[Any, ...] = (PromptfooLoader,)
#: Evaluator classes (subclasses of ``bench.Evaluator``).
EVALUATORS: tuple[Any, ...] = (Promptfoo,)
#: Target classes (subclasses of ``bench.Target``): promptfoo's Python providers.
TARGETS: tuple[Any, ...] = (PromptfooPython,)
