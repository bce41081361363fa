"""OTLP JSON traces with the OpenTelemetry GenAI semantic conventions: each root span a task.

A root span (an ``invoke_agent`` span, or any span without a parent in the file) and the spans
under it, in start order, become the task's trajectory as OpenAI-style messages:

- an inference span (``gen_ai.operation.name`` ``chat``, ``text_completion``,
  ``generate_content``) gives its ``gen_ai.output.messages`` (text and tool calls) as assistant
  messages, and its ``gen_ai.usage.*`` tokens;
- an ``execute_tool`` span gives a ``tool`` message answering ``gen_ai.tool.call.id`` with
  ``gen_ai.tool.call.result``; a span whose status is ERROR (or that has ``error.type``) is a failed
  step (``is_error``); its duration is kept (``duration_ms``). A tool span no inference span asked
  for gets the assistant call before it, from ``gen_ai.tool.name`` and ``gen_ai.tool.call.arguments``.

The input is the first ``gen_ai.input.messages`` (the root's, else the first inference's); the
output the last assistant text. The task's id is ``gen_ai.conversation.id`` when the root has
one, else the trace id (and the span id when a trace has several roots). A trace holds no verdict:
each task is an error until ``bench rescore RUN --suite SUITE`` judges it. The file is one
``ExportTraceServiceRequest`` as JSON (``resourceSpans``), or JSON Lines of them (the collector's
file exporter); ids may be hex (OTLP/JSON) or base64 (protobuf's JSON mapping).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from typing import Any

from bench import Response
from bench.importer import ImportedRun, ImportedTask, Importer, ImportSource, JsonLines
from bench.llm import Message, Usage
from bench_formats.imports.common import function_call, text_of, tool_calls

INFERENCE = frozenset({"chat", "text_completion", "generate_content"})
_ERROR = {2, "STATUS_CODE_ERROR"}


@dataclass
class Span:
    """One span, its attributes decoded."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start: int
    end: int
    attributes: dict[str, Any]
    failed: bool
    status_message: str
    children: list[Span] = field(default_factory=list)

    @property
    def operation(self) -> str:
        return str(self.attributes.get("gen_ai.operation.name") or "")

    @property
    def duration_ms(self) -> float:
        return max(0, self.end - self.start) / 1e6

    def descendants(self) -> list[Span]:
        found = []
        for child in self.children:
            found.append(child)
            found.extend(child.descendants())
        return sorted(found, key=lambda s: s.start)


class OtlpImporter(Importer):
    """OTLP JSON traces of GenAI agents (OpenTelemetry's GenAI semantic conventions)."""

    name = "otlp"
    description = "OTLP JSON traces with the OpenTelemetry GenAI attributes"

    def claims(self, source: ImportSource) -> bool:
        document = source.document()
        requests = document if isinstance(document, JsonLines) else [document]
        return bool(requests) and all(isinstance(r, dict) and "resourceSpans" in r for r in requests)

    def read(self, source: ImportSource) -> ImportedRun:
        document = source.document()
        requests = document if isinstance(document, JsonLines) else [document]
        spans = [span for request in requests for span in _spans(request)]
        by_id = {(s.trace_id, s.span_id): s for s in spans}
        roots = []
        for span in spans:
            parent = by_id.get((span.trace_id, span.parent_id))
            if parent is None or not span.parent_id:
                roots.append(span)
            else:
                parent.children.append(span)
        roots.sort(key=lambda s: s.start)
        per_trace: dict[str, int] = {}
        for root in roots:
            per_trace[root.trace_id] = per_trace.get(root.trace_id, 0) + 1
        tasks = [_task(root, per_trace[root.trace_id] > 1) for root in roots]
        service = _service(requests)
        return ImportedRun(
            suite=service or "otlp traces",
            tasks=tasks,
            source={"tool": "otlp", "service": service, "spans": len(spans), "traces": len(per_trace)},
        )


def _service(requests: list[Any]) -> str | None:
    for request in requests:
        for resource_spans in request.get("resourceSpans") or []:
            attributes = _attributes((resource_spans.get("resource") or {}).get("attributes"))
            if attributes.get("service.name"):
                return str(attributes["service.name"])
    return None


def _spans(request: dict[str, Any]) -> list[Span]:
    found = []
    for resource_spans in request.get("resourceSpans") or []:
        for scope_spans in resource_spans.get("scopeSpans") or []:
            for raw in scope_spans.get("spans") or []:
                status = raw.get("status") or {}
                attributes = _attributes(raw.get("attributes"))
                found.append(
                    Span(
                        trace_id=_hex(raw.get("traceId"), 16),
                        span_id=_hex(raw.get("spanId"), 8),
                        parent_id=_hex(raw.get("parentSpanId"), 8),
                        name=str(raw.get("name") or ""),
                        start=int(raw.get("startTimeUnixNano") or 0),
                        end=int(raw.get("endTimeUnixNano") or 0),
                        attributes=attributes,
                        failed=status.get("code") in _ERROR or "error.type" in attributes,
                        status_message=str(status.get("message") or attributes.get("error.type") or ""),
                    )
                )
    return found


def _hex(value: Any, size: int) -> str:
    """A trace or span id as hex: OTLP/JSON writes hex, protobuf's JSON mapping base64."""
    if not isinstance(value, str) or not value:
        return ""
    if len(value) == size * 2 and all(c in "0123456789abcdefABCDEF" for c in value):
        return value.lower()
    try:
        return base64.b64decode(value, validate=True).hex()
    except (binascii.Error, ValueError):
        return value


