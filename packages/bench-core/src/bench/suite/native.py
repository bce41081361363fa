"""bench's native suite format: YAML (JSON is YAML too)."""

from __future__ import annotations

from pathlib import Path

from bench.document import YamlDocument
from bench.suite.yamlstream import load_suite_yaml
from bench.suite_loader import SuiteLoader


class NativeSuiteLoader(SuiteLoader):
    """bench's own format: YAML (JSON is YAML too), with ``${NAME}`` environment variables."""

    name = "bench"
    priority = 0

    def claims(self, path: Path) -> bool:
        return path.suffix.lower() in {".yaml", ".yml", ".json"}

    def load(self, path: Path) -> YamlDocument:
        return load_suite_yaml(path, interpolate=True)
