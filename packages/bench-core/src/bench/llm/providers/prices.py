"""litellm's price map, read from the JSON file the installed litellm ships, never importing it."""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Any

_FILE = "model_prices_and_context_window_backup.json"


@functools.cache
def model_cost() -> dict[str, Any]:
    """litellm's ``model_cost`` (model -> prices and capabilities); ``{}`` without litellm."""
    spec = importlib.util.find_spec("litellm")  # finds the package without running it
    if spec is None or not spec.submodule_search_locations:
        return {}
    for folder in spec.submodule_search_locations:
        path = Path(folder) / _FILE
        if path.is_file():
            data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
            data.pop("sample_spec", None)
            return data
    return {}


def info(model: str) -> dict[str, Any] | None:
    """The map's row for ``model``, tried as written and without its provider prefix."""
    table = model_cost()
    for name in (model, model.split("/", 1)[-1]):
        row = table.get(name)
        if isinstance(row, dict):
            return row
    return None
