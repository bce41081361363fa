"""Scripted judge verdicts for the fake server: answers in whatever shape the judge asked for.

    server.add(judge_verdict(passed=False, reason="wrong capital"), match="capital")

The responder reads the verdict's JSON Schema from the request (the forced tool's parameters, or
the schema bench puts in the prompt in JSON mode) and fills it: ``reason``, ``score``, ``passed``
(a request that names no schema, a judge asking in its own words, gets those fields and any
others given, whatever its text says);
lists of objects (claims, statements) get one item when passing and stay empty otherwise; assertion
verdicts get one entry per ``- name: ...`` line, and chunk and criterion verdicts one per ``[n]`` line
of the prompt.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from bench.testing.server import Reply

_ASSERTION_LINE = re.compile(r"^- ([\w.-]+): ", re.MULTILINE)
_CHUNK_LINE = re.compile(r"^\[\d+\] ", re.MULTILINE)


#: How bench's JSON mode (bench.llm.verdict) asks for a verdict: a message of its own, after the
#: judge's prompt.
_SCHEMA_ASKED = "Answer with only a JSON object matching this JSON Schema:\n"


def _schema_of(body: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The verdict's schema: the forced tool's parameters, or the one bench's JSON mode sends in a
    message of its own (never one an answer quotes); ``{}`` when the request names none."""
    tools = body.get("tools") or []
    if tools:
        return tools[0]["function"]["parameters"], True
    for message in reversed(body.get("messages") or []):
        text = str(message.get("content") or "")
        if message.get("role") == "user" and text.startswith(_SCHEMA_ASKED):
            return json.loads(text.removeprefix(_SCHEMA_ASKED)), False
    return {}, False


def _fill(
    schema: dict[str, Any], defs: dict[str, Any], values: dict[str, Any], names: list[str], chunks: int = 0
) -> Any:
    if "$ref" in schema:
        return _fill(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, values, names, chunks)
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        out = {}
        for key, prop in schema.get("properties", {}).items():
            if key in values:
                out[key] = values[key]
            elif key == "assertions" and names:
                item = prop.get("items", {})
                score = 1 if values.get("passed", True) else 0
                out[key] = [{**_fill(item, defs, values, []), "name": name, "score": score} for name in names]
            elif key in ("chunks", "criteria") and chunks:
                item = prop.get("items", {})
                out[key] = [_fill(item, defs, values, []) for _ in range(chunks)]
            elif (
                prop.get("type") == "array" and "$ref" in prop.get("items", {}) and values.get("passed", True)
            ):
                out[key] = [_fill(prop["items"], defs, values, [])]  # one judged item (a claim, a statement)
            else:
                out[key] = _fill(prop, defs, values, names)
        return out
    if "enum" in schema:
        return schema["enum"][-1]
    if "anyOf" in schema:
        return _fill(schema["anyOf"][0], defs, values, names)
    return {"string": "scripted", "number": 1, "integer": 1, "boolean": True, "array": []}.get(str(kind))


def judge_verdict(
    passed: bool = True, score: float | None = None, reason: str = "scripted verdict", **fields: Any
) -> Callable[[dict[str, Any]], Reply]:
    """A responder answering any bench judge with the given verdict."""
    values = {
        "passed": passed,
        "score": (1.0 if passed else 0.0) if score is None else score,
        "reason": reason,
        **fields,
    }

    def respond(body: dict[str, Any]) -> Reply:
        schema, as_tool = _schema_of(body)
        prompt = "\n".join(str(m.get("content") or "") for m in body.get("messages") or [])
        names = _ASSERTION_LINE.findall(prompt.split("Assertions:", 1)[1]) if "Assertions:" in prompt else []
        chunks = len(_CHUNK_LINE.findall(prompt))
        # No schema: the judge describes its verdict in its own words, which are never read here
        # (they quote the answer being judged, which may say anything).
        verdict = _fill(schema, schema.get("$defs", {}), values, names, chunks) if schema else values
        if as_tool:
            name = body["tools"][0]["function"]["name"]
            return Reply(
                content=None, tool_calls=[{"name": name, "arguments": verdict}], finish_reason="tool_calls"
            )
        return Reply(json.dumps(verdict))

    return respond
