"""promptfoo's evaluation matrix as native bench tasks: test × vars × provider × prompt."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench import ConfigError, SuiteFolder
from bench_formats.promptfoo import (
    asserts,
    check_vars,
    js_config,
    serial_plan,
    simulated_user,
    test_provider,
    variables,
)
from bench_formats.promptfoo.compare import COMPARING
from bench_formats.promptfoo.escape import escape
from bench_formats.promptfoo.evaluator import assertion_problems
from bench_formats.promptfoo.prompts import Prompt, is_chat
from bench_formats.promptfoo.providers import Provider, allows, read_providers
from bench_formats.promptfoo.python_config import prompt_text, python_vars
from bench_formats.promptfoo.refs import dereference_value
from bench_formats.promptfoo.render import RenderError, compact_json, render_prompt
from bench_formats.promptfoo.tests_reader import check_test, merge_default, read_vars_files

LABEL_CHARS = 40
OWN_PROVIDER = (
    "{test}: its provider is neither an id nor a mapping with 'id': promptfoo does not load it "
    "and answers the test with the config's providers, as bench does"
)

DEFAULT_ID = (
    "defaultTest.provider '{id}' is an id, which promptfoo 0.121.20 does not call (only a "
    "mapping with 'id' answers the tests); the config's providers answer, as in promptfoo"
)


@dataclass
class Matrix:
    """What the tasks are built from."""

    config: dict[str, Any]
    path: Path
    prompts: list[Prompt]
    providers: list[Provider]
    default: dict[str, Any]
    #: Where the files tests name must lie (bench's suite-folder rule).
    folder: SuiteFolder
    #: One target for all (``--target``, or a single provider): tasks name no target.
    single: bool
    #: ``--target`` given: promptfoo's ``--providers`` drops ``providers[].prompts``.
    override: bool
    warn: Callable[[str], None]

    def __post_init__(self) -> None:
        self.base = self.path.parent
        self.ids: set[str] = set()
        self.count = 0
        #: What the config uses of promptfoo's call-to-call state (``_conversation``, ``storeOutputAs``).
        self.uses: list[str] = []
        #: The tests' own providers by the key their tasks name (``test_provider.KEY``).
        self.own: dict[str, Provider] = {}
        self._own_keys: dict[str, str] = {}
        self._default_warned = False

    def tasks(
        self, test: dict[str, Any], test_base: Path, refs: bool = True, checked: bool = True
    ) -> list[dict[str, Any]]:
        """The tasks of one test, in promptfoo's order (``refs``: its ``$ref`` pointers resolved;
        ``checked``: refused when it says nothing but a description, as ``readTest`` refuses it)."""
        self.count += 1
        test = dict(dereference_value(test, self.config, self.path) if refs else test)
        if checked:
            check_test(test, self.path)
        for at, why in assertion_problems(test.get("assert")):
            raise ConfigError(why, file=self.path, field=("tests", self.count - 1, "assert", *at))
        if isinstance(test.get("vars"), (str, list)):  # paths or globs of var files
            test["vars"] = read_vars_files(test["vars"], test_base, self.path, self.folder)
        inherited = test.get("provider") is None
        test = merge_default(test, self.default)
        name = _short(str(test.get("description") or f"test {self.count}"))
        own = self._own_provider(test, name, self.base if inherited else test_base, inherited)
        transform_vars = (test.get("options") or {}).get("transformVars")
        if transform_vars is not None:
            test["vars"] = js_config.transform_vars(
                transform_vars, test.get("vars") or {}, self.path, self.folder, name
            )
        combos = list(variables.combinations(test.get("vars") or {}, self.base, self.path, self.folder, name))
        out: list[dict[str, Any]] = []
        for number, combo in enumerate(combos, start=1):
            row = name if len(combos) == 1 else f"{name} [{number}]"
            warnings: list[str] = []
            values = variables.prepare(combo, warnings.append, self.folder, row, self.base)
            for line in warnings:
                self.warn(line)
            entry = self._evaluator(test, values)
            first = True
            start = len(out)
            for provider in self.providers:
                for prompt in self.prompts:
                    if not self.override and not allows(provider, prompt.label):
                        continue
                    # each task owns its data (a YAML dump of the suite then has no anchors); the
                    # first one takes the originals, which saves copying a big CSV row by row
                    own_entry = entry if first else copy.deepcopy(entry)
                    task = self._task(test, row, _copy(values), prompt, provider, own_entry, own)
                    serial_plan.keep_templates(task, combo)
                    out.append(task)
                    first = False
            if any(a.get("type") in COMPARING for a in entry["assert"]) and len(out) > start:
                for task in out[start:]:  # the row's columns, compared once they all ran
                    task["group"] = out[start]["id"]
        return out

    def _evaluator(self, test: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "type": "promptfoo",
            "assert": asserts.prepare(list(test.get("assert") or []), values, self.base, self.folder),
        }
        if test.get("threshold") is not None:
            # the evaluator's own key: promptfoo takes any number (core's threshold is 0..1) and
            # writes its own reason ("Aggregate score 0.33 < 0.5 threshold")
            entry["test_threshold"] = test["threshold"]
        entry["options"] = asserts.prepare_options(test.get("options"))
        entry["vars"] = values
        if self.config.get("derivedMetrics"):
            entry["derived_metrics"] = self.config["derivedMetrics"]
        return entry

    def _task(
        self,
        test: dict[str, Any],
        row: str,
        values: dict[str, Any],
        prompt: Prompt,
        provider: Provider,
        entry: dict[str, Any],
        own: str | None = None,
    ) -> dict[str, Any]:
        """One row; ``own``: the key of the test's own provider, which answers it."""
        options = test.get("options") or {}
        answers = provider if own is None else self.own[own]
        raw = f"{options.get('prefix') or ''}{prompt.raw}{options.get('suffix') or ''}"
        chat = prompt.chat
        if python_vars(values, raw, self.base, self.folder, self.path, row):
            entry["vars"] = {**entry["vars"], **values}  # the checks see what get_var gave
        failed: str | None = None
        # after a stored output the function sees it: it is called when the task is answered
        deferred = prompt.function is not None and "storeOutputAs" in self.uses
        if prompt.function is not None and not deferred:  # its prompt replaces the file's text
            try:
                raw = prompt_text(*prompt.function, values, _caller(provider), prompt.config, self.path)
            except ConfigError as exc:  # promptfoo calls it as it renders the row: only the row fails
                raw, failed = "", exc.message
            chat = is_chat(raw)
        elif deferred:
            raw, chat = "", False
        column = [provider.label, prompt.label, self.prompts.index(prompt)]
        plan = serial_plan.plan(self.uses, test, raw, column, chat=answers.chat)
        if deferred and prompt.function is not None:
            plan["function"] = serial_plan.function(*prompt.function, _caller(provider), prompt.config)
        try:  # a prompt rendered from the state is rendered again when it is answered
            text = render_prompt(raw, {**values, "_conversation": []} if plan.get("conversation") else values)
        except RenderError as exc:
            raise ConfigError(f"{row}: {exc}", file=self.path) from None
        task: dict[str, Any] = {"id": self._id(row, prompt, provider)}
        if chat and answers.chat:
            task["input"] = [
                {**m, "content": escape(m["content"])} if isinstance(m.get("content"), str) else m
                for m in json.loads(text)
            ]
        else:
            task["prompt"] = escape(text)
        user = simulated_user.simulated(test) if failed is None and "providerOutput" not in test else None
        if user is not None:
            if plan:
                raise ConfigError(
                    simulated_user.WITH_STATE.format(row=row, uses=" and ".join(self.uses)), file=self.path
                )
            simulated_user.converse(task, user, values, text, row, self.path)
            entry["simulated_user"] = True
        if failed is not None:  # an error of the row, answered by no target
            task["response"] = {"error": failed}
        elif "providerOutput" in test:
            output = test["providerOutput"]
            task["response"] = output if isinstance(output, str) else compact_json(output)
        metadata: dict[str, Any] = {
            "prompt": prompt.label,
            "provider": provider.id,
            "vars": values,
        }
        if test.get("description"):
            metadata["description"] = test["description"]
        if test.get("metadata"):
            metadata["test"] = test["metadata"]
        if plan:
            metadata[serial_plan.KEY] = plan
        if own is not None and "response" not in task:
            metadata[test_provider.KEY] = own
        if plan.get("template") and check_vars.templated(test.get("assert") or []):
            entry["assert_templates"] = list(test["assert"])  # rendered again with the call's vars
        task["metadata"] = metadata
        if len(self.prompts) > 1:  # prompts x providers: the variant is labelled as native ones are
            task["prompt_label"] = prompt.label
        if not self.single:
            task["target"] = provider.label
        if _checks_tool_calls(entry["assert"]):
            entry["options"]["provider_config"] = {"id": provider.id, **provider.tools}
        task["evaluators"] = [entry]
        return task

    def _own_provider(self, test: dict[str, Any], name: str, base: Path, inherited: bool) -> str | None:
        """The key of the test's own ``provider`` (promptfoo's ``readTest`` loads an id, or a
        mapping's ``id`` with its options, a script's path from ``base``: the test's file's folder),
        registered in ``own``; None when it has none. ``inherited``: it is ``defaultTest``'s."""
        spec = test.get("provider")
        if spec is None or simulated_user.simulated(test) is not None:
            return None
        if inherited and isinstance(spec, str):
            # resolveDefaultTestProvider loads only a mapping; an id reaches the test as text
            if not self._default_warned:
                self.warn(DEFAULT_ID.format(id=spec))
                self._default_warned = True
            return None
        if not isinstance(spec, str) and not (isinstance(spec, dict) and isinstance(spec.get("id"), str)):
            self.warn(OWN_PROVIDER.format(test=name))
            return None
        text = json.dumps([str(base), spec], sort_keys=True, ensure_ascii=False)
        if text not in self._own_keys:
            try:
                (found,) = read_providers([spec], self.path)
            except ConfigError as exc:
                raise ConfigError(
                    f"{name}: {exc.message}", file=self.path, field=("tests", self.count - 1, "provider")
                ) from None
            for line in found.warnings:
                self.warn(line)
            if found.target.get("type") == "promptfoo-python":  # its script runs: the folder rule
                script = base / found.target["script"]
                self.folder.check(script, f"{name}: provider '{found.id}' runs its script")
                if base != self.base:
                    found.target["script"] = str(script)
            key = str(len(self._own_keys))
            self._own_keys[text] = key
            self.own[key] = found
        return self._own_keys[text]

    def _id(self, row: str, prompt: Prompt, provider: Provider) -> str:
        parts = [row]
        if len(self.prompts) > 1:
            parts.append(_short(prompt.label))
        if not self.single and len(self.providers) > 1:
            parts.append(_short(provider.label))
        base = "/".join(parts)
        task_id, number = base, 1
        while task_id in self.ids:
            number += 1
            task_id = f"{base} #{number}"
        self.ids.add(task_id)
        return task_id


_TOOL_CHECKS = ("is-valid-openai-tools-call", "is-valid-openai-function-call")


def _checks_tool_calls(asserts: list[Any]) -> bool:
    """Whether an assertion (or an assert-set child) validates tool calls."""
    for assertion in asserts:
        if not isinstance(assertion, dict):
            continue
        if str(assertion.get("type", "")).removeprefix("not-") in _TOOL_CHECKS:
            return True
        if _checks_tool_calls(assertion.get("assert") or []):
            return True
    return False


def _caller(provider: Provider) -> dict[str, Any]:
    """The ``provider`` a prompt function sees: its id, and its label when the config gives one."""
    return {"id": provider.id, **({"label": provider.label} if provider.label != provider.id else {})}


def _copy(values: dict[str, Any]) -> dict[str, Any]:
    """A copy of the vars that shares nothing with them."""
    if all(isinstance(value, (str, int, float, bool)) or value is None for value in values.values()):
        return dict(values)
    return copy.deepcopy(values)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= LABEL_CHARS else text[: LABEL_CHARS - 3] + "..."
