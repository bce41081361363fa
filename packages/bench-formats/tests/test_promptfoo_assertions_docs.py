"""docs/formats/promptfoo-assertions.md: its example is the file it names, and runs as it says."""

from __future__ import annotations

import re
from pathlib import Path

from bench.testing import run_suite

DOC = Path(__file__).resolve().parents[3] / "docs" / "formats" / "promptfoo-assertions.md"


def test_the_example_is_the_file_and_runs(tmp_path: Path) -> None:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"## Example.*?```yaml\n(.*?)```", text, re.DOTALL)
    assert block is not None
    suite = DOC.with_suffix(".yaml")
    assert suite.read_text(encoding="utf-8") == block.group(1)
    tasks = {t["id"]: t for t in run_suite(suite, runs_dir=tmp_path).report.tasks()}
    assert {k: (t["status"], round(t["score"], 3)) for k, t in tasks.items() if k != "webhook-not-run"} == {
        "weighted-threshold": ("passed", 0.333),
        "assert-set": ("failed", 0.375),
    }
    assert tasks["webhook-not-run"]["status"] == "error"
    assert tasks["webhook-not-run"]["evaluators"][0]["error"] == (
        "webhook: did not run: bench does not run webhook assertions"
    )
