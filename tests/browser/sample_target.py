"""The target of the browser tests' run: right, wrong, hostile, failing and flaky answers."""

from __future__ import annotations

from bench import Task

HOSTILE = "</script><script>alert(1)</script> <img src=x onerror=alert(1)>"
_calls: dict[str, int] = {}


def answer(task: Task) -> str:
    if "capital" in task.text:
        return "The capital of France is Paris."
    if "hostile" in task.text:
        return HOSTILE
    if "crash" in task.text:
        raise RuntimeError("the model server went away")
    if "coin" in task.text:  # right on every other call: a flaky task under --repeat
        _calls["coin"] = _calls.get("coin", 0) + 1
        return "heads" if _calls["coin"] % 2 else "tails"
    return "I don't know."
