"""Benchmark: 10,000 tasks with a judge each through a batch API, then the same suite live.

Against bench's fake OpenAI-compatible server (``bench.testing.server``, its batch API included,
on 127.0.0.1), ``bench run --batch`` must send the 10,000 target calls in one batch and the
10,000 judge calls in a second, record all 20,000 answers (a response and a verdict per task),
and price them at the batch price in the manifest; the same suite run live (``-j 64``) must give
every task the same verdict. The fake judge fails one task in three, so the verdicts differ
between tasks. Reported: both runs' wall and CPU seconds, the batches, and the two costs
(``openai/gpt-4o-mini`` at litellm's live and batch prices).

    nox -s bench -- --batch           # or: python benchmarks/run_batch.py --tasks 10000
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from measure import Measured, bench_process

from bench.testing import judge_verdict
from bench.testing.server import FakeLLMServer, Reply

MODEL = "openai/gpt-4o-mini"
KEY = "sk-benchmark-not-a-key"
_NUMBER = re.compile(r"question (\d+)")


def _judge(body: dict[str, Any]) -> Reply:
    """A verdict that depends on the task: question numbers divisible by three fail."""
    text = json.dumps(body.get("messages"))
    number = int(_NUMBER.findall(text)[-1])
    return judge_verdict(passed=number % 3 != 0, reason=f"looked at {number}")(body)


def _suite(folder: Path, tasks: int) -> Path:
    rows = "".join(
        f"  - {{id: t{i}, prompt: 'question {i}', evaluate: {{type: llm_judge, "
        f"criteria: 'Repeats the question', model: {MODEL}}}}}\n"
        for i in range(tasks)
    )
    path = folder / "suite.yaml"
    path.write_text(
        f"name: batch-bench\ntarget: {{type: litellm, model: {MODEL}}}\n"
        f"llm: {{batch_poll_s: 0.5, batch_settle_s: 1.0}}\ntasks:\n{rows}",
        encoding="utf-8",
    )
    return path


def _run(folder: Path, env: dict[str, str], *args: str) -> Measured:
    measured = bench_process(["run", "suite.yaml", "-q", "--no-cache", *args], folder, env)
    if measured.returncode not in (0, 1):
        raise SystemExit(f"bench run {' '.join(args)} failed ({measured.returncode}):\n{measured.output}")
    return measured


def _verdicts(path: Path) -> dict[str, tuple[str, bool | None]]:
    tasks = json.loads(path.read_text(encoding="utf-8"))["tasks"]
    return {t["id"]: (t["status"], t["evaluators"][0].get("passed")) for t in tasks}


def _manifest(folder: Path, run_id: str) -> dict[str, Any]:
    return dict(json.loads((folder / ".bench" / "runs" / run_id / "manifest.json").read_text()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    tasks = parser.parse_args().tasks
    with tempfile.TemporaryDirectory() as tmp, FakeLLMServer() as server:
        folder = Path(tmp)
        _suite(folder, tasks)
        server.add(_judge, match="<response-")
        env = {
            "OPENAI_API_BASE": server.url,
            "OPENAI_API_KEY": KEY,
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(folder),
        }
        batched = _run(folder, env, "--batch", "-o", "batch.json")
        submitted = server.batches.count("POST /v1/batches")
        ran, live_calls = len(server.batches.ran), server.count()
        live = _run(folder, env, "-j", "64", "-o", "live.json")
        runs = sorted((folder / ".bench" / "runs").iterdir(), key=lambda p: p.stat().st_mtime)
        batch_run, live_run = (_manifest(folder, p.name) for p in runs)
        verdicts, live_verdicts = _verdicts(folder / "batch.json"), _verdicts(folder / "live.json")
        same = sum(verdicts[i] == live_verdicts.get(i) for i in verdicts)
        failed = sum(1 for status, _ in verdicts.values() if status == "failed")
        batches = batch_run["batches"]
        print(f"tasks: {tasks:,}; the judge fails {failed:,} of them")
        print(
            f"batch run: {batched.wall:.1f} s wall, {batched.cpu:.1f} s CPU; {submitted} batches "
            f"({', '.join(str(b['requests']) for b in batches['batches'])} requests), {ran:,} answers, "
            f"{batch_run['llm']['calls']:,} calls recorded, live calls: {live_calls}"
        )
        print(
            f"  manifest cost ${batches['cost_usd']:.4f} at the batch price (the same answers live: "
            f"${batches['live_cost_usd']:.4f})"
        )
        print(
            f"live run (-j 64): {live.wall:.1f} s wall, {live.cpu:.1f} s CPU; "
            f"{live_run['llm']['calls']:,} calls, cost ${live_run['llm']['cost_usd']:.4f}"
        )
        print(f"identical verdicts: {same:,} of {len(verdicts):,}")
        problems = [
            "not two batches" if submitted != 2 else "",
            "answers missing" if ran != 2 * tasks or batch_run["llm"]["calls"] != 2 * tasks else "",
            "live calls in the batch run" if live_calls else "",
            "verdicts differ" if same != tasks or len(live_verdicts) != tasks else "",
        ]
        if any(problems):
            raise SystemExit("; ".join(p for p in problems if p))


if __name__ == "__main__":
    main()
