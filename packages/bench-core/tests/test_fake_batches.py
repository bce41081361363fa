"""The fake server's batch APIs answer like OpenAI's and Anthropic's, over real HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid
from typing import Any

import pytest

from bench.testing.batches import BatchPlan
from bench.testing.server import FakeLLMServer, Fault, Reply


def call(url: str, method: str = "GET", body: Any = None, raw: bytes | None = None, ctype: str = "") -> Any:
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", ctype or "application/json")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            payload = response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
    if url.endswith(("/content", "/results")):  # JSON Lines
        return 200, [json.loads(line) for line in payload.splitlines()]
    return 200, json.loads(payload)


def upload(server: FakeLLMServer, lines: list[dict[str, Any]], purpose: str = "batch") -> Any:
    boundary = uuid.uuid4().hex
    content = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    raw = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="purpose"\r\n\r\n{purpose}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="in.jsonl"\r\n'
            "Content-Type: application/jsonl\r\n\r\n"
        ).encode()
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return call(f"{server.url}/files", "POST", raw=raw, ctype=f"multipart/form-data; boundary={boundary}")


def line(custom_id: str, text: str) -> dict[str, Any]:
    body = {"model": "fake", "messages": [{"role": "user", "content": text}]}
    return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body}


def openai_batch(server: FakeLLMServer, lines: list[dict[str, Any]]) -> dict[str, Any]:
    status, file = upload(server, lines)
    assert status == 200
    assert file["purpose"] == "batch"
    assert file["object"] == "file"
    status, batch = call(
        f"{server.url}/batches",
        "POST",
        {
            "input_file_id": file["id"],
            "endpoint": "/v1/chat/completions",
            "completion_window": "24h",
            "metadata": {"bench": "x"},
        },
    )
    assert status == 200
    return dict(batch)


def poll_to_end(server: FakeLLMServer, batch_id: str, path: str = "batches") -> list[str]:
    seen = []
    for _ in range(10):
        _, batch = call(f"{server.url}/{path}/{batch_id}")
        seen.append(batch.get("status") or batch.get("processing_status"))
        if seen[-1] in ("completed", "expired", "cancelled", "failed", "ended"):
            return seen
    raise AssertionError(f"batch never ended: {seen}")


def test_openai_batch_goes_through_its_statuses_and_answers_each_line_by_the_rules():
    with FakeLLMServer() as server:
        server.add(Reply("Paris"), match="capital")
        server.add(Fault(400, message="bad line"), match="broken")
        server.batches.plan(BatchPlan(polls=3))
        batch = openai_batch(server, [line("a", "capital of France?"), line("b", "hi"), line("c", "broken")])
        assert batch["status"] == "validating"
        assert batch["metadata"] == {"bench": "x"}
        assert batch["request_counts"] == {"total": 3, "completed": 0, "failed": 0}
        assert poll_to_end(server, batch["id"]) == ["in_progress", "in_progress", "finalizing", "completed"]
        _, ended = call(f"{server.url}/batches/{batch['id']}")
        assert ended["request_counts"] == {"total": 3, "completed": 2, "failed": 1}
        _, outputs = call(f"{server.url}/files/{ended['output_file_id']}/content")
        _, errors = call(f"{server.url}/files/{ended['error_file_id']}/content")
        answers = {o["custom_id"]: o["response"]["body"]["choices"][0]["message"]["content"] for o in outputs}
        assert answers == {"a": "Paris", "b": "echo: hi"}
        assert [(e["custom_id"], e["response"]["status_code"]) for e in errors] == [("c", 400)]
        assert errors[0]["response"]["body"]["error"]["message"] == "bad line"
        assert server.batches.count("POST /v1/files") == 1
        assert server.batches.count("POST /v1/batches") == 1
        assert server.batches.count("GET /v1/batches/{id}") == 5
        assert server.batches.count("GET /v1/files/{id}/content") == 2
        assert server.count() == 0  # no live call was made


@pytest.mark.parametrize(("end", "code"), [("expired", "batch_expired"), ("cancelled", "batch_cancelled")])
def test_openai_batch_that_ends_early_puts_its_unrun_lines_in_the_error_file(end, code):
    with FakeLLMServer() as server:
        server.batches.plan(BatchPlan(polls=0, end=end, finished=1))
        batch = openai_batch(server, [line("a", "one"), line("b", "two"), line("c", "three")])
        assert poll_to_end(server, batch["id"]) == [end]
        _, ended = call(f"{server.url}/batches/{batch['id']}")
        _, errors = call(f"{server.url}/files/{ended['error_file_id']}/content")
        assert [(e["custom_id"], e["error"]["code"], e["response"]) for e in errors] == [
            ("b", code, None),
            ("c", code, None),
        ]
        assert ended["request_counts"] == {"total": 3, "completed": 1, "failed": 2}


def test_openai_cancel_and_failed_and_list():
    with FakeLLMServer() as server:
        server.batches.plan(BatchPlan(polls=5))
        server.batches.plan(BatchPlan(end="failed"))
        first = openai_batch(server, [line("a", "one")])
        second = openai_batch(server, [line("a", "one")])
        _, cancelling = call(f"{server.url}/batches/{first['id']}/cancel", "POST")
        assert cancelling["status"] == "cancelling"
        assert cancelling["cancelling_at"]
        assert poll_to_end(server, first["id"]) == ["cancelled"]
        assert poll_to_end(server, second["id"]) == ["failed"]  # refused while validating
        _, failed = call(f"{server.url}/batches/{second['id']}")
        assert failed["errors"]["data"][0]["code"] == "invalid_request"
        assert failed["output_file_id"] is None
        _, page = call(f"{server.url}/batches?limit=1")
        assert [b["id"] for b in page["data"]] == [second["id"]]
        assert page["has_more"] is True
        _, rest = call(f"{server.url}/batches?limit=1&after={second['id']}")
        assert [b["id"] for b in rest["data"]] == [first["id"]]
        assert rest["has_more"] is False


def test_openai_upload_without_batch_purpose_is_refused():
    with FakeLLMServer() as server:
        status, body = upload(server, [line("a", "x")], purpose="fine-tune")
        assert status == 400
        assert body["error"]["message"] == "purpose must be 'batch'"
        status, body = call(f"{server.url}/batches/batch_nope")
        assert status == 404
        assert body["error"]["message"] == "No batch found with id 'batch_nope'."


def anthropic_request(custom_id: str, text: str) -> dict[str, Any]:
    params = {
        "model": "claude-x",
        "max_tokens": 64,
        "system": "be brief",
        "messages": [{"role": "user", "content": [{"type": "text", "text": text}]}],
    }
    return {"custom_id": custom_id, "params": params}


def test_anthropic_message_batch_ends_with_results_per_request():
    with FakeLLMServer() as server:
        server.add(Reply("Paris", prompt_tokens=7, completion_tokens=2), match="capital")
        server.add(Fault(500, message="overloaded"), match="broken")
        server.batches.plan(BatchPlan(polls=2))
        requests = [anthropic_request("a", "capital?"), anthropic_request("b", "broken")]
        status, batch = call(f"{server.url}/messages/batches", "POST", {"requests": requests})
        assert status == 200
        assert batch["type"] == "message_batch"
        assert batch["processing_status"] == "in_progress"
        assert batch["request_counts"]["processing"] == 2
        assert batch["results_url"] is None
        status, early = call(f"{server.url}/messages/batches/{batch['id']}/results")
        assert status == 400
        assert early["error"]["type"] == "invalid_request_error"
        assert poll_to_end(server, batch["id"], "messages/batches") == ["in_progress", "in_progress", "ended"]
        _, ended = call(f"{server.url}/messages/batches/{batch['id']}")
        assert ended["request_counts"] == {
            "processing": 0,
            "succeeded": 1,
            "errored": 1,
            "canceled": 0,
            "expired": 0,
        }
        assert ended["results_url"].endswith(f"/v1/messages/batches/{batch['id']}/results")
        _, results = call(f"{server.url}/messages/batches/{batch['id']}/results")
        ok, bad = results
        assert ok["custom_id"] == "a"
        assert ok["result"]["type"] == "succeeded"
        assert ok["result"]["message"]["content"] == [{"type": "text", "text": "Paris"}]
        assert ok["result"]["message"]["usage"] == {"input_tokens": 7, "output_tokens": 2}
        assert ok["result"]["message"]["stop_reason"] == "end_turn"
        assert bad["result"] == {
            "type": "errored",
            "error": {"type": "error", "error": {"type": "api_error", "message": "overloaded"}},
        }
        assert server.batches.ran[0]["system"] == "be brief"
        assert server.batches.count("GET /v1/messages/batches/{id}/results") == 2


def test_anthropic_cancel_and_expiry_mark_the_unrun_requests():
    with FakeLLMServer() as server:
        server.batches.plan(BatchPlan(polls=3))
        server.batches.plan(BatchPlan(polls=0, end="expired", finished=1))
        requests = [anthropic_request("a", "one"), anthropic_request("b", "two")]
        _, first = call(f"{server.url}/messages/batches", "POST", {"requests": requests})
        _, second = call(f"{server.url}/messages/batches", "POST", {"requests": requests})
        _, canceling = call(f"{server.url}/messages/batches/{first['id']}/cancel", "POST")
        assert canceling["processing_status"] == "canceling"
        assert canceling["cancel_initiated_at"]
        poll_to_end(server, first["id"], "messages/batches")
        poll_to_end(server, second["id"], "messages/batches")
        _, cancelled = call(f"{server.url}/messages/batches/{first['id']}/results")
        _, expired = call(f"{server.url}/messages/batches/{second['id']}/results")
        assert [r["result"]["type"] for r in cancelled] == ["canceled", "canceled"]
        assert [r["result"]["type"] for r in expired] == ["succeeded", "expired"]
        _, listed = call(f"{server.url}/messages/batches?limit=5")
        assert [b["id"] for b in listed["data"]] == [second["id"], first["id"]]


def test_batch_plan_refuses_an_unknown_end():
    with pytest.raises(
        ValueError, match="end must be one of completed, expired, cancelled, failed, not 'done'"
    ):
        BatchPlan(end="done")
