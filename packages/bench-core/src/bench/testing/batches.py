"""The fake server's batch APIs: OpenAI's files and batches, Anthropic's Message Batches.

    with FakeLLMServer() as server:
        server.batches.plan(BatchPlan(polls=3))                 # three polls "in progress" first
        server.batches.plan(BatchPlan(end="expired", finished=2))  # the next batch expires after two
        ...
        assert server.batches.count("POST /v1/batches") == 1

Each request line of a batch is answered by the server's rules, as the same chat completion
sent live would be (a ``Fault`` with an HTTP status becomes that line's error). A batch ends at a
retrieve, after its plan's ``polls`` retrieves answered it in progress (OpenAI: ``validating``,
then ``in_progress``, ``finalizing`` on the last), the way a provider's batch ends while a client
polls it. Shapes follow the providers' API references and SDK types (openai ``Batch``,
``BatchRequestOutput``; anthropic ``MessageBatch``, ``MessageBatchIndividualResponse``).
``count`` counts requests per endpoint, ids written ``{id}``: ``"GET /v1/batches/{id}"``.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

#: An OpenAI chat completion body -> the status and body the server would answer it live.
Complete = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]
#: What a route answers: a status, the body (JSON, or bytes sent as JSON Lines).
Answer = tuple[int, Any]

ENDS = ("completed", "expired", "cancelled", "failed")
_EXPIRED = "This request could not be executed before the completion window expired."
_CANCELLED = "The batch was cancelled before this request executed."
_STOPS = {"stop": "end_turn", "length": "max_tokens", "tool_calls": "tool_use"}


@dataclass
class BatchPlan:
    """How one batch goes: ``polls`` retrieves answer it in progress, then it ends as ``end``;
    an ``expired`` or ``cancelled`` batch ran only its first ``finished`` requests, a ``failed``
    one (its input refused while validated, at the first poll) none."""

    polls: int = 1
    end: str = "completed"
    finished: int = 0

    def __post_init__(self) -> None:
        if self.end not in ENDS:
            raise ValueError(f"end must be one of {', '.join(ENDS)}, not {self.end!r}")


@dataclass
class _Batch:
    kind: str  # "openai" or "anthropic"
    id: str
    obj: dict[str, Any]
    lines: list[dict[str, Any]]
    plan: BatchPlan
    polls_left: int
    cancelling: bool = False
    results: bytes = b""


def _now() -> int:
    return int(time.time())


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat().replace("+00:00", "Z")


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(row).encode() + b"\n" for row in rows)


class FakeBatches:
    """Batches held by one fake server; ``answer`` routes an HTTP request to them."""

    def __init__(self, complete: Complete) -> None:
        self._complete = complete
        self._lock = threading.RLock()  # a batch ending under it writes its files under it too
        self.files: dict[str, dict[str, Any]] = {}
        self._contents: dict[str, bytes] = {}
        self.batches: dict[str, _Batch] = {}
        self._plans: list[BatchPlan] = []
        #: Requests per endpoint, ids written ``{id}``.
        self.calls: Counter[str] = Counter()
        #: Every request line a batch ran, in order (the chat body for OpenAI, params for Anthropic).
        self.ran: list[dict[str, Any]] = []
        #: The plan of a batch no ``plan`` was queued for.
        self.default = BatchPlan()
        self._held: str | None = None
        self._arrived = threading.Event()
        self._release = threading.Event()

    def plan(self, plan: BatchPlan) -> FakeBatches:
        """Queue how the next batch created goes (plans are used in the order queued)."""
        with self._lock:
            self._plans.append(plan)
        return self

    def hold(self, endpoint: str) -> threading.Event:
        """Leave the next request to ``endpoint`` (``"POST /v1/batches"``) unanswered, after it took
        effect, until ``release``: the event returned is set once it arrived (a test kills the
        client then, between the provider's work and the client's reading of it)."""
        with self._lock:
            self._held = endpoint
            self._arrived.clear()
            self._release.clear()
        return self._arrived

    def release(self) -> None:
        """Answer the request ``hold`` holds (its client may be gone)."""
        self._release.set()

    def count(self, endpoint: str) -> int:
        """How many requests reached ``endpoint`` (``"POST /v1/batches"``)."""
        with self._lock:
            return self.calls[endpoint]

    def answer(self, method: str, path: str, raw: bytes, content_type: str) -> Answer | None:
        """The answer to a batch API request, or None when ``path`` is not one."""
        bare = path.split("?", 1)[0].rstrip("/")
        query = dict(p.split("=", 1) for p in path.partition("?")[2].split("&") if "=" in p)
        parts = bare.split("/")[2:]  # after "" and "v1"
        if parts[:2] == ["messages", "batches"]:
            route = self._anthropic(method, parts[2:], raw, query)
            template = (
                "/v1/messages/batches"
                + ("/{id}" if len(parts) > 2 else "")
                + "".join(f"/{p}" for p in parts[3:])
            )
        elif parts[:1] in (["files"], ["batches"]):
            route = self._openai(method, parts, raw, content_type, query)
            template = (
                f"/v1/{parts[0]}" + ("/{id}" if len(parts) > 1 else "") + "".join(f"/{p}" for p in parts[2:])
            )
        else:
            return None
        endpoint = f"{method} {template}"
        with self._lock:
            self.calls[endpoint] += 1
            held, self._held = self._held == endpoint, None if self._held == endpoint else self._held
        if held:
            self._arrived.set()
            self._release.wait(30)
        return route

    # -- OpenAI -------------------------------------------------------------------------------

    def _openai(
        self, method: str, parts: list[str], raw: bytes, content_type: str, query: dict[str, str]
    ) -> Answer:
        if parts == ["files"] and method == "POST":
            return self._upload(raw, content_type)
        if parts[0] == "files" and len(parts) >= 2 and method == "GET":
            if parts[1] not in self.files:
                return _not_found(f"No such File object: {parts[1]}")
            return (
                (200, self._contents[parts[1]]) if parts[2:] == ["content"] else (200, self.files[parts[1]])
            )
        if parts == ["batches"]:
            return self._create_openai(raw) if method == "POST" else self._list("openai", query, "after")
        batch = self.batches.get(parts[1]) if len(parts) > 1 else None
        if batch is None or batch.kind != "openai":
            return _not_found(f"No batch found with id '{parts[1] if len(parts) > 1 else ''}'.")
        if parts[2:] == ["cancel"] and method == "POST":
            return 200, self._cancel(batch)
        return 200, self._advance(batch)

    def _upload(self, raw: bytes, content_type: str) -> Answer:
        fields = _multipart(raw, content_type)
        if fields.get("purpose", (b"", ""))[0] != b"batch":
            return 400, {"error": {"message": "purpose must be 'batch'", "type": "invalid_request_error"}}
        data, filename = fields.get("file", (b"", "input.jsonl"))
        file_id = self._file(data, filename, "batch")
        return 200, self.files[file_id]

    def _file(self, data: bytes, filename: str, purpose: str) -> str:
        file_id = f"file-{uuid.uuid4().hex[:24]}"
        with self._lock:
            self._contents[file_id] = data
            self.files[file_id] = {
                "id": file_id,
                "object": "file",
                "bytes": len(data),
                "created_at": _now(),
                "filename": filename,
                "purpose": purpose,
                "status": "processed",
            }
        return file_id

    def _create_openai(self, raw: bytes) -> Answer:
        body = json.loads(raw or b"{}")
        file_id = body.get("input_file_id")
        if file_id not in self._contents:
            return 400, {
                "error": {"message": f"No such File object: {file_id}", "type": "invalid_request_error"}
            }
        lines = [json.loads(line) for line in self._contents[file_id].splitlines() if line.strip()]
        batch_id = f"batch_{uuid.uuid4().hex[:24]}"
        obj = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body.get("endpoint", "/v1/chat/completions"),
            "errors": None,
            "input_file_id": file_id,
            "completion_window": body.get("completion_window", "24h"),
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": _now(),
            "in_progress_at": None,
            "expires_at": _now() + 86400,
            "finalizing_at": None,
            "completed_at": None,
            "failed_at": None,
            "expired_at": None,
            "cancelling_at": None,
            "cancelled_at": None,
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0},
            "metadata": body.get("metadata"),
        }
        self._hold(_Batch("openai", batch_id, obj, lines, *self._next_plan()))
        return 200, obj

    def _end_openai(self, batch: _Batch, end: str) -> None:
        obj, plan = batch.obj, batch.plan
        outputs: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        if end == "failed":
            message = "The batch's input was refused."
            obj["errors"] = {"object": "list", "data": [{"code": "invalid_request", "message": message}]}
        else:
            ran = len(batch.lines) if end == "completed" else min(plan.finished, len(batch.lines))
            for i, line in enumerate(batch.lines):
                row_id = f"batch_req_{uuid.uuid4().hex[:24]}"
                if i >= ran:
                    code, message = (
                        ("batch_expired", _EXPIRED) if end == "expired" else ("batch_cancelled", _CANCELLED)
                    )
                    error = {"code": code, "message": message}
                    errors.append(
                        {"id": row_id, "custom_id": line.get("custom_id"), "response": None, "error": error}
                    )
                    continue
                self.ran.append(line.get("body") or {})
                status, answer = self._complete(line.get("body") or {})
                response = {
                    "status_code": status,
                    "request_id": f"req_{uuid.uuid4().hex[:16]}",
                    "body": answer,
                }
                row = {"id": row_id, "custom_id": line.get("custom_id"), "response": response, "error": None}
                (outputs if status == 200 else errors).append(row)
            if outputs:
                obj["output_file_id"] = self._file(_jsonl(outputs), "batch_output.jsonl", "batch_output")
            if errors:
                obj["error_file_id"] = self._file(_jsonl(errors), "batch_errors.jsonl", "batch_output")
        obj["status"] = end
        obj[f"{end}_at"] = _now()
        failed = len(errors) if end != "failed" else 0
        obj["request_counts"] = {"total": len(batch.lines), "completed": len(outputs), "failed": failed}

    def _cancel(self, batch: _Batch) -> dict[str, Any]:
        with self._lock:
            if not self._ended(batch):
                batch.cancelling = True
                if batch.kind == "openai":
                    batch.obj.update(status="cancelling", cancelling_at=_now())
                else:
                    batch.obj.update(processing_status="canceling", cancel_initiated_at=_iso(time.time()))
            return batch.obj

    # -- Anthropic ----------------------------------------------------------------------------

    def _anthropic(self, method: str, parts: list[str], raw: bytes, query: dict[str, str]) -> Answer:
        if not parts:
            return (
                self._create_anthropic(raw)
                if method == "POST"
                else self._list("anthropic", query, "after_id")
            )
        batch = self.batches.get(parts[0])
        if batch is None or batch.kind != "anthropic":
            error = {"type": "not_found_error", "message": f"Batch {parts[0]} not found"}
            return 404, {"type": "error", "error": error}
        if parts[1:] == ["cancel"] and method == "POST":
            return 200, self._cancel(batch)
        if parts[1:] == ["results"]:
            if not self._ended(batch):
                error = {"type": "invalid_request_error", "message": "Batch is still in progress."}
                return 400, {"type": "error", "error": error}
            return 200, batch.results
        return 200, self._advance(batch)

    def _create_anthropic(self, raw: bytes) -> Answer:
        requests = json.loads(raw or b"{}").get("requests") or []
        batch_id = f"msgbatch_{uuid.uuid4().hex[:24]}"
        counts = {"processing": len(requests), "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        obj = {
            "id": batch_id,
            "type": "message_batch",
            "processing_status": "in_progress",
            "request_counts": counts,
            "ended_at": None,
            "created_at": _iso(time.time()),
            "expires_at": _iso(time.time() + 86400),
            "archived_at": None,
            "cancel_initiated_at": None,
            "results_url": None,
        }
        self._hold(_Batch("anthropic", batch_id, obj, requests, *self._next_plan()))
        return 200, obj

    def _end_anthropic(self, batch: _Batch, end: str) -> None:
        ran = len(batch.lines) if end == "completed" else min(batch.plan.finished, len(batch.lines))
        if end == "failed":
            ran = 0
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        rows = []
        for i, request in enumerate(batch.lines):
            params = request.get("params") or {}
            if i >= ran:
                kind = "expired" if end in ("expired", "failed") else "canceled"
                result: dict[str, Any] = {"type": kind}
            else:
                self.ran.append(params)
                result = _anthropic_result(params, *self._complete(_openai_body(params)))
                kind = result["type"]
            counts[kind] += 1
            rows.append({"custom_id": request.get("custom_id"), "result": result})
        batch.results = _jsonl(rows)
        batch.obj.update(
            processing_status="ended",
            request_counts=counts,
            ended_at=_iso(time.time()),
            results_url=f"/v1/messages/batches/{batch.id}/results",
        )

    # -- shared -------------------------------------------------------------------------------

    def _next_plan(self) -> tuple[BatchPlan, int]:
        with self._lock:
            plan = self._plans.pop(0) if self._plans else self.default
        return plan, plan.polls

    def _hold(self, batch: _Batch) -> None:
        with self._lock:
            self.batches[batch.id] = batch

    @staticmethod
    def _ended(batch: _Batch) -> bool:
        return batch.obj.get("status") in ENDS or batch.obj.get("processing_status") == "ended"

    def _advance(self, batch: _Batch) -> dict[str, Any]:
        """A retrieve: one poll more; the batch ends once its polls are spent (or cancelled)."""
        with self._lock:
            if self._ended(batch):
                return batch.obj
            # An input is refused while it is validated: a failed batch fails at its first poll.
            if batch.cancelling or batch.polls_left <= 0 or batch.plan.end == "failed":
                end = "cancelled" if batch.cancelling else batch.plan.end
                (self._end_openai if batch.kind == "openai" else self._end_anthropic)(batch, end)
                return batch.obj
            batch.polls_left -= 1
            if batch.kind == "openai":
                status = "finalizing" if batch.polls_left == 0 else "in_progress"
                batch.obj.update(status=status, in_progress_at=batch.obj["in_progress_at"] or _now())
                if status == "finalizing":
                    batch.obj["finalizing_at"] = _now()
            return batch.obj

    def _list(self, kind: str, query: dict[str, str], after_key: str) -> Answer:
        """Batches newest first, ``limit`` a page, from after the id ``after_key`` names."""
        with self._lock:
            objs = [b.obj for b in reversed(self.batches.values()) if b.kind == kind]
        after = query.get(after_key)
        if after is not None:
            ids = [o["id"] for o in objs]
            objs = objs[ids.index(after) + 1 :] if after in ids else []
        limit = int(query.get("limit") or 20)
        page, more = objs[:limit], len(objs) > limit
        first = page[0]["id"] if page else None
        last = page[-1]["id"] if page else None
        body: dict[str, Any] = {"data": page, "has_more": more, "first_id": first, "last_id": last}
        if kind == "openai":
            body["object"] = "list"
        return 200, body


def _not_found(message: str) -> Answer:
    return 404, {"error": {"message": message, "type": "invalid_request_error", "code": None}}


def _multipart(raw: bytes, content_type: str) -> dict[str, tuple[bytes, str]]:
    """A multipart/form-data body's fields: name -> (bytes, filename)."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + raw)
    fields: dict[str, tuple[bytes, str]] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        fields[str(name)] = (data, str(part.get_filename() or ""))
    return fields


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(block.get("text", "")) for block in content if isinstance(block, dict))
    return str(content or "")


