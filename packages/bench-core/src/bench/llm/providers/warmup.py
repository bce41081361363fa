"""Run litellm's OpenAI-compatible route once, in memory, before the first real call.

litellm imports hundreds of modules on its first completion (0.7-1.8 s here, more on a loaded
machine), and again on its first stream. Paid inside an attempt, that cost timed out short
attempts and inflated the recorded latency (RELIABILITY N05). These calls go to an
``httpx.MockTransport``: nothing leaves the process.
"""

from __future__ import annotations

import json
import logging
from typing import Any

_MODEL = "bench-warmup"
_MESSAGE = {"role": "assistant", "content": "ok"}
_USAGE = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}


def _answer(request: Any) -> Any:
    import httpx

    body = json.loads(request.content or b"{}")
    base = {"id": "warmup", "created": 0, "model": _MODEL}
    if not body.get("stream"):
        choice = {"index": 0, "message": _MESSAGE, "finish_reason": "stop"}
        return httpx.Response(
            200, json={**base, "object": "chat.completion", "choices": [choice], "usage": _USAGE}
        )
    chunks = [
        {"index": 0, "delta": _MESSAGE, "finish_reason": None},
        {"index": 0, "delta": {}, "finish_reason": "stop"},
    ]
    events = "".join(
        f"data: {json.dumps({**base, 'object': 'chat.completion.chunk', 'choices': [c]})}\n\n" for c in chunks
    )
    return httpx.Response(
        200, text=events + "data: [DONE]\n\n", headers={"content-type": "text/event-stream"}
    )


async def prime(litellm: Any) -> None:
    """One plain and one streamed completion through litellm's OpenAI route, answered in memory."""
    import httpx
    from openai import AsyncOpenAI

    transport = httpx.MockTransport(_answer)
    client = AsyncOpenAI(
        api_key="bench-warmup",
        base_url="http://bench-warmup.invalid/v1",
        max_retries=0,
        http_client=httpx.AsyncClient(transport=transport),
    )
    messages = [{"role": "user", "content": "ok"}]
    common: dict[str, Any] = {"model": f"openai/{_MODEL}", "messages": messages, "client": client}
    try:
        await litellm.acompletion(**common, num_retries=0, max_retries=0)
        stream = await litellm.acompletion(**common, num_retries=0, max_retries=0, stream=True)
        async for _ in stream:
            pass
    except Exception as exc:  # only an optimisation: the real call will say what is wrong
        logging.getLogger(__name__).debug("litellm warm-up failed: %s", exc)
    finally:
        await client.close()
