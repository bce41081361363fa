"""What a task's result keeps of its input: the rendered prompt or messages, vars, metadata, tags
and the target that answered, bounded like the response (D01).

A prompt over the cap keeps its head with its full size and sha256 (``bounded.bound_text``: set
only when cut);
messages, vars or metadata whose JSON is over the cap are left out, their size and sha256 kept in
``input_omitted``, so a record never grows without bound.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from bench.execution.bounded import bound_text
from bench.target import Target
from bench.vocabulary.models import Task


def describe_target(target: Target[Any] | None, task: Task) -> dict[str, Any] | None:
    """The target that answered ``task``: its type, and its model and label when it has them."""
    if task.response is not None:
        return {"type": "recorded"}
    if target is None:
        return None
    found: dict[str, Any] = {"type": target.name}
    for key in ("model", "label"):
        value = getattr(target.config, key, None)
        if isinstance(value, str):
            found[key] = value
    if target.label is not None:
        found["label"] = target.label
    return found


def input_fields(task: Task, target: Target[Any] | None, limit: int) -> dict[str, Any]:
    """The result fields describing ``task``'s input, each at most ``limit`` bytes."""
    fields: dict[str, Any] = {"target": describe_target(target, task), "tags": list(task.tags)}
    if task.prompt_label is not None:
        fields["prompt_label"] = task.prompt_label
    if task.prompt is not None:
        cut = bound_text(task.prompt, limit)
        fields["prompt"] = task.prompt if cut is None else cut[0]
        if cut is not None:
            fields.update(prompt_bytes=cut[1], prompt_sha256=cut[2])
    omitted: dict[str, dict[str, Any]] = {}
    parts: dict[str, Any] = {
        "messages": None
        if task.messages is None
        else [m.model_dump(exclude_none=True) for m in task.messages],
        "vars": task.vars,
        "metadata": task.metadata,
    }
    for key, value in parts.items():
        if not value:
            fields[key] = value
            continue
        text = json.dumps(value, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")
        if len(text) <= limit:
            fields[key] = value
        else:
            fields[key] = None
            omitted[key] = {"bytes": len(text), "sha256": hashlib.sha256(text).hexdigest()}
    if omitted:
        fields["input_omitted"] = omitted
    return fields
