"""examples/from-aieval runs offline with its recorded answers, as its README says."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import bench

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "from-aieval"
SUITE = EXAMPLE / "tests" / "support_tests.yaml"


def test_the_example_runs_with_its_recorded_answers(tmp_path: Path):
    outcome = bench.run(
        SUITE, target={"type": "recorded", "file": "../answers.jsonl"}, runs_dir=tmp_path / "runs"
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


def test_the_readme_command_and_the_converted_suite_give_the_same_verdicts(tmp_path: Path):
    target = "{type: recorded, file: ../answers.jsonl}"
    bench_cli = [sys.executable, "-m", "bench"]
    ran = subprocess.run(
        [
            *bench_cli,
            "run",
            str(SUITE),
            "--target",
            target,
            "--runs-dir",
            str(tmp_path / "a"),
            "-o",
            str(tmp_path / "a.json"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr  # exact_greeting fails, as the README says
    copy = tmp_path / "project"
    shutil.copytree(EXAMPLE, copy)
    done = subprocess.run(
        [*bench_cli, "convert", str(copy / "tests" / "support_tests.yaml")],
        capture_output=True,
        text=True,
        check=True,
    )
    converted = copy / "tests" / "native.yaml"  # beside the original: its paths are relative to it
    converted.write_text(done.stdout)
    again = subprocess.run(
        [
            *bench_cli,
            "run",
            str(converted),
            "--target",
            target,
            "--runs-dir",
            str(tmp_path / "b"),
            "-o",
            str(tmp_path / "b.json"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert again.returncode == 1, again.stdout + again.stderr

    def verdicts(report: Path) -> dict[str, tuple[str, float]]:
        tasks = json.loads(report.read_text())["tasks"]
        return {t["id"]: (t["status"], round(t["score"], 3)) for t in tasks}

    assert verdicts(tmp_path / "a.json") == verdicts(tmp_path / "b.json")
    assert verdicts(tmp_path / "a.json")["exact_greeting"] == ("failed", 0.0)
