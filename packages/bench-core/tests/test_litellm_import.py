"""litellm is imported only when a call needs it: never by a fully cached re-run or a dry run of a
model litellm serves, and at start (with a console line) when a suite's judges need it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SUITE = (
    "target: {type: litellm, model: anthropic/claude-3-5-haiku-20241022, api_base: 'http://127.0.0.1:9/v1'}\n"
    "tasks:\n  - {id: a, prompt: hello, evaluate: {expected: ok}}\n"
)
# The cold run is answered in process: no anthropic endpoint is needed to fill the cache.
SEED = """
import asyncio
from bench.llm import client
from bench.llm.request import LLMResult
from bench.vocabulary.models import Usage

async def answered(self, request, params, provider, gate, leader):
    usage = Usage(input_tokens=1, output_tokens=1)
    return LLMResult(request.model, "ok", [], "stop", usage, raw_message={"role": "assistant", "content": "ok"})

client.LLMClient._with_retries = answered
"""
RUN = """
import sys
from bench.cli import main
sys.argv = ['bench', 'run', {suite!r}, '--runs-dir', {runs!r}, *{extra!r}]
try:
    main()
except SystemExit as exc:
    print('EXIT', exc.code)
print('LITELLM', 'litellm' in sys.modules)
"""


def _run(tmp_path: Path, *extra: str, seed: str = "") -> str:
    code = seed + RUN.format(
        suite=str(tmp_path / "suite.yaml"), runs=str(tmp_path / "runs"), extra=list(extra)
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "BENCH_LLM_TRANSPORT": "auto"},
    )
    return done.stdout


def test_a_cached_rerun_and_a_dry_run_of_a_litellm_model_never_import_it(tmp_path):
    (tmp_path / "suite.yaml").write_text(SUITE)
    assert _run(tmp_path, "--dry-run").endswith("EXIT 0\nLITELLM False\n")
    assert "model calls: 1 made, 0 from cache" in _run(tmp_path, seed=SEED)  # fills the cache
    rerun = _run(tmp_path)
    assert "model calls: 0 made, 1 from cache" in rerun
    assert rerun.endswith("EXIT 0\nLITELLM False\n")
