"""One AI Eval case as a native bench task: its rendered prompt and its checks (runner.go's rules)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from bench import ConfigError
from bench_formats.aieval.gotemplate import Unsupported, go_format
from bench_formats.aieval.render import RenderError, render

#: The user message of a system prompt when the case gives no ``user_task`` (runner.go).
FALLBACK_TASK = "Please process this request according to your instructions."

#: AI Eval's checks and bench's evaluator type for each.
_TEXT_TYPES = {"exact": "exact_match", "contains": "contains", "regex": "regex"}
#: contains and regex see the response plus a "## Tool Calls Made" section (runner.go); not_contains does not.
_SEES_CALLS = {"contains": {"tool_calls_section": True}, "regex": {"tool_calls_section": True}}
_EMPTY_NOTES = {"contains": "no expected substrings", "regex": "no patterns to match"}
#: Checks bench runs with AI Eval's own prompt and pass rule (``aieval_judged``), and the fields they read.
_PORTED = {
    "similarity": ("reference",),
    "factuality": ("ground_truth",),
    "toxicity": (),
    "bias": ("categories",),
}
#: Judged checks: bench type, AI Eval's fields passed on, pass threshold without score_threshold.
_JUDGED: dict[str, tuple[tuple[str, ...], float]] = {
    "hallucination": (("ground_truth",), 0.9),
    "faithfulness": (("context",), 0.8),
    "relevancy": (("question",), 0.8),
    "precision": (("context", "question"), 0.0),  # without a threshold, precision always passes
    "task_completion": (("task",), 0.6),
}
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][\w]*(?:\.\w+)*)\}")


def literal(text: str) -> str:
    """Text that bench's templates send unchanged (``{name}`` written as ``{{name}}``)."""
    return _PLACEHOLDER.sub(lambda m: "{{" + m.group(1) + "}}", text)


