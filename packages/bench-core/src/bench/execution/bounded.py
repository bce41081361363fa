"""Bounded views of responses: what evaluators see and reports keep of a huge output (D01).

A response longer than the cap is cut to its first ``limit`` bytes (never through a character);
the result says ``truncated`` and keeps the full size and sha256, so nothing is silently lost.
The text is encoded a slice at a time, so bounding a 100 MB response needs no second copy of it.
"""

from __future__ import annotations

import hashlib

from bench.vocabulary.models import MIB, Response

#: Default cap on the response text evaluators see and reports store.
DEFAULT_MAX_RESPONSE_BYTES = 10 * MIB
_SLICE = 1 << 20  # characters encoded at a time


def bound_text(text: str, limit: int) -> tuple[str, int, str] | None:
    """``None`` when ``text`` fits in ``limit`` UTF-8 bytes; else (head, full size, full sha256)."""
    if len(text) * 4 <= limit:  # a character is at most 4 bytes: no need to look
        return None
    digest = hashlib.sha256()
    size = 0
    head = bytearray()
    for start in range(0, len(text), _SLICE):
        part = text[start : start + _SLICE].encode("utf-8", "surrogatepass")  # lone surrogates (D04)
        digest.update(part)
        size += len(part)
        if len(head) < limit:
            head += part[: limit - len(head)]
    if size <= limit:
        return None
    return bytes(head).decode("utf-8", "ignore"), size, digest.hexdigest()


def bound_response(response: Response, limit: int) -> Response:
    """``response`` with its output cut to ``limit`` bytes, flagged and measured, when longer."""
    if response.output is None:
        return response
    cut = bound_text(response.output, limit)
    if cut is None:
        return response
    head, size, sha256 = cut
    why = f"response over max_response_bytes ({limit}): the first {limit} bytes kept"
    if response.output_bytes is not None:  # already a part (a command's tail): keep the whole's figures
        size, sha256 = response.output_bytes, response.output_sha256 or sha256
    return response.model_copy(
        update={
            "output": head,
            "truncated": True,
            "truncation": f"{response.truncation}; then {why}" if response.truncation else why,
            "output_bytes": size,
            "output_sha256": sha256,
        }
    )
