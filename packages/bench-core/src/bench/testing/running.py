"""Running evaluators and suites from a test: ``run_evaluator`` (and its async form
``evaluator_outcome``) judges one response the way a suite would, ``write_suite`` and
``run_suite`` write and run a whole suite."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

# Loaded on first use, like the rest of bench.testing: bench's pytest plugin imports the package
# at every pytest start.
if TYPE_CHECKING:
    from bench.llm.client import LLMClient
    from bench.pipeline.closing import RunOutcome
    from bench.plugins.registry import Registry
    from bench.vocabulary.models import Response, Task
    from bench.vocabulary.results import EvaluatorOutcome


def run_evaluator(
    settings: dict[str, Any],
    response: str | Response,
    *,
    task: Task | None = None,
    registry: Registry | None = None,
) -> EvaluatorOutcome:
    """Bind an evaluator mapping (as written in a suite) and run it on one response.

    Evaluators that call models get an uncached LLM client (point litellm at ``bench_fake_llm``).

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
