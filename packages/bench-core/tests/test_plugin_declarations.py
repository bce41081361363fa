"""What an evaluator type declares, written as a third party would: the shorthand keys that select
it (``infer_from``), its entry in AI Eval's ``expected:`` block (``expected_block``) and the
metric collector of a behavioural signal (``signal_collector``). The core names none of them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench import Evaluator, EvaluatorConfig, Result, Sample, hookimpl
from bench.pipeline.options import RunOptions
from bench.pipeline.run import run_plan
from bench.plugins.registry import Registry, build_registry
from bench.suite.loader import load_suite
from bench.testing import write_suite
from bench.vocabulary.errors import InvalidSuite


class MoodConfig(EvaluatorConfig):
    mood: str


class Mood(Evaluator[MoodConfig]):
    """A behavioural signal: 1 when the answer shows the mood, else 0.25."""

    name = "mood"
    infer_from = ("mood",)
    signal_collector = "behavioral_mood_score"
    Config = MoodConfig

    def evaluate(self, sample: Sample) -> Result:
        shown = self.config.mood in sample.output
        return Result(passed=shown, score=1.0 if shown else 0.25)


class WeatherConfig(EvaluatorConfig):
    mood: str | None = None
    sky: str


class Weather(Evaluator[WeatherConfig]):
    """Claims ``mood`` too, and ``sky``, which only it accepts."""

    name = "weather"
    infer_from = ("sky", "mood")
    Config = WeatherConfig

    def evaluate(self, sample: Sample) -> Result:
        return Result(passed=self.config.sky in sample.output)


class ShoutConfig(EvaluatorConfig):
    value: str | None = None


class Shout(Evaluator[ShoutConfig]):
    """Checks AI Eval's ``expected: {shout: TEXT}``: the answer is TEXT in capitals."""

    name = "shout"
    expected_block = "value"
    Config = ShoutConfig

    def evaluate(self, sample: Sample) -> Result:
        return Result(passed=sample.output == str(self.config.value).upper())


class Plugin:
    def __init__(self, *types: type[Evaluator[Any]]) -> None:
        self.types = types

    @hookimpl
    def bench_register_evaluators(self, register: Callable[[Any], None]) -> None:
        for cls in self.types:
            register(cls)


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Registry]:
    monkeypatch.setenv("BENCH_PLUGINS", "bench-core")  # bench's own plugins out of the way

    def build(*types: type[Evaluator[Any]]) -> Registry:
        return build_registry([("bench-moods", "moods", Plugin(*types))])

    return build


def run(path: Path, registry: Registry) -> list[dict[str, Any]]:
    plan = load_suite(path, registry)
    outcome = run_plan(plan, RunOptions(runs_dir=path.parent / "runs", handle_signals=False, cache=False))
    return list(outcome.report.tasks())


def test_a_declared_signal_is_a_metric_collector_and_weighs_in_the_behavioral_dimension(tmp_path, registry):
    path = write_suite(
        tmp_path,
        """
        metrics:
          - {key: mood, collector: behavioral_mood_score}
        scorecard:
          dimensions:
            - behavioral
            - {key: m, source: metric, metric: mood, better_direction: higher, normalization: {target: 1, max: 0}}
        tasks:
          - {id: happy, response: "I am happy", evaluate: {mood: happy}}
          - {id: sad, response: "I am sad", evaluate: {mood: happy}}
          - {id: none, response: "SUNNY", evaluate: {type: shout, value: sunny}}
        """,
    )
    happy, sad, none = run(path, registry(Mood, Shout))
    assert [e["type"] for e in happy["evaluators"]] == ["mood"]  # chosen by its `mood:` key
    assert happy["scorecard"]["metrics"]["behavioral_mood_score"] == 1.0
    assert [d["raw"] for d in happy["scorecard"]["dimensions"]] == [1.0, 1.0]
    assert sad["scorecard"]["metrics"]["behavioral_mood_score"] == 0.25
    assert [d["raw"] for d in sad["scorecard"]["dimensions"]] == [0.25, 0.25]
    assert none["scorecard"]["metrics"]["behavioral_mood_score"] is None
    behavioral = none["scorecard"]["dimensions"][0]
    assert behavioral["reason"] == "no behavioral signal evaluators on this task"


def test_an_unknown_collector_is_refused_naming_the_installed_signals(tmp_path, registry):
    path = write_suite(
        tmp_path, "metrics: [{key: m, collector: nope}]\ntasks: [{id: a, response: x, evaluate: {mood: x}}]\n"
    )
    with pytest.raises(InvalidSuite) as caught:
        load_suite(path, registry(Mood))
    assert [e.render() for e in caught.value.errors] == [
        f"{path}:1:20: metrics[0].collector: Input should be 'run_total_latency_ms', 'run_ttft_ms', "
        "'run_input_tokens', 'run_output_tokens', 'run_total_tokens', 'run_model_cost_usd', "
        "'run_completed_successfully', 'run_failure_count', 'run_tool_call_count', 'validator_pass_rate' or "
        "'behavioral_mood_score' (got 'nope')"
    ]


def test_without_the_plugin_its_collector_is_unknown(tmp_path, registry):
    path = write_suite(
        tmp_path,
        "metrics: [{key: m, collector: behavioral_mood_score}]\n"
        "tasks: [{id: a, response: x, evaluate: {sky: x}}]\n",
    )
    with pytest.raises(InvalidSuite) as caught:
        load_suite(path, registry(Weather))
    assert caught.value.errors[0].message.endswith("'validator_pass_rate' (got 'behavioral_mood_score')")


def test_keys_claimed_by_two_types_go_to_the_one_that_accepts_them_all(tmp_path, registry):
    path = write_suite(tmp_path, "tasks: [{id: a, response: sunny, evaluate: {mood: calm, sky: sunny}}]\n")
    (task,) = run(path, registry(Mood, Weather))
    assert [e["type"] for e in task["evaluators"]] == ["weather"]


def test_a_key_two_types_accept_is_ambiguous(tmp_path, registry):
    path = write_suite(tmp_path, "tasks: [{id: a, response: x, evaluate: {mood: calm}}]\n")
    with pytest.raises(InvalidSuite) as caught:
        load_suite(path, registry(Mood, Weather))
    assert [e.render() for e in caught.value.errors] == [
        f"{path}:1:30: tasks[0].evaluate: cannot tell the evaluator type; add 'type:'"
    ]


def test_a_declared_expected_block_entry_is_checked_by_its_type(tmp_path, registry):
    path = write_suite(
        tmp_path,
        """
        tasks:
          - {id: loud, response: HELLO, expected: {shout: hello}}
          - {id: quiet, response: hello, expected: {shout: hello}}
          - {id: typed, response: HI, expected: {shout: hi}, evaluators: [{type: shout, name: mine}]}
        """,
    )
    loud, quiet, typed = run(path, registry(Shout))
    assert [(e["name"], e["type"], e["passed"]) for e in loud["evaluators"]] == [
        ("expected.shout", "shout", True)
    ]
    assert quiet["evaluators"][0]["passed"] is False
    assert [(e["name"], e["passed"]) for e in typed["evaluators"]] == [("mine", True)]  # took the value


def test_an_unknown_expected_block_key_suggests_the_declared_ones(tmp_path, registry):
    path = write_suite(tmp_path, "tasks: [{id: a, response: x, expected: {shot: x}}]\n")
    with pytest.raises(InvalidSuite) as caught:
        load_suite(path, registry(Shout))
    assert [e.render() for e in caught.value.errors] == [
        f"{path}:1:41: tasks[0].expected.shot: unknown assertion 'shot' (did you mean 'shout'?)"
    ]
