"""examples/from-aieval runs offline with its recorded answers, as its README says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.testing import run_suite

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "from-aieval"
SUITE = EXAMPLE / "tests" / "support_tests.yaml"


def test_the_example_runs_with_its_recorded_answers(tmp_path: Path):
    outcome = run_suite(
        SUITE, runs_dir=tmp_path / "runs", target={"type": "recorded", "file": "../answers.jsonl"}
    )
    verdicts = {t["id"]: (t["status"], round(t["score"], 3)) for t in outcome.report.tasks()}
    assert verdicts == {
        "refund_policy": ("passed", 1.0),  # contains 2/2, not_contains 1/1 absent
        "order_lookup": ("passed", 1.0),  # regex 1/1, tool_calls 1/1
        "shipping_cost": ("passed", 0.5),  # contains 1/2 = 0.5 >= score_threshold 0.5
        "exact_greeting": ("failed", 0.0),  # the answer is longer than the greeting
        "tone": ("passed", 1.0),  # `expected` dropped: empty expected.contains passes with 1
    }


def test_validate_shows_the_dropped_key(tmp_path: Path):
    done = subprocess.run(
        [sys.executable, "-m", "bench", "validate", str(SUITE)], capture_output=True, text=True, check=False
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert (
        f"warning: {SUITE}: cases[4] (tone).evaluators[0] (contains): unknown key 'expected' dropped "
        "(AI Eval ignores it)"
    ) in output
