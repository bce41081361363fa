"""Behavioural signals in a scorecard: weighted into the behavioral dimension; a failed gate fails it."""

from __future__ import annotations

import json

SUITE = """
scorecard:
  strategy: weighted
  pass_threshold: 0.7
  dimensions: [correctness, behavioral]
tasks:
  - id: flaky-run
    response:
      output: "done"
      messages:
        - {role: user, content: go}
        - {role: assistant, tool_calls: [{id: a, function: {name: run, arguments: "{}"}}]}
        - {role: tool, tool_call_id: a, content: "error: boom"}
        - {role: assistant, tool_calls: [{id: b, function: {name: run, arguments: "{}"}}]}
        - {role: tool, tool_call_id: b, content: "error: boom again"}
        - {role: assistant, content: "done"}
    evaluate:
      - {expected: done}
      - {type: recovery_behavior, weight: 3}
      - {type: error_cascade, weight: 1, gate: GATE}
"""


def run(bench_cli, bench_suite_file, tmp_path, gate: bool) -> dict:
    path = bench_suite_file(SUITE.replace("GATE", str(gate).lower()))
    bench_cli("run", path, "-o", "out.json")
    return json.loads((tmp_path / "out.json").read_text())["tasks"][0]


def test_signals_are_weighted_into_the_behavioral_dimension(bench_cli, bench_suite_file, tmp_path):
    task = run(bench_cli, bench_suite_file, tmp_path, gate=False)
    behavioral = task["scorecard"]["dimensions"][1]
    # recovery 0 (weight 3), error_cascade 1 - 1/2 = 0.5 (weight 1): (0*3 + 0.5*1) / 4
    assert behavioral["raw"] == 0.125
    assert task["scorecard"]["metrics"]["behavioral_recovery_score"] == 0.0
    assert task["scorecard"]["metrics"]["behavioral_error_cascade_score"] == 0.5


def test_a_failed_gate_signal_fails_the_behavioral_dimension(bench_cli, bench_suite_file, tmp_path):
    task = run(bench_cli, bench_suite_file, tmp_path, gate=True)
    signal = task["evaluators"][2]
    assert (signal["passed"], signal["details"]["gate"]) == (True, True)  # 0.5 meets pass_threshold 0.5
    assert task["scorecard"]["dimensions"][1]["raw"] == 0.125  # a passing gate changes nothing
    strict = SUITE.replace("gate: GATE", "gate: true, pass_threshold: 0.9")
    path = bench_suite_file(strict)
    bench_cli("run", path, "-o", "out.json")
    task = json.loads((tmp_path / "out.json").read_text())["tasks"][0]
    assert task["scorecard"]["dimensions"][1]["raw"] == 0.0
