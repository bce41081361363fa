"""promptfoo's state carried from call to call, as the bench target ``promptfoo-serial``.

As promptfoo 0.121.20's ``runEvalInternal`` (``src/evaluator.ts``): a prompt that references
``_conversation`` sees the earlier calls with the same key (provider, prompt, prompt index and the
test's ``metadata.conversationId``) as ``{prompt, input, output, metadata}`` entries, each added
right after its call, even one that failed (its output then empty); a test with
``options.storeOutputAs: NAME`` stores a non-empty output as the var ``NAME`` of every later
test (promptfoo's ``registers``). Either runs the config one call at a time, test after test.

The loader keeps such a prompt as its template (``metadata.promptfoo_serial``) and wraps each
provider's target in this one, which renders the prompt when the task is answered. Its state
belongs to the run (kept with the run's LLM client, in this process only: ``sequential``, bench
refuses ``--resume`` and other executors up front); a task answered out of order (a repeat, a
task after a later one) is an error, never run with part of its state. A task selection runs
with the state of the tasks it runs, as promptfoo's ``--filter-*`` options do.
"""

from __future__ import annotations

import asyncio
import json
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bench import ConfigError, Response, SuiteContext, Target, TargetConfig, TargetError, Task
from bench.llm import LLMClient, Message
from bench_formats.promptfoo.render import RenderError, finish_vars, render_prompt
from bench_formats.promptfoo.serial_plan import CHECK_VARS, KEY

OUT_OF_ORDER = (
    "task '{task}' is answered out of promptfoo's order ({why}): promptfoo's {what} come from the "
    "tasks before it, answered first; run the config without --repeat and without --concurrency"
)

OUTSIDE_A_RUN = "promptfoo's {what} are kept by a run: this target was built outside one"


class PromptfooSerialConfig(TargetConfig):
    """Settings of promptfoo-serial (what the promptfoo loader writes around a provider's target)."""

    target: dict[str, Any]
    """The provider's own target (``type`` and its settings), which answers the rendered prompt."""
    uses: str = "_conversation and storeOutputAs"
    """What the config uses that needs the state, for messages."""


@dataclass
class _State:
    """One run's state, shared by the targets of its providers."""

    conversations: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    registers: dict[str, Any] = field(default_factory=dict)
    #: The place after the last task answered: a task selection skips places, never goes back.
    next: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


#: Each run's state, owned by the run's LLM client: bench builds one per run and gives it to every
#: target of the run (``SuiteContext.llm``), so the state lives as long as that run and two runs
#: of one suite in a process never share it.
_STATES: weakref.WeakKeyDictionary[LLMClient, _State] = weakref.WeakKeyDictionary()


class PromptfooSerial(Target[PromptfooSerialConfig]):
    """A provider's target answering prompts rendered from promptfoo's call-to-call state."""

    name = "promptfoo-serial"
    Config = PromptfooSerialConfig

    def __init__(self, config: PromptfooSerialConfig, suite: SuiteContext) -> None:
        super().__init__(config, suite)
        spec = dict(config.target)
        cls = suite.target_type(str(spec.pop("type", "")))
        try:
            inner_config = cls.Config.model_validate(spec)
        except ValidationError as exc:
            raise ConfigError(f"target: {exc}", file=suite.path) from None
        self.inner = cls(inner_config, suite)

    def llm_calls(self) -> list[tuple[str, int]]:
        return self.inner.llm_calls()

    def sequential(self) -> str | None:
        return (
            f"promptfoo's {self.config.uses} come from the earlier tasks answered in this process, "
            "and bench does not store that state"
        )

    async def open(self) -> None:
        self.inner.label = self.label
        await self.inner.open()

    async def close(self) -> None:
        await self.inner.close()

    def _state(self) -> _State:
        run = self.suite.llm
        if run is None:
            raise TargetError(
                f"promptfoo's {self.config.uses} are kept by a run: this target was built outside one"
            )
        return _STATES.setdefault(run, _State())

    async def respond(self, task: Task) -> Response:
        plan = task.metadata.get(KEY)
        if not isinstance(plan, dict):
            return await self.inner.respond(task)
        state = self._state()
        async with state.lock:
            index = int(plan["index"])
            why = "a repeat" if task.repeat else "after a later task" if index < state.next else None
            if why is not None:
                raise TargetError(OUT_OF_ORDER.format(task=task.id, why=why, what=self.config.uses))
            state.next = index + 1
            return await self._answer(task, plan, state)

    async def _answer(self, task: Task, plan: dict[str, Any], state: _State) -> Response:
        template = plan.get("template")
        if not isinstance(template, str):  # no state in its prompt: it only keeps its place
            response = await self.inner.respond(task)
            _store(plan, response, state)
            return response
        key = str(plan["key"])
        had = key in state.conversations
        values = _values(task, plan, state, key)
        if isinstance(plan.get("function"), dict):
            template = await _called(plan["function"], values, self.suite.path)
        try:
            text = render_prompt(template, values)
        except RenderError as exc:
            raise TargetError(str(exc)) from None
        rendered = _json(text)
        try:
            response = await self.inner.respond(_rendered_task(task, text, rendered, plan))
        except TargetError:
            _remember(state, key, text, rendered, "", None)
            raise
        _remember(state, key, text, rendered, response.output or "", response.metadata or None)
        seen = _checks_see(plan, state, key if had else None)
        _store(plan, response, state)
        return response.model_copy(update={"metadata": {**response.metadata, "prompt": text, **seen}})


