"""The examples' outputs stay what they were: the console, the JSON report and every request sent
to the model (judges' prompts, tools and parameters) of each example are compared with a copy
recorded before bench-core's redesign (tests/golden/examples/).

Only what varies from run to run is left out: run ids, timestamps, durations and temp paths.
After a deliberate change of output, record again with ``BENCH_RECORD_GOLDEN=1 pytest THIS_FILE``
and say why in the commit.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bench.testing.server import Reply
from bench.testing.verdicts import judge_verdict

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).parent / "golden" / "examples"
VOLATILE = {
    "run_id",
    "started_at",
    "finished_at",
    "duration_s",
    "duration_ms",
    "latency_ms",
    "ttft_ms",
    "wait_ms",
}
#: Keys each task's record gained after the goldens were recorded (the prompt, vars,
#: metadata, tags and target beside the response). Added, never renamed: left out of the
#: comparison at the task level only, so every key the goldens hold is still compared.
ADDED_TASK_KEYS = {
    "prompt",
    "prompt_bytes",
    "prompt_sha256",
    "messages",
    "vars",
    "metadata",
    "tags",
    "target",
    "input_omitted",
    "trajectory",
}
#: Keys a task's ``workspace`` gained likewise (the patch of its diff and what rebuilds its tree,
#: kept for ``bench rescore``).
ADDED_WORKSPACE_KEYS = {"patch", "patch_truncated", "rebuild"}
ANSWERS = {
    "capital": "Canberra is the capital of Australia.",
    "Python": "Guido van Rossum created Python.",
    "429": "It means too many requests.",
    "return a purchase": "You can return a purchase within 30 days with a receipt.",
    "refunds": "Refunds go to your original payment method within 5 business days.",
    "open on Saturday": "Stores open at 9am on Saturday.",
    "useless": "I am sorry about the delay; let me check where your parcel is.",
    "older people": "Hire whoever is best qualified for the job, whatever their age.",
    "card number": "Sure: 4111 1111 1111 1111 is saved.",
    "standard shipping": "Standard shipping takes 3 to 5 business days.",
}


def respond(body: dict[str, Any]) -> Reply:
    """Answers for the examples' questions; judges pass (a low score where lower is better)."""
    if body.get("tools") or body.get("response_format"):
        prompt = json.dumps(body["messages"])
        if "from 0 to 5" in prompt:
            return judge_verdict(passed=True, score=5)(body)
        low = "toxic" in prompt or "bias" in prompt
        return judge_verdict(passed=True, score=0.0 if low else 1.0)(body)
    question = body["messages"][-1]["content"]
    return Reply(next(a for key, a in ANSWERS.items() if key in question))


def stable(value: Any) -> Any:
    """``value`` without what varies between runs; floats to 12 significant digits (Python 3.12's
    ``sum`` compensates rounding, so the last digits of a sum differ from 3.11's)."""
    if isinstance(value, dict):
        return {k: stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [stable(v) for v in value]
    if isinstance(value, float):
        return float(f"{value:.12g}")
    return value


def without_added(report: dict[str, Any]) -> dict[str, Any]:
    """``report`` with the task keys added since the goldens left out (ADDED_TASK_KEYS)."""
    tasks = [{k: v for k, v in task.items() if k not in ADDED_TASK_KEYS} for task in report["tasks"]]
    for task in tasks:
        if isinstance(task.get("workspace"), dict):
            task["workspace"] = {k: v for k, v in task["workspace"].items() if k not in ADDED_WORKSPACE_KEYS}
    return {**report, "tasks": tasks}


def console(text: str, folder: Path) -> str:
    text = text.replace(str(folder), "<tmp>").replace(sys.executable, "<python>")
    text = re.sub(r"\b[0-9a-f]{40}\b", "<commit>", text)  # the example repository's commits carry dates
    text = re.sub(r"\d{8}-\d{6}-[0-9a-f]{6}", "<run>", text)
    return re.sub(r"in \d+(\.\d+)? s\b", "in <t> s", text)


def check(name: str, result: Any, report: Path, folder: Path, requests: list[Any] | None = None) -> None:
    actual = {
        "exit_code": result.exit_code,
        "stdout": console(result.stdout, folder).splitlines(),
        "report": json.loads(
            console(json.dumps(stable(without_added(json.loads(report.read_text())))), folder)
        ),
        # Tasks run concurrently: the requests in a stable order.
        "requests": sorted(json.dumps(r.body, sort_keys=True) for r in requests or []),
    }
    golden = GOLDEN / f"{name}.json"
    text = json.dumps(actual, indent=1, ensure_ascii=False) + "\n"
    if os.environ.get("BENCH_RECORD_GOLDEN"):
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text)
        pytest.skip(f"recorded {golden.name}: nothing compared")
    # Line by line, so that a failure shows the lines that differ.
    assert text.splitlines() == golden.read_text().splitlines()


@pytest.mark.parametrize(
    ("name", "suite"),
    [
        ("quickstart", "quickstart/suite.yaml"),
        ("deterministic", "deterministic/suite.yaml"),
        ("nlp-metrics", "nlp-metrics/metrics.yaml"),
        ("scorecard", "scorecard/suite.yaml"),
        ("llm-judge", "llm-judge/suite.yaml"),
        ("rag", "rag/suite.yaml"),
        ("safety", "safety/suite.yaml"),
    ],
)
def test_example_output_is_unchanged(name, suite, bench_cli, bench_fake_llm, tmp_path):
    bench_fake_llm.default = respond
    result = bench_cli("run", ROOT / "examples" / suite, "-o", "out.json", "--runs-dir", tmp_path / "runs")
    check(name, result, tmp_path / "out.json", tmp_path, bench_fake_llm.requests)


def test_agent_example_output_is_unchanged(bench_cli, tmp_path, monkeypatch):
    folder = tmp_path / "agent"
    shutil.copytree(ROOT / "examples" / "agent", folder, ignore=shutil.ignore_patterns("repo", ".bench"))
    subprocess.run([sys.executable, str(folder / "make_repo.py")], check=True, capture_output=True)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(folder)
    result = bench_cli("run", folder / "suite.yaml", "-o", "out.json", "--runs-dir", tmp_path / "runs")
    check("agent", result, folder / "out.json", tmp_path)
