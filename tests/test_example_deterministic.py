"""examples/deterministic runs offline and uses every check bench-deterministic provides."""

from __future__ import annotations

import json
from pathlib import Path

from bench.plugins.registry import get_registry

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "deterministic" / "suite.yaml"


def test_example_passes_and_covers_every_deterministic_type(bench_cli, tmp_path):
    result = bench_cli("run", EXAMPLE, "-o", "out.json", "--runs-dir", tmp_path / "runs")
    assert result.exit_code == 0, result.stdout
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["summary"] == {**report["summary"], "total": 13, "passed": 13, "errors": 0}
    used = {e["type"] for task in report["tasks"] for e in task["evaluators"]}
    provided = {p.name for p in get_registry().evaluator_types() if p.distribution == "bench-deterministic"}
    # seed 000's matcher has its own example (quickstart), the conversation checks theirs
    # (examples/conversation, tests/test_example_conversation.py)
    conversation = {"turn_count", "tool_called_before", "never_said"}
    assert provided - used == {"expected", *conversation}
    conversation_example = (EXAMPLE.parents[1] / "conversation" / "suite.yaml").read_text()
    assert all(f"type: {name}" in conversation_example for name in conversation)
