"""promptfoo's prompts × providers arrive as bench's prompt variants: each result labelled."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bench_formats.promptfoo.loader import PromptfooLoader

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "from-promptfoo"

CONFIG = """\
prompts:
  - {raw: 'Say {{word}}', label: say}
  - {raw: 'Shout {{word}}', label: shout}
providers:
  - {id: echo, label: a}
  - {id: echo, label: b}
tests:
  - vars: {word: hi}
    assert: [{type: contains, value: Say}]
"""


def test_each_task_of_several_prompts_names_its_prompt_label():
    data = PromptfooLoader().load(EXAMPLE / "promptfooconfig.yaml").data
    assert [(t["id"], t["prompt_label"]) for t in data["tasks"][:2]] == [
        ("Row #1/one-word", "one-word"),
        ("Row #1/teacher", "teacher"),
    ]


def test_prompts_by_providers_run_with_their_labels_and_promptfoo_verdicts(tmp_path: Path):
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(CONFIG)
    out = tmp_path / "out.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench",
            "run",
            str(config),
            "--runs-dir",
            str(tmp_path),
            "-q",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    tasks = json.loads(out.read_text())["tasks"]
    assert [(t["id"], t["prompt_label"], t["target"]["label"], t["passed"]) for t in tasks] == [
        ("test 1/say/a", "say", "a", True),
        ("test 1/shout/a", "shout", "a", False),
        ("test 1/say/b", "say", "b", True),
        ("test 1/shout/b", "shout", "b", False),
    ]
