"""bench.testing.verdict_digest: equal for runs that judged alike, whatever their timings."""

from __future__ import annotations

import json

from bench.testing import verdict_digest


def _write(path, rows):  # type: ignore[no-untyped-def]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _row(task: str, passed: bool, **timing: float) -> dict:  # type: ignore[type-arg]
    usage = {"prompt_tokens": 3, **{k: v for k, v in timing.items() if k != "duration_ms"}}
    return {
        "id": task,
        "status": "passed" if passed else "failed",
        "passed": passed,
        "duration_ms": timing.get("duration_ms", 1.0),
        "usage": usage,
        "evaluators": [{"name": "code", "details": {"duration_ms": timing.get("duration_ms", 1.0)}}],
    }


def test_timing_fields_do_not_change_the_digest(tmp_path):
    slow = [_row("a", True, duration_ms=900.0, latency_ms=800.0, ttft_ms=50.0, wait_ms=2000.0)]
    fast = [_row("a", True, duration_ms=1.0, latency_ms=1.0, ttft_ms=1.0, wait_ms=0.0)]
    assert verdict_digest(_write(tmp_path / "s.jsonl", slow)) == verdict_digest(
        _write(tmp_path / "f.jsonl", fast)
    )


def test_a_different_verdict_changes_it(tmp_path):
    one = verdict_digest(_write(tmp_path / "1.jsonl", [_row("a", True)]))
    other = verdict_digest(_write(tmp_path / "2.jsonl", [_row("a", False)]))
    assert one != other


def test_each_keys_latest_line_counts_in_key_order_and_a_torn_line_is_left_out(tmp_path):
    interrupted = {"id": "b", "status": "interrupted"}
    written = _write(tmp_path / "r.jsonl", [interrupted, _row("b", True), _row("a", True)])
    with written.open("a", encoding="utf-8") as out:
        out.write('{"id": "c", "stat')
    clean = _write(tmp_path / "c.jsonl", [_row("a", True), _row("b", True)])
    assert verdict_digest(written) == verdict_digest(clean)
