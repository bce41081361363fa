"""The verdict digest: one hash of a run's verdicts, equal for runs that judged alike.

sha256 over the canonical JSON (sorted keys, no spaces) of each key's latest result line, in key
order, without the timing fields (``duration_ms`` wherever it is, e.g. also in an evaluator's
``details``; ``usage.latency_ms``, ``usage.ttft_ms``, ``usage.wait_ms``): two runs of a suite on
the same responses (locally, on a cluster, resumed) give the same digest.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from bench.vocabulary.run_key import RunKey

#: Fields that measure time, not verdicts: ``duration_ms`` at any depth, these in ``usage``.
TIMING = "duration_ms"
USAGE_TIMING = ("latency_ms", "ttft_ms", "wait_ms")


def latest_lines(results: Path) -> dict[str, dict[str, Any]]:
    """Each key's latest line of a ``results.jsonl`` (a torn last line is left out)."""
    latest: dict[str, dict[str, Any]] = {}
    with results.open(encoding="utf-8") as lines:
        for line in lines:
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            latest[RunKey.of(row).key()] = row
    return latest


def _untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k != TIMING}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def verdict_digest(results: Path) -> str:
    """The verdict digest of a run's ``results.jsonl``."""
    digest = hashlib.sha256()
    for key, line in sorted(latest_lines(results).items()):
        row = _untimed(line)
        if isinstance(row.get("usage"), dict):
            row["usage"] = {k: v for k, v in row["usage"].items() if k not in USAGE_TIMING}
        digest.update(key.encode())
        digest.update(json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode())
        digest.update(b"\n")
    return digest.hexdigest()