def _attributes(items: Any) -> dict[str, Any]:
    return {a["key"]: _value(a.get("value") or {}) for a in items or [] if isinstance(a, dict) and "key" in a}


def _value(value: dict[str, Any]) -> Any:
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [_value(v) for v in (value["arrayValue"].get("values") or [])]
    if "kvlistValue" in value:
        return _attributes(value["kvlistValue"].get("values"))
    return None


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _task(root: Span, several: bool) -> ImportedTask:
    spans = [root, *root.descendants()]
    messages: list[dict[str, Any]] = []
    asked: set[str] = set()
    given: list[dict[str, Any]] | None = None
    input_tokens = output_tokens = 0
    for span in spans:
        attributes = span.attributes
        if given is None and "gen_ai.input.messages" in attributes:
            given = _messages(_json(attributes["gen_ai.input.messages"]))
        if span.operation in INFERENCE:
            input_tokens += int(attributes.get("gen_ai.usage.input_tokens") or 0)
            output_tokens += int(attributes.get("gen_ai.usage.output_tokens") or 0)
            for message in _messages(_json(attributes.get("gen_ai.output.messages"))):
                asked |= {c["id"] for c in message.get("tool_calls") or [] if c.get("id")}
                messages.append(message)
        elif span.operation == "execute_tool":
            messages.extend(_tool_step(span, asked))
    prompt = next((m["content"] for m in reversed(given or []) if m["role"] == "user"), None)
    answer = next(
        (m["content"] for m in reversed(messages) if m["role"] == "assistant" and m["content"]), None
    )
    if answer is None and root is not spans[-1]:
        answer = None
    task_id = str(root.attributes.get("gen_ai.conversation.id") or root.trace_id)
    if several and "gen_ai.conversation.id" not in root.attributes:
        task_id = f"{root.trace_id}/{root.span_id}"
    return ImportedTask(
        id=task_id,
        prompt=prompt,
        messages=given if given and len(given) > 1 else None,
        response=Response(
            output=answer,
            error=(root.status_message or f"span '{root.name}' failed") if root.failed else None,
            messages=[Message.model_validate(m) for m in [*(given or []), *messages]],
            tool_calls=tool_calls(messages),
            usage=Usage(
                input_tokens=input_tokens or None,
                output_tokens=output_tokens or None,
                total_tokens=(input_tokens + output_tokens) or None,
                latency_ms=root.duration_ms,
            ),
        ),
        target={"type": "otlp", **({"model": m} if (m := _model(spans)) else {})},
        duration_ms=root.duration_ms,
        imported={
            "tool": "otlp",
            "trace_id": root.trace_id,
            "span_id": root.span_id,
            "name": root.name,
            "spans": len(spans),
            "attributes": {k: v for k, v in root.attributes.items() if not k.endswith(".messages")},
        },
    )


def _model(spans: list[Span]) -> str | None:
    for span in spans:
        model = span.attributes.get("gen_ai.response.model") or span.attributes.get("gen_ai.request.model")
        if model:
            return str(model)
    return None


def _tool_step(span: Span, asked: set[str]) -> list[dict[str, Any]]:
    """A tool span as its tool message, after the assistant's call when no inference made one."""
    attributes = span.attributes
    call_id = str(attributes.get("gen_ai.tool.call.id") or span.span_id)
    name = str(attributes.get("gen_ai.tool.name") or span.name.removeprefix("execute_tool "))
    steps: list[dict[str, Any]] = []
    if call_id not in asked:
        arguments = _json(attributes.get("gen_ai.tool.call.arguments")) or {}
        steps.append(
            {"role": "assistant", "content": None, "tool_calls": [function_call(call_id, name, arguments)]}
        )
    result = attributes.get("gen_ai.tool.call.result")
    text = result if isinstance(result, str) else json.dumps(result) if result is not None else ""
    message: dict[str, Any] = {"role": "tool", "tool_call_id": call_id, "name": name, "content": text}
    if span.failed:
        message["is_error"] = True
        message["content"] = text or span.status_message
    message["duration_ms"] = span.duration_ms
    steps.append(message)
    return steps


def _messages(value: Any) -> list[dict[str, Any]]:
    """GenAI messages (``role`` and ``parts``) as OpenAI-style ones; other shapes as they are."""
    if not isinstance(value, list):
        return []
    found = []
    for item in value:
        if not isinstance(item, dict) or "role" not in item:
            continue
        parts = item.get("parts")
        if not isinstance(parts, list):
            found.append({"role": item["role"], "content": text_of(item.get("content"))})
            continue
        texts = [str(p.get("content", "")) for p in parts if isinstance(p, dict) and p.get("type") == "text"]
        calls = [
            function_call(p.get("id"), str(p.get("name")), p.get("arguments") or {})
            for p in parts
            if isinstance(p, dict) and p.get("type") == "tool_call"
        ]
        responses = [p for p in parts if isinstance(p, dict) and p.get("type") == "tool_call_response"]
        if item["role"] == "tool" and responses:
            for part in responses:
                response = part.get("response")
                content = response if isinstance(response, str) else json.dumps(response)
                found.append({"role": "tool", "tool_call_id": part.get("id"), "content": content})
            continue
        message: dict[str, Any] = {"role": item["role"], "content": "".join(texts) or None}
        if calls:
            message["tool_calls"] = calls
        found.append(message)
    return found
