"""Other tools' YAML and JSON files read under bench's limits (RELIABILITY N36, N41).

YAML goes through ``bench.load_yaml`` with the tool's own scalar rules, so nesting deeper than
bench allows and alias bombs are refused in the native loader's words, never expanded or left to
crash. JSON is parsed with the standard library; where that gives up on deep nesting
(``RecursionError``), bench's YAML reader reads the same text (JSON is YAML) to refuse it alike.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from bench import ConfigError, load_yaml


def yaml_data(path: Path, text: str, loader: type[Any] = yaml.SafeLoader) -> Any:
    """The data of one YAML document read with ``loader``; a ConfigError naming ``path`` when it
    is not valid YAML or passes bench's limits."""
    return load_yaml(path, text=text, loader=loader).data


def json_data(path: Path, text: str) -> Any:
    """``json.loads(text)``; nesting too deep for it is a ConfigError naming ``path``."""
    try:
        return json.loads(text)
    except RecursionError:
        pass
    load_yaml(path, text=text)  # refuses the nesting where it passes bench's limit
    raise ConfigError("nested too deeply to read as JSON", file=path)
