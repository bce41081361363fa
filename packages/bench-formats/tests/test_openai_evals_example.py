"""examples/from-openai-evals runs as its README and docs/formats/openai.md say."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import bench
from bench.testing import Reply

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "from-openai-evals"
COMMAND = "bench run examples/from-openai-evals/evals/capitals.yaml --target '{type: recorded, file: answers.jsonl}'"


def test_the_documented_command_gives_the_documented_verdicts(tmp_path: Path):
    for page in (ROOT / "docs" / "formats" / "openai.md", EXAMPLE / "README.md"):
        assert COMMAND in page.read_text(encoding="utf-8"), page
    words = shlex.split(COMMAND)[1:]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench",
            *words,
            "--runs-dir",
            str(tmp_path / "runs"),
            "-o",
            str(tmp_path / "out.json"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr  # a failure, no error
    assert "6 tasks: 5 passed, 1 failed, 0 errors" in done.stdout


def test_the_graded_example_asks_the_target_then_grades_with_it(tmp_path: Path, bench_fake_llm):
    bench_fake_llm.add(Reply("The submission names the capital.\nY"), match="[Submission]")
    bench_fake_llm.add(Reply("Paris"))
    target = {"type": "litellm", "model": "openai/gpt-4o-mini", "temperature": 0}
    outcome = bench.run(EXAMPLE / "evals" / "capitals-graded.yaml", target=target, runs_dir=tmp_path / "runs")
    tasks = {t["id"]: t for t in outcome.report.tasks()}
    assert {t: tasks[t]["status"] for t in tasks} == {f"capitals-graded.dev.{i}": "passed" for i in range(3)}
    assert bench_fake_llm.count() == 6  # each sample: its answer, then its grading
    grading = [r.body for r in bench_fake_llm.requests if "[Submission]" in r.body["messages"][0]["content"]]
    assert (
        "[Criterion]: correctness: Does the answer name the right capital?"
        in grading[0]["messages"][0]["content"]
    )
