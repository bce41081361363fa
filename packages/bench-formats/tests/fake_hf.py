"""A fake Hugging Face text-classification endpoint on 127.0.0.1, for promptfoo's ``classifier``.

    with FakeHuggingFace([{"match": "love", "answer": [[{"label": "POSITIVE", "score": 0.9}]]}]) as hf:
        ... POST {hf.url}/models/MODEL {"inputs": "I love it", "parameters": {}} ...
        hf.requests  # [(path, body bytes, Authorization header or None), ...]

A POST is answered by the first rule whose ``match`` is in its ``inputs`` (``answer`` as JSON,
with ``status``, default 200), else ``DEFAULT``: the shape Hugging Face's Inference API gives for a
text-classification model. The conformance case ``classifier`` reads its rules from ``fake-hf.json``
(record.py runs promptfoo against the same server).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT: Any = [[{"label": "NEUTRAL", "score": 0.6}, {"label": "POSITIVE", "score": 0.4}]]


class FakeHuggingFace:
    """The server; ``url`` is its base (``http://127.0.0.1:PORT``), ``requests`` what reached it."""

    def __init__(self, rules: list[dict[str, Any]] | None = None) -> None:
        self.rules = list(rules or [])
        self.requests: list[tuple[str, bytes, str | None]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                owner.requests.append((self.path, raw, self.headers.get("Authorization")))
                status, answer = owner.answer(raw)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, raw: bytes) -> tuple[int, Any]:
        text = str(json.loads(raw or b"{}").get("inputs"))
        rule = next((r for r in self.rules if r["match"] in text), None)
        return (200, DEFAULT) if rule is None else (int(rule.get("status", 200)), rule["answer"])

    def __enter__(self) -> FakeHuggingFace:
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
