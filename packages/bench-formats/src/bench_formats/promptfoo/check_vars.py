"""The vars a promptfoo row's checks see at answer time: ``_conversation`` and the stored outputs.

As promptfoo 0.121.20's ``runAssertion`` (``src/assertions/index.ts``): each assertion's string
value (or each string of a list) is rendered when the row is graded, over the vars of its call,
and the checks' ``context.vars`` are those vars. A row answered by ``promptfoo-serial`` gets them
in its response's metadata (``CHECK_VARS``); its assertions were rendered at load without them,
so the values written with a template are rendered again here, from the test's own assertions
(``assert_templates``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from bench import Sample
from bench_formats.promptfoo.asserts import metric_name
from bench_formats.promptfoo.render import RenderError, has_template, render_value
from bench_formats.promptfoo.serial_plan import CHECK_VARS

if TYPE_CHECKING:
    from bench_formats.promptfoo.evaluator import PromptfooConfig

FILE = "file://"


def at_answer(config: PromptfooConfig, sample: Sample) -> tuple[PromptfooConfig, Sample] | None:
    """The row's settings with the call's vars and its assertions rendered over them, and the
    sample without those vars in its metadata (the checks' ``context.metadata`` is the
    provider's); None when the row's call added no vars."""
    metadata = sample.response.metadata
    seen = metadata.get(CHECK_VARS)
    if not isinstance(seen, dict):
        return None
    kept = {k: v for k, v in metadata.items() if k != CHECK_VARS}
    sample = dataclasses.replace(sample, response=sample.response.model_copy(update={"metadata": kept}))
    values = {**config.vars, **seen}
    update: dict[str, Any] = {"vars": values}
    if config.assert_templates:
        update["assert_"] = rerender(config.assert_, config.assert_templates, values)
    return config.model_copy(update=update), sample


def rerender(
    prepared: list[dict[str, Any]], written: list[Any], values: dict[str, Any]
) -> list[dict[str, Any]]:
    """``prepared`` (the assertions as rendered at load) with each value that ``written`` (the
    same assertions as the test wrote them) gives as a template rendered over ``values``."""
    out = []
    for done, raw in zip(prepared, written, strict=False):
        item = dict(done)
        children = raw.get("assert") if isinstance(raw, dict) else None
        if isinstance(children, list) and isinstance(done.get("assert"), list):
            item["assert"] = rerender(done["assert"], children, values)
        metric = raw.get("metric") if isinstance(raw, dict) else None
        if isinstance(metric, str) and has_template(metric):
            item["metric"] = metric_name(metric, values)
        value = raw.get("value") if isinstance(raw, dict) else raw
        if _templated(value):
            item.pop("error", None)
            try:
                item["value"] = render_value(value, values)
            except RenderError as exc:
                item["error"] = str(exc)
        out.append(item)
    return out


def templated(asserts: list[Any]) -> bool:
    """Whether an assertion (or an assert-set child) has a value written as a template."""
    for raw in asserts:
        if not isinstance(raw, dict):
            if _templated(raw):
                return True
            continue
        metric = raw.get("metric")
        if isinstance(metric, str) and has_template(metric):
            return True
        if _templated(raw.get("value")) or templated(raw.get("assert") or []):
            return True
    return False


def _templated(value: Any) -> bool:
    if isinstance(value, str):
        return not value.startswith(FILE) and has_template(value)
    if isinstance(value, list):
        return any(isinstance(v, str) and not v.startswith(FILE) and has_template(v) for v in value)
    return False
