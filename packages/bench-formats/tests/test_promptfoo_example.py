"""examples/from-promptfoo: the config's native tasks, and its run as the README says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench_formats.promptfoo.loader import PromptfooLoader

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "from-promptfoo"


def test_the_example_loads_into_eight_rendered_tasks():
    loader = PromptfooLoader()
    data = loader.load(EXAMPLE / "promptfooconfig.yaml").data
    assert loader.warnings == []
    tasks = {task["id"]: task for task in data["tasks"]}
    # 4 CSV rows × 2 prompts, one echo provider
    assert list(tasks) == [
        "Row #1/one-word",
        "Row #1/teacher",
        "Row #2/one-word",
        "Row #2/teacher",
        "names the capital/one-word",
        "names the capital/teacher",
        "recorded answer/one-word",
        "recorded answer/teacher",
    ]
    assert data["target"] == {"type": "echo"}
    assert tasks["Row #1/one-word"]["prompt"] == "Answer in one word: what is the capital of France?"
    # persona comes from vars/persona.txt, trimmed
    assert tasks["Row #2/teacher"]["prompt"] == "You are a geography teacher. The capital of Japan is Tokyo."
    assert tasks["recorded answer/one-word"]["response"] == "Nairobi"
    assert tasks["Row #1/teacher"]["evaluators"][0]["assert"] == [
        {"type": "regex", "value": "^(You|Answer|Nairobi)"},
        {"type": "icontains", "value": "france"},
        {"type": "regex", "value": "capital of \\w+"},
    ]


def test_the_example_runs_as_its_readme_says(tmp_path: Path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench",
            "run",
            str(EXAMPLE / "promptfooconfig.yaml"),
            "--runs-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    # Every task passes the defaultTest regex (each output starts with You, Answer or Nairobi);
    # names the capital/one-word alone fails: "...capital of Peru?" does not contain "Lima".
    assert done.returncode == 1, done.stdout + done.stderr
    assert "8 tasks: 7 passed, 1 failed, 0 errors" in done.stdout
