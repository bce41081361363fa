"""An evaluator's value settings filled from its task's vars, as the task's prompt is.

A suite writes the value a check compares with once, ``value: "{capital}"``, for tasks whose
vars differ; each type's ``var_settings`` name the settings filled. A placeholder that names no
var is left as written, and the loader warns about it (bench.suite.variables.template_check).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from bench.suite.plan import BoundEvaluator
from bench.vocabulary.templates import fill


@dataclass(frozen=True)
class Written:
    """One text of a setting that holds braces: as written, and the placeholders naming no var."""

    setting: str
    text: str
    unknown: list[str]


def with_vars(evaluator: BoundEvaluator, values: Mapping[str, Any]) -> tuple[BoundEvaluator, list[Written]]:
    """``evaluator`` with its ``var_settings`` filled from ``values`` (a copy when anything was
    filled, else the same one) and each text with braces it holds, for the loader's warnings.

    Raises ``ValueError`` when a filled value is not valid for the setting."""
    instance = evaluator.instance
    config = instance.config
    updates: dict[str, Any] = {}
    written: list[Written] = []
    for setting in type(instance).var_settings:
        value = getattr(config, setting, None)
        texts = value if isinstance(value, list) else [value]
        if not any(isinstance(text, str) and "{" in text for text in texts):
            continue
        filled = []
        for text in texts:
            if isinstance(text, str) and "{" in text:
                quote = re.escape if setting in type(instance).var_patterns else None
                result, unknown = fill(text, values, quote)
                written.append(Written(setting, text, unknown))
                text = result
            filled.append(text)
        if filled != texts:
            updates[setting] = filled if isinstance(value, list) else filled[0]
    if not updates:
        return evaluator, written
    settings = {**config.model_dump(by_alias=True, exclude_unset=True), **updates}
    try:
        # Validated again: the filled value is checked as the written one was (a regex compiles).
        new_config = type(config).model_validate(settings)
    except ValidationError as exc:
        reason = "; ".join(error["msg"] for error in exc.errors())
        raise ValueError(f"{', '.join(updates)} filled from the task's vars: {reason}") from None
    copy = type(instance).configured(new_config, instance.folder)
    return dataclasses.replace(evaluator, instance=copy), written
