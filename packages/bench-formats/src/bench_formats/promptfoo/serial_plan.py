"""The loader's side of promptfoo's call-to-call state: which tasks the ``promptfoo-serial``
target renders when they are answered, and the suite that runs them one at a time in order."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from bench import ConfigError

#: The task metadata key the promptfoo-serial target reads: the task's place and its template.
KEY = "promptfoo_serial"
TARGET = "promptfoo-serial"
REPEAT = (
    "evaluateOptions.repeat with {uses}: bench keeps promptfoo's state only for one answer per "
    "task; run the config without repeat"
)
TARGET_SETTINGS = (
    "--target with settings cannot run a config that uses {uses}: name a provider of the config "
    "or a bare target type"
)


def env_true(name: str) -> bool:
    """promptfoo's ``getEnvBool``."""
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "yup", "yeppers"}


def plan(
    raw: str, *, chat: bool, key: list[Any], conversation: bool, stored: bool, store_as: Any
) -> dict[str, Any]:
    """A task's plan: its template when the state changes its prompt (``_conversation`` named,
    or an earlier test stored an output), and the var its output is stored as."""
    out: dict[str, Any] = {}
    if conversation or stored:
        out["template"] = raw
        out["chat"] = chat
        out["key"] = json.dumps(key, ensure_ascii=False)
        if conversation:
            out["conversation"] = True
    if isinstance(store_as, str) and store_as:
        out["store_as"] = store_as
    return out


def keep_templates(task: dict[str, Any], combo: dict[str, Any]) -> None:
    """A task rendered when it is answered keeps its vars' templates: a stored output can fill them."""
    from bench_formats.promptfoo.render import has_template

    plan = task["metadata"].get(KEY)
    if plan and "template" in plan:
        templates = {k: v for k, v in combo.items() if isinstance(v, str) and has_template(v)}
        if templates:
            plan["var_templates"] = templates


def serial_suite(suite: dict[str, Any], uses: list[str], target: dict[str, Any] | None, path: Path) -> None:
    """``suite`` run as promptfoo runs a config with ``uses``: one call at a time, in the order of
    the tasks, each provider's target wrapped in promptfoo-serial, every answered task numbered."""
    what = " and ".join(uses)
    if suite.get("repeat"):
        raise ConfigError(REPEAT.format(uses=what), file=path, field=("evaluateOptions", "repeat"))
    if target is not None and set(target) != {"type"}:
        raise ConfigError(TARGET_SETTINGS.format(uses=what), file=path)
    suite["concurrency"] = 1
    if "target" in suite:
        if target is None:
            suite["target"] = _wrapped(suite["target"], what)
        else:  # labelled with the --target name, bench keeps it rather than replacing it
            suite["targets"] = [{"label": target["type"], **_wrapped(suite.pop("target"), what)}]
    else:
        suite["targets"] = [
            {"label": entry["label"], **_wrapped({k: v for k, v in entry.items() if k != "label"}, what)}
            for entry in suite["targets"]
        ]
    index = 0
    for task in suite["tasks"]:
        if "response" in task:  # a providerOutput: no target answers it
            continue
        task["metadata"][KEY] = {**task["metadata"].get(KEY, {}), "index": index}
        index += 1


def _wrapped(target: dict[str, Any], uses: str) -> dict[str, Any]:
    return {"type": TARGET, "target": target, "uses": uses}
