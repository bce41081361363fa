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
#: The response metadata key holding the vars a row's checks see beyond its test's own.
CHECK_VARS = "promptfoo_check_vars"
#: The env var that turns promptfoo's ``_conversation`` off (as ``options.disableConversationVar``).
NO_CONVERSATION = "PROMPTFOO_DISABLE_CONVERSATION_VAR"
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


def plan(uses: list[str], test: dict[str, Any], raw: str, column: list[Any], chat: bool) -> dict[str, Any]:
    """A task's plan: its template when the state changes its prompt (it names ``_conversation``,
    or an earlier test stored an output), and the var its output is stored as; ``uses`` gets what
    the config uses. ``column`` is the provider's label, the prompt's label and index; ``chat``
    whether the provider takes messages (told from the rendered text, as promptfoo's are)."""
    options = test.get("options") or {}
    # promptfoo's test: the prompt's raw text names the var, and nothing turned it off
    conversation = (
        "_conversation" in raw and not options.get("disableConversationVar") and not env_true(NO_CONVERSATION)
    )
    store_as = options.get("storeOutputAs")
    out: dict[str, Any] = {}
    if conversation or "storeOutputAs" in uses:
        key = [*column, (test.get("metadata") or {}).get("conversationId")]
        out.update(template=raw, chat=chat, key=json.dumps(key, ensure_ascii=False))
        if conversation:
            out["conversation"] = True
    if isinstance(store_as, str) and store_as:
        out["store_as"] = store_as
    for what in ("_conversation" if conversation else None, "storeOutputAs" if "store_as" in out else None):
        if what and what not in uses:
            uses.append(what)
    return out


def function(path: Path, name: str | None, provider: dict[str, Any], settings: Any) -> dict[str, Any]:
    """A Python prompt function called when its task is answered, with the stored outputs."""
    return {"file": str(path), "name": name, "provider": provider, "config": settings}


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