def _openai_body(params: dict[str, Any]) -> dict[str, Any]:
    """An Anthropic request's params as the chat body the server's rules read."""
    messages = [
        {"role": m.get("role"), "content": _text(m.get("content"))} for m in params.get("messages") or []
    ]
    if params.get("system"):
        messages.insert(0, {"role": "system", "content": _text(params["system"])})
    return {"model": params.get("model"), "messages": messages}


def _anthropic_result(params: dict[str, Any], status: int, body: dict[str, Any]) -> dict[str, Any]:
    """A live answer as an Anthropic batch result: ``succeeded`` with its message, or ``errored``."""
    if status != 200:
        error_type = "invalid_request_error" if 400 <= status < 500 else "api_error"
        said = str((body.get("error") or {}).get("message") or f"HTTP {status}")
        return {
            "type": "errored",
            "error": {"type": "error", "error": {"type": error_type, "message": said}},
        }
    choice = (body.get("choices") or [{}])[0]
    usage = body.get("usage") or {}
    message = {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": params.get("model"),
        "content": [{"type": "text", "text": (choice.get("message") or {}).get("content") or ""}],
        "stop_reason": _STOPS.get(choice.get("finish_reason") or "stop", "end_turn"),
        "stop_sequence": None,
        "usage": {
            "input_tokens": usage.get("prompt_tokens", 0),
            "output_tokens": usage.get("completion_tokens", 0),
        },
    }
    return {"type": "succeeded", "message": message}
