"""Reads an AgentClash challenge pack (``pack`` + ``version.evaluation_spec``) as a native suite.

One task per case of every input set: its id is the ``case_key`` (``INPUT_SET/CASE_KEY`` for every
case whose key appears in more than one input set), its prompt the challenge's ``instructions``
with ``{{var}}`` filled from the case's payload and inputs. The evaluation spec is bench's own.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from bench import ConfigError, SuiteLoader, YamlDocument
from bench_formats.reading import json_data, yaml_data
from bench_formats.sniff import near_miss, top_keys

from . import multi_turn, render, spec, validate

#: Pack keys bench does not apply, and what the warning says of each.
_NOT_APPLIED = {
    "sandbox": "version.sandbox is not applied: bench does not provision AgentClash's sandbox; "
    "the target runs where bench runs",
    "tool_policy": "version.tool_policy is not applied: the tools a target may use are the target's "
    "own settings (the agent target's tools)",
    "filesystem": "version.filesystem is not applied: "
    "give the tasks a workspace with a native suite's repo/workspace",
    "assets": "version.assets are not provided to the target",
    "deployment_defaults": "version.deployment_defaults is not applied: name the model with --target",
}


class AgentClashLoader(SuiteLoader):
    """AgentClash challenge packs (YAML or JSON)."""

    name = "agentclash"

    def claims(self, path: Path) -> bool:
        keys = top_keys(path)
        return {"pack", "version"} <= keys or ("pack" not in keys and {"version", "tasks", "scoring"} <= keys)

    def declines(self, path: Path) -> tuple[float, str] | None:
        return near_miss(top_keys(path), ("pack", "version"), "an AgentClash challenge pack")

    def load(self, path: Path) -> YamlDocument:
        data = _read(path)
        if "pack" not in data:
            raise ConfigError(
                "this is an AgentClash challenge_pack/v0 draft (`tasks:` and `scoring.judges`), which "
                "AgentClash's bundle parser does not load either: a challenge pack has `pack:`, `version:` "
                "(with `number` and `evaluation_spec`), `challenges:` and `input_sets:`",
                file=path,
            )
        errors = validate.problems(data)
        if errors:
            raise ConfigError("invalid challenge pack: " + "; ".join(errors), file=path)
        version = data["version"]
        mode = str(version.get("execution_mode") or "").strip()
        self._warn(data, mode)
        evaluation = version.get("evaluation_spec") or {}
        native: dict[str, Any] = {"name": str(data["pack"]["name"]).strip()}
        if data["pack"].get("description"):
            native["description"] = str(data["pack"]["description"])
        try:
            native.update(spec.suite_fields(evaluation, self.warnings))
        except ValueError as exc:
            raise ConfigError(str(exc), file=path) from None
        native["tasks"] = _tasks(data, spec.evaluators(evaluation, self.warnings), path)
        if mode == "multi_turn":
            self._conversations(data, native["tasks"], path)
        for judge in evaluation.get("llm_judges") or []:
            for source in (judge.get("context_from") or []) if isinstance(judge, dict) else []:
                if str(source).startswith(("transcript.", "turn.")):
                    self._warn_once(
                        f'llm_judges "{judge.get("key")}": context_from {source} is not applied: '
                        "bench's agentclash_judge reads the final output"
                    )
        mocked, left = _mock_tools(data, path)
        for task in native["tasks"] if mocked["tools"] else ():
            task.update(json.loads(json.dumps(mocked)))  # each task its own plain copy
        if left:  # a case run without its tools is not AgentClash's case: each is an error instead
            why = (
                f"tools bench cannot give the target: {', '.join(left)} (AgentClash runs them through "
                "its sandbox's primitives; bench runs mock tools only)"
            )
            self.warnings.append(f"{why}: every case is an error")
            for task in native["tasks"]:
                task["response"] = {"output": "", "error": why}
        return YamlDocument(path=path, data=native, root=None)

    def _conversations(self, data: dict[str, Any], tasks: list[dict[str, Any]], path: Path) -> None:
        """Each case's user_simulator as its task's conversation; the instructions open it as the
        system message (the first scripted turn is the user's first message)."""
        found = [case for s in data.get("input_sets") or [] for case in validate.cases(s)]
        for task, case in zip(tasks, found, strict=True):
            simulator = case["user_simulator"]
            inputs = [i for i in case.get("inputs") or [] if isinstance(i, dict)]
            ctx = render.context(case.get("payload") or {}, inputs)
            try:
                payload = case.get("payload") if isinstance(case.get("payload"), dict) else None
                task["conversation"] = multi_turn.conversation(
                    simulator, ctx, self.options.target, f'case "{task["id"]}"', payload
                )
            except ValueError as exc:
                raise ConfigError(str(exc), file=path) from None
            task["input"] = [{"role": "system", "content": task.pop("prompt")}]
            multi_turn.warnings(simulator, self._warn_once)

    def _warn_once(self, line: str) -> None:
        if line not in self.warnings:
            self.warnings.append(line)

    def _warn(self, data: dict[str, Any], mode: str) -> None:
        version = data["version"]
        for key, message in _NOT_APPLIED.items():
            if version.get(key):
                self.warnings.append(message)
        if mode == "native":
            self.warnings.append(
                "version.execution_mode native: each case's instructions go to the target given with "
                "--target (an agent target for tool use), not to AgentClash's sandboxed native agent"
            )
        elif mode == "responses":
            self.warnings.append(
                "version.execution_mode responses: each case's instructions are sent as one prompt"
            )
        if data.get("security"):
            self.warnings.append(
                "security is not applied: bench does not scan for its forbidden outputs or planted secrets, "
                "nor send its adversarial prompts"
            )
        if data.get("modality"):
            self.warnings.append(f"modality {data['modality']} is not supported: cases are sent as text")


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the challenge pack: {exc}", file=path) from None
    if path.suffix.lower() == ".json":
        try:
            data = json_data(path, text)
        except ValueError as exc:
            raise ConfigError(f"decode challenge-pack bundle json: {exc}", file=path) from None
    else:
        data = yaml_data(path, text)  # bench's YAML errors and limits, with line and column
    if not isinstance(data, dict):
        raise ConfigError("bundle is required", file=path)
    return data


def _tasks(data: dict[str, Any], evaluate: list[dict[str, Any]], path: Path) -> list[dict[str, Any]]:
    challenges = {str(c["key"]).strip(): c for c in data["challenges"]}
    sets = [(s, validate.cases(s)) for s in data.get("input_sets") or []]
    counts = Counter(validate.case_key(case) for _, found in sets for case in found)
    tasks = []
    for input_set, found in sets:
        set_key = str(input_set["key"]).strip()
        for case in found:
            key = validate.case_key(case)
            challenge = challenges[str(case["challenge_key"]).strip()]
            instructions = str(
                (challenge.get("definition") or {}).get("instructions") or challenge.get("instructions") or ""
            ).strip()
            if not instructions:
                raise ConfigError(
                    f'challenge "{challenge["key"]}" is missing instructions required for prompt_eval',
                    file=path,
                )
            payload = case.get("payload") or {}
            inputs = [i for i in case.get("inputs") or [] if isinstance(i, dict)]
            task: dict[str, Any] = {
                "id": f"{set_key}/{key}" if counts[key] > 1 else key,
                "prompt": render.literal(render.render(instructions, render.context(payload, inputs))),
                "metadata": {
                    "challenge": str(challenge["key"]).strip(),
                    "title": str(challenge.get("title", "")).strip(),
                    "category": str(challenge.get("category", "")).strip(),
                    "difficulty": str(challenge.get("difficulty", "")).strip(),
                    "input_set": set_key,
                    "case_key": key,
                },
            }
            if payload:
                task["vars"] = payload
            if inputs:
                task["inputs"] = {str(i["key"]).strip(): i.get("value") for i in inputs}
            expectations = {str(e["key"]).strip(): e.get("value") for e in case.get("expectations") or []}
            if expectations:
                task["expectations"] = expectations
            if case.get("case_timeout_seconds"):
                task["timeout"] = case["case_timeout_seconds"]
            if evaluate:
                task["evaluate"] = [dict(entry) for entry in evaluate]
            tasks.append(task)
    return tasks


def _mock_tools(data: dict[str, Any], path: Path) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """The pack's mock tools as task ``tools`` and ``tool_mocks`` (the engine's ``mock_tools.go``),
    and the names of the tools that are not mocks.

    ``static`` answers its response's JSON; ``lookup`` the response under the argument at
    ``lookup_key`` (``*``: any other); ``echo`` its template filled with the call's arguments.
    """
    tools = data.get("tools") or data["version"].get("tools") or {}
    out: dict[str, list[dict[str, Any]]] = {"tools": [], "tool_mocks": []}
    left: list[str] = []
    for tool in tools.get("custom") or [] if isinstance(tools, dict) else []:
        if not isinstance(tool, dict):
            continue
        name = str(tool.get("name") or "").strip()
        impl = tool.get("implementation") or {}
        if str(impl.get("type") or "").strip().lower() != "mock":
            left.append(name)
            continue
        parameters = tool.get("parameters") or {"type": "object", "additionalProperties": False}
        offered: dict[str, Any] = {"name": name, "parameters": parameters}
        if str(tool.get("description") or "").strip():
            offered["description"] = str(tool["description"]).strip()
        out["tools"].append(offered)
        out["tool_mocks"].extend(_mocks(name, impl, path))
    return out, left


def _mocks(name: str, impl: dict[str, Any], path: Path) -> list[dict[str, Any]]:
    """One mock tool's answers (``newMockTool``: the strategy given, else inferred)."""
    strategy = str(impl.get("strategy") or "").strip().lower()
    if not strategy:
        lookup = impl.get("lookup_key") or impl.get("responses")
        strategy = "lookup" if lookup else "echo" if impl.get("template") else "static"
    if strategy == "static":
        return [{"name": name, "response": _json(impl.get("response"))}]
    if strategy == "echo":
        if not isinstance(impl.get("template"), dict):
            raise ConfigError(f'mock tool "{name}" echo template must be a JSON object', file=path)
        return [{"name": name, "template": impl["template"]}]
    if strategy != "lookup":
        raise ConfigError(
            f'mock tool "{name}" has unknown strategy "{strategy}"; supported: static, lookup, echo',
            file=path,
        )
    mocks = []
    responses = impl.get("responses") or {}
    for key, value in responses.items():
        if key != "*":
            match: Any = str(key)
            for part in reversed(str(impl.get("lookup_key") or "").strip().split(".")):
                match = {part: match}
            mocks.append({"name": name, "match": match, "response": _json(value)})
    if "*" in responses:
        mocks.append({"name": name, "response": _json(responses["*"])})
    return mocks


def _json(value: Any) -> str:
    """A mock's response as AgentClash's tool result: its JSON (Go's json.Marshal sorts keys)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
