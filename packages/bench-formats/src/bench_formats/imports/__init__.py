"""Importers of other tools' results (``bench import FILE``), registered by ``bench_formats.plugin``."""

from __future__ import annotations

from typing import Any

from bench_formats.imports.inspect_log import InspectImporter
from bench_formats.imports.lm_eval import LmEvalImporter
from bench_formats.imports.otlp import OtlpImporter
from bench_formats.imports.promptfoo import PromptfooImporter

#: Importer classes (subclasses of ``bench.Importer``).
IMPORTERS: tuple[Any, ...] = (PromptfooImporter, InspectImporter, LmEvalImporter, OtlpImporter)
