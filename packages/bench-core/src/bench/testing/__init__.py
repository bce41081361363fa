"""Helpers for testing bench plugins the way bench tests its own (the public testing API).

``run_evaluator`` runs one evaluator type on one response through the same binding and
evaluation code a suite goes through; ``assert_passes`` runs evaluators as a test assertion;
``write_suite``, ``load_suite`` and ``run_suite`` drive whole suites (and ``pytest SUITE.yaml``
runs one, see ``bench.testing.collect``); ``build_registry`` builds a registry with extra
plugin objects and ``install`` pip-installs a distribution into a folder; ``git_repo`` and
``commit`` make real git repositories for workspace tests; ``Reply``, ``Fault`` and
``judge_verdict`` script the ``fake_llm`` server's answers; ``verdict_digest`` hashes a run's
verdicts (timing left out), to compare runs.
"""

from __future__ import annotations

import importlib
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Names load on first use: bench's pytest plugin imports this package at every pytest start.
if TYPE_CHECKING:
    from bench.llm.client import LLMClient
    from bench.pipeline.closing import RunOutcome
    from bench.plugins.registry import Registry
    from bench.plugins.registry import build_registry as build_registry
    from bench.suite.loader import load_suite as load_suite
    from bench.testing.assertions import assert_passes as assert_passes
    from bench.testing.digest import verdict_digest as verdict_digest
    from bench.testing.distributions import install as install
    from bench.testing.repos import commit as commit
    from bench.testing.repos import git_repo as git_repo
    from bench.testing.server import FakeLLMServer as FakeLLMServer
    from bench.testing.server import Fault as Fault
    from bench.testing.server import Reply as Reply
    from bench.testing.verdicts import judge_verdict as judge_verdict
    from bench.vocabulary.models import Response, Task
    from bench.vocabulary.results import EvaluatorOutcome

#: re-exported name -> the module that defines it
_EXPORTS = {
    "assert_passes": "bench.testing.assertions",
    "Fault": "bench.testing.server",
    "FakeLLMServer": "bench.testing.server",
    "Reply": "bench.testing.server",
    "build_registry": "bench.plugins.registry",
    "commit": "bench.testing.repos",
    "git_repo": "bench.testing.repos",
    "install": "bench.testing.distributions",
    "judge_verdict": "bench.testing.verdicts",
    "load_suite": "bench.suite.loader",
    "verdict_digest": "bench.testing.digest",
}

__all__ = [
    "FakeLLMServer",
    "Fault",
    "Reply",
    "assert_passes",
    "build_registry",
    "commit",
    "evaluator_outcome",
    "git_repo",
    "install",
    "judge_verdict",
    "load_suite",
    "run_evaluator",
    "run_suite",
    "verdict_digest",
    "write_suite",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'bench.testing' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def run_evaluator(
    settings: dict[str, Any],
    response: str | Response,
    *,
    task: Task | None = None,
    registry: Registry | None = None,
) -> EvaluatorOutcome:
    """Bind an evaluator mapping (as written in a suite) and run it on one response.

    Evaluators that call models get an uncached LLM client (point litellm at ``fake_llm``).

    >>> run_evaluator({"expected": 42}, "The answer is 42.").passed
    True
    """
    import asyncio

    from bench.execution import killable

    try:
        return asyncio.run(evaluator_outcome(settings, response, task=task, registry=registry))
    finally:
        killable.shutdown()  # worker processes a slow evaluator started


async def evaluator_outcome(
    settings: dict[str, Any],
    response: str | Response,
    *,
    task: Task | None = None,
    registry: Registry | None = None,
    llm: LLMClient | None = None,
) -> EvaluatorOutcome:
    """The async form of ``run_evaluator``, for tests already inside an event loop."""
    from bench.document import YamlDocument
    from bench.evaluator import Sample
    from bench.execution.evaluation import evaluate
    from bench.llm.client import LLMClient
    from bench.llm.settings import LLMSettings
    from bench.plugins.registry import get_registry
    from bench.suite.binding import Binder
    from bench.vocabulary.models import Response, Task

    binder = Binder(registry if registry is not None else get_registry())
    doc = YamlDocument(Path("<test>"), settings, None)
    bound = binder.bind_mapping(doc, (), settings)
    if isinstance(response, str):
        response = Response(output=response)
    task = task or Task(id="test", prompt="")
    bound.instance.check(task)
    own = llm is None and bool(bound.instance.llm_calls())
    if own:
        llm = LLMClient(LLMSettings(cache=False))
    is_error = response.error is not None
    output = (response.error or "") if is_error else response.text
    try:
        sample = Sample(task, response, output, is_error, llm, latency_ms=response.usage.latency_ms)
        return await evaluate(bound, sample)
    finally:
        if own and llm is not None:
            llm.close()


def write_suite(folder: Path, text: str, name: str = "suite.yaml") -> Path:
    """Write a suite file (dedented) into ``folder`` and return its path."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return path


def run_suite(
    path: Path, *, runs_dir: Path | None = None, registry: Registry | None = None, **options: Any
) -> RunOutcome:
    """Load and run a suite without signal handlers; results go under ``runs_dir``.

    ``registry`` (default: the installed plugins') is where the suite's types are looked up.
    """
    from bench.pipeline.options import RunOptions
    from bench.pipeline.run import run_plan
    from bench.suite.loader import load_suite

    plan = load_suite(path, registry)
    runs = runs_dir if runs_dir is not None else path.parent / ".bench" / "runs"
    return run_plan(plan, RunOptions(runs_dir=runs, handle_signals=False, **options))
