"""Helpers for testing bench plugins the way bench tests its own (the public testing API).

``run_evaluator`` runs one evaluator type on one response through the same binding and
evaluation code a suite goes through; ``assert_passes`` runs evaluators as a test assertion;
``write_suite``, ``load_suite`` and ``run_suite`` drive whole suites (and ``pytest SUITE.yaml``
runs one, see ``bench.testing.collect``); ``build_registry`` builds a registry with extra
plugin objects and ``install`` pip-installs a distribution into a folder; ``git_repo`` and
``commit`` make real git repositories for workspace tests; ``Reply``, ``Fault`` and
``judge_verdict`` script the ``bench_fake_llm`` server's answers; ``verdict_digest`` hashes a run's
verdicts (timing left out), to compare runs; ``LoadOptions`` builds a suite loader with the
options a run gives it (``MyLoader(LoadOptions(target=...)).load(path)``); ``answer_waiting``
takes a person's turn in a conversation that waits for one, as ``bench answer`` does;
``CONTAINER_IMAGE`` names the image the ``bench_container_image`` fixture builds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bench.vocabulary import lazy_exports

# Names load on first use: bench's pytest plugin imports this package at every pytest start.
if TYPE_CHECKING:
    from bench.execution.journal.person import answer_waiting as answer_waiting
    from bench.plugins.registry import build_registry as build_registry
    from bench.suite.loader import load_suite as load_suite
    from bench.suite_loader import LoadOptions as LoadOptions
    from bench.testing.assertions import assert_passes as assert_passes
    from bench.testing.digest import verdict_digest as verdict_digest
    from bench.testing.distributions import install as install
    from bench.testing.pytest_plugin import CONTAINER_IMAGE as CONTAINER_IMAGE
    from bench.testing.repos import commit as commit
    from bench.testing.repos import git_repo as git_repo
    from bench.testing.running import evaluator_outcome as evaluator_outcome
    from bench.testing.running import run_evaluator as run_evaluator
    from bench.testing.running import run_suite as run_suite
    from bench.testing.running import write_suite as write_suite
    from bench.testing.server import FakeLLMServer as FakeLLMServer
    from bench.testing.server import Fault as Fault
    from bench.testing.server import Reply as Reply
    from bench.testing.verdicts import judge_verdict as judge_verdict

#: re-exported name -> the module that defines it
_EXPORTS = {
    "CONTAINER_IMAGE": "bench.testing.pytest_plugin",
    "answer_waiting": "bench.execution.journal.person",
    "assert_passes": "bench.testing.assertions",
    "Fault": "bench.testing.server",
    "FakeLLMServer": "bench.testing.server",
    "LoadOptions": "bench.suite_loader",
    "Reply": "bench.testing.server",
    "build_registry": "bench.plugins.registry",
    "commit": "bench.testing.repos",
    "evaluator_outcome": "bench.testing.running",
    "git_repo": "bench.testing.repos",
    "install": "bench.testing.distributions",
    "judge_verdict": "bench.testing.verdicts",
    "load_suite": "bench.suite.loader",
    "run_evaluator": "bench.testing.running",
    "run_suite": "bench.testing.running",
    "verdict_digest": "bench.testing.digest",
    "write_suite": "bench.testing.running",
}

__all__ = [
    "CONTAINER_IMAGE",
    "FakeLLMServer",
    "Fault",
    "LoadOptions",
    "Reply",
    "answer_waiting",
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


__getattr__ = lazy_exports("bench.testing", _EXPORTS)