class CaseConverter:
    """Turns decoded cases of one suite into native tasks."""

    def __init__(
        self, source: str, prompt: dict[str, Any], warn: Callable[[str], None], judge: dict[str, Any]
    ) -> None:
        self.source = source
        self.prompt = prompt
        self.warn = warn
        #: The judges' model settings: AI Eval's llm_judge asks the model the run asks.
        self.judge = judge

    def task(self, index: int, case: dict[str, Any], trials: int) -> dict[str, Any]:
        at = f"cases[{index}] ({case['id'].strip()})"
        task: dict[str, Any] = {"id": case["id"]}
        if case["description"]:
            task["description"] = case["description"]
        task.update(self._input(at, case))
        task["evaluate"] = self._checks(at, case)
        if trials > 1:
            task["repeat"] = trials
        if case["tool_mocks"]:  # runner.go: mocks make the case a tool loop of max_steps (5) turns
            task["tool_mocks"] = [_mock(mock) for mock in case["tool_mocks"]]
            task["max_steps"] = case["max_steps"] or 5
        return task

    def _input(self, at: str, case: dict[str, Any]) -> dict[str, Any]:
        try:
            rendered = render(self.prompt, case["input"])
        except Unsupported as exc:
            raise ConfigError(
                f'{at}: prompt "{self.prompt["name"]}": {exc} is beyond the Go template subset bench reads '
                "({{.Name}}, {{if}}/{{else}}/{{end}}, {{range}}/{{else}}/{{end}})",
                file=self.source,
            ) from None
        except RenderError as exc:  # AI Eval fails every trial of the case with this error
            return {"prompt": "", "response": {"output": "", "error": str(exc)}}
        if not self.prompt["is_system_prompt"]:
            return {"prompt": literal(rendered)}
        task = case["input"].get("user_task")
        user = FALLBACK_TASK if "user_task" not in case["input"] else go_format(task)
        return {
            "input": [
                {"role": "system", "content": literal(rendered)},
                {"role": "user", "content": literal(user)},
            ]
        }

    def _checks(self, at: str, case: dict[str, Any]) -> list[dict[str, Any]]:
        """``buildEvalTasks``: the evaluators list in order, then the block's unclaimed assertions."""
        expected = case["expected"]
        checks: list[dict[str, Any]] = []
        seen: set[str] = set()
        tool_call_threshold = 0.0
        for j, entry in enumerate(case["evaluators"]):
            kind = entry["type"].strip()
            seen.add(kind)
            where = f"{at}: evaluators[{j}] ({kind})"
            threshold = {"threshold": entry["score_threshold"]} if entry["score_threshold"] > 0 else {}
            if kind == "tool_call":
                tool_call_threshold = entry["score_threshold"]
            elif kind in _TEXT_TYPES:
                key = "exact_match" if kind == "exact" else kind
                value = expected[key]
                if kind in _EMPTY_NOTES and not value:
                    self.warn(
                        f"{self.source}: {where} checks the case's expected.{kind}, which is empty: "
                        f'it passes with score 1 ("{_EMPTY_NOTES[kind]}"), as in AI Eval'
                    )
                    value = ""  # an empty substring or pattern: found, score 1
                checks.append(
                    {
                        "type": _TEXT_TYPES[kind],
                        "name": kind,
                        "value": value,
                        **_SEES_CALLS.get(kind, {}),
                        **threshold,
                    }
                )
            elif kind == "json_schema":
                if not expected["json_schema"]:
                    raise ConfigError(
                        f"{where}: the case has no expected.json_schema; AI Eval fails this check on every "
                        "trial (nil schema)",
                        file=self.source,
                    )
                checks.append(
                    {"type": "json_schema", "name": kind, "schema": expected["json_schema"], **threshold}
                )
            elif kind == "llm_judge":
                judge = {"type": "llm_judge", "name": kind, **self.judge, "criteria": entry["criteria"]}
                if entry["rubric"]:
                    judge["rubric"] = entry["rubric"]
                checks.append({**judge, **threshold})
            elif kind in _JUDGED:
                checks.append(self._judged(kind, entry))
            elif kind == "tool_selection":
                checks.append(self._tool_selection(where, entry))
            elif kind == "efficiency":
                checks.append(self._efficiency(where, case, entry))
            else:
                assert kind in _PORTED, kind
                fields = {key: entry[key] for key in _PORTED[kind] if entry[key]}
                check = {"type": "aieval_judged", "name": kind, "check": kind, **fields, **self.judge}
                checks.append({**check, "entry_threshold": entry["score_threshold"]})
        if expected["exact_match"] and "exact" not in seen:
            checks.append(
                {"type": "exact_match", "name": "expected.exact_match", "value": expected["exact_match"]}
            )
        for key in ("contains", "not_contains", "regex"):
            if expected[key] and (key == "not_contains" or key not in seen):
                check = {"type": key, "name": f"expected.{key}", "value": list(expected[key])}
                checks.append({**check, **_SEES_CALLS.get(key, {})})
        if expected["json_schema"] and "json_schema" not in seen:
            checks.append(
                {"type": "json_schema", "name": "expected.json_schema", "schema": expected["json_schema"]}
            )
        if expected["tool_calls"]:
            calls = [
                {
                    "name": call["name"].strip(),
                    "args_match": call["args_match"] or {},
                    "order": call["order"],
                    "required": call["required"],
                }
                for call in expected["tool_calls"]
            ]
            entry = {"type": "tool_calls", "name": "expected.tool_calls", "calls": calls}
            if tool_call_threshold > 0:
                entry["threshold"] = tool_call_threshold
            checks.append(entry)
        return _unique_names(checks)

    def _judged(self, kind: str, entry: dict[str, Any]) -> dict[str, Any]:
        """A judged check: AI Eval passes it at score >= score_threshold, or the type's default."""
        fields, default = _JUDGED[kind]
        check: dict[str, Any] = {"type": kind, "name": kind, **self.judge}
        for key in fields:
            if entry[key]:
                check[key] = entry[key]
        if kind == "task_completion" and entry["criteria_list"]:
            # AI Eval's judge weighs the criteria into one score; bench's would score each one
            criteria = "\n".join(f"- {c}" for c in entry["criteria_list"])
            check["task"] = f"{entry['task']}\n\nCriteria:\n{criteria}"
        threshold = entry["score_threshold"]
        check["threshold"] = threshold if threshold > 0 else default
        return check

    def _tool_selection(self, where: str, entry: dict[str, Any]) -> dict[str, Any]:
        """Share of expected tools called; AI Eval passes only when all were (or at score_threshold)."""
        if not entry["expected_tools"]:
            raise ConfigError(
                f"{where}: no expected_tools; AI Eval then passes only a trial that calls no tool, "
                "which bench's tool_selection cannot check",
                file=self.source,
            )
        threshold = entry["score_threshold"]
        return {
            "type": "tool_selection",
            "name": "tool_selection",
            "expected_tools": list(entry["expected_tools"]),
            "threshold": threshold if threshold > 0 else 1.0,
        }

    def _efficiency(self, where: str, case: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
        """Step and token budgets; without tool mocks AI Eval counts one step and the call's tokens."""
        if case["tool_mocks"]:
            raise ConfigError(
                f"{where}: AI Eval counts the steps and tokens of its mocked tool loop by its own "
                "rules, which bench's efficiency check does not reproduce yet",
                file=self.source,
            )
        check: dict[str, Any] = {
            "type": "efficiency",
            "name": "efficiency",
            "max_steps": entry["max_steps"] or case["max_steps"] or 5,
            "max_tokens": entry["max_tokens"] or 1000,
        }
        if entry["score_threshold"] > 0:
            check["threshold"] = entry["score_threshold"]
        return check


def _unique_names(checks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """AI Eval may list a type twice; bench names each check once: ``contains``, ``contains#2``."""
    seen: dict[str, int] = {}
    for check in checks:
        name = check["name"]
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            check["name"] = f"{name}#{seen[name]}"
    return checks


def _mock(mock: dict[str, Any]) -> dict[str, Any]:
    """A ``tool_mocks`` entry as the litellm target reads it (``toolExecutorFromMocks``'s fields)."""
    out: dict[str, Any] = {"name": mock["name"], "response": mock["response"]}
    if mock["error"].strip():
        out["error"] = mock["error"]
    if mock["match"]:
        out["match"] = mock["match"]
    return out
