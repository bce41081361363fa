"""An evaluator learns the folder of the file that configured it when it is made, not after."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from bench import Evaluator, EvaluatorConfig, Result, Sample
from bench.hookspecs import hookimpl
from bench.plugins.registry import build_registry
from bench.suite.loader import load_suite


class ReferenceConfig(EvaluatorConfig):
    value: str = ""


class Reference(Evaluator[ReferenceConfig]):
    """Reads ``self.folder`` in its own ``__init__``, which takes ``config`` alone (as before)."""

    name: ClassVar[str] = "reference"
    Config = ReferenceConfig

    def __init__(self, config: ReferenceConfig) -> None:
        super().__init__(config)
        self.seen_at_init = self.folder

    def evaluate(self, sample: Sample) -> Result:
        return Result(passed=True)


class _Plugin:
    @hookimpl
    def bench_register_evaluators(self, register: Any) -> None:
        register(Reference)


def _instances(path: Path) -> list[Any]:
    plan = load_suite(path, build_registry([("bench-test-reference", "reference", _Plugin())]))
    return [bound.instance for planned in plan.tasks for bound in planned.evaluators]


def test_an_evaluator_init_sees_the_folder_of_the_suite_that_configured_it(tmp_path: Path) -> None:
    (tmp_path / "suites").mkdir()
    path = tmp_path / "suites" / "suite.yaml"
    path.write_text(
        "tasks:\n"
        "  - {id: plain, response: x, evaluate: {type: reference, value: fixed}}\n"
        "  - {id: filled, response: x, vars: {v: one}, evaluate: {type: reference, value: '{v}'}}\n"
    )
    instances = _instances(path)
    # The second is the copy made for the task whose vars fill its value: it keeps the folder too.
    assert [(i.config.value, i.folder, i.seen_at_init) for i in instances] == [
        ("fixed", path.parent, path.parent),
        ("one", path.parent, path.parent),
    ]


def test_an_evaluator_built_outside_a_suite_has_no_folder() -> None:
    evaluator = Reference(ReferenceConfig())
    assert (evaluator.folder, evaluator.seen_at_init) == (None, None)
