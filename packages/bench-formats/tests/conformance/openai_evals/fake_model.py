"""The scripted model both ``oaieval`` (record.py) and bench (the conformance test) are run against.

Every request is answered by the first rule of ``answers.json`` whose ``match`` is in the text of
its messages (the graders' rules come first: a grading prompt holds the answer it grades), else
by ``unmatched``. What each request sent is kept, so prompts can be compared as well as verdicts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.testing import FakeLLMServer, Reply

HERE = Path(__file__).parent
ANSWERS = json.loads((HERE / "answers.json").read_text(encoding="utf-8"))


def rule_for(body: dict[str, Any]) -> dict[str, Any] | None:
    """The rule that answers a chat completion request, or None."""
    text = "\n".join(str(message.get("content") or "") for message in body.get("messages") or [])
    return next((rule for rule in ANSWERS["rules"] if rule["match"] in text), None)


def serve() -> FakeLLMServer:
    """A started fake OpenAI-compatible server answering as ``answers.json`` says."""

    def respond(body: dict[str, Any]) -> Reply:
        rule = rule_for(body)
        return Reply(ANSWERS["unmatched"] if rule is None else rule["reply"])

    server = FakeLLMServer().start()
    server.default = respond
    return server


def sent(server: FakeLLMServer) -> list[dict[str, Any]]:
    """Each chat completion the server received: who it was for, its messages and parameters."""
    out = []
    for request in server.requests:
        if not request.path.endswith("/chat/completions"):
            continue
        body = request.body
        rule = rule_for(body)
        params = {k: v for k, v in body.items() if k not in {"messages", "model", "stream"}}
        out.append(
            {
                "who": "unmatched" if rule is None else rule["who"],
                "messages": body.get("messages"),
                "params": params,
            }
        )
    return out
