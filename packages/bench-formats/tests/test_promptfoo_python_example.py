"""examples/promptfoo-python: the config docs/formats/promptfoo.md shows, run with promptfoo's verdicts
(promptfoo 0.121.20 gives the same: short enough passes, too long fails with brevity 0.5)."""

from __future__ import annotations

import re
from pathlib import Path

from bench.testing import run_suite

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "promptfoo-python" / "promptfooconfig.yaml"
DOC = ROOT / "docs" / "formats" / "promptfoo.md"


def test_the_docs_show_the_example_and_it_runs(tmp_path: Path) -> None:
    block = re.search(r"## Python\n.*?```yaml\n(.*?)```", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert block is not None
    assert block.group(1) == EXAMPLE.read_text(encoding="utf-8")
    outcome = run_suite(EXAMPLE, runs_dir=tmp_path)
    tasks = {t["id"]: t for t in outcome.report.tasks()}
    assert {k: (t["status"], t["score"]) for k, t in tasks.items()} == {
        "short enough": ("passed", 1.0),
        "too long": ("failed", 0.5),
    }
    verdict = tasks["too long"]["evaluators"][0]
    assert verdict["reason"] == "16 words (at most 8)"
    assert verdict["details"]["named_scores"] == {"brevity": 0.5}
    assert tasks["short enough"]["usage"]["output_tokens"] == 4