def _values(task: Task, plan: dict[str, Any], state: _State, key: str) -> dict[str, Any]:
    """The vars the prompt is rendered with: the test's, ``_conversation`` and the stored outputs,
    the vars that are templates resolved again with them (as promptfoo's ``renderPrompt`` does)."""
    values = dict(task.metadata.get("vars") or {})
    if plan.get("conversation"):
        values["_conversation"] = state.conversations.get(key, [])
    values.update(state.registers)
    templates = plan.get("var_templates") or {}
    if not templates or not state.registers:
        return values
    return finish_vars({**values, **templates})  # render_prompt renders them for a text prompt


async def _called(function: dict[str, Any], values: dict[str, Any], config: Path) -> str:
    """The template a Python prompt function gives with the vars of the call (``renderPrompt``:
    the stored outputs among them); what it raises is the row's error, as in promptfoo."""
    from bench_formats.promptfoo.python_config import prompt_text

    shown = {k: v for k, v in values.items() if k != "_conversation"}
    try:
        return await asyncio.to_thread(
            prompt_text,
            Path(function["file"]),
            function["name"],
            shown,
            function["provider"],
            function["config"],
            config,
        )
    except ConfigError as exc:
        raise TargetError(exc.message) from None


def _checks_see(plan: dict[str, Any], state: _State, key: str | None) -> dict[str, Any]:
    """The vars the row's checks see beyond the test's own (``runAssertion`` renders over the
    call's vars), under ``CHECK_VARS``: the stored outputs as they were at the call, and
    ``_conversation``: the key's list itself, which holds this call too, or, when the key had no
    calls before (``key`` None), the new empty list promptfoo's ``attachConversationVar`` gave."""
    seen: dict[str, Any] = dict(state.registers)
    if plan.get("conversation"):
        seen["_conversation"] = list(state.conversations[key]) if key is not None else []
    return {CHECK_VARS: seen} if seen else {}


def _rendered_task(task: Task, text: str, rendered: Any, plan: dict[str, Any]) -> Task:
    """The task as the provider's target sees it: the prompt rendered now."""
    if (
        plan.get("chat")
        and isinstance(rendered, list)
        and all(isinstance(m, dict) and "role" in m for m in rendered)
    ):
        messages = [Message.model_validate(m) for m in rendered]
        return task.model_copy(update={"prompt": None, "messages": messages, "input": rendered})
    return task.model_copy(update={"prompt": text, "messages": None, "input": None})


def _remember(state: _State, key: str, text: str, rendered: Any, output: str, metadata: Any) -> None:
    """``updateConversationHistory``: the call appended to its key's entries."""
    last = rendered[-1] if isinstance(rendered, list) and rendered else None
    last_input = last.get("content") if isinstance(last, dict) else last
    entry: dict[str, Any] = {
        "prompt": rendered or text,
        "input": last_input or rendered or text,
        "output": output,
    }
    if metadata is not None:
        entry["metadata"] = metadata
    state.conversations.setdefault(key, []).append(entry)


def _store(plan: dict[str, Any], response: Response, state: _State) -> None:
    """``storeOutputAs``: a non-empty output kept for every later test's vars."""
    name = plan.get("store_as")
    if name and response.error is None and response.output:
        state.registers[str(name)] = response.output


def _json(text: str) -> Any:
    """``tryParseJson``: the rendered prompt as JSON, or None."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None
