"""Scorecards computed by hand for small cases of each strategy (AgentClash's strategy semantics)."""

from __future__ import annotations

import pytest

from bench.scoring.collectors import collect_metrics
from bench.scoring.compute import Evidence, compute, higher_is_better, lower_is_better
from bench.scoring.scorecard import Scorecard, check


def outcome(name: str, score: float | None, passed: bool = True, error: str | None = None, type_: str = "x"):
    return {"name": name, "type": type_, "passed": passed, "score": score, "error": error}


def card(strategy: str, *dims: dict, pass_threshold: float | None = None) -> Scorecard:
    built = Scorecard.model_validate(
        {"strategy": strategy, "dimensions": list(dims), "pass_threshold": pass_threshold}
    )
    assert check(built, metrics={}, max_duration_ms=None, max_cost_usd=None) == []
    return built


def scored(scorecard: Scorecard, **scores: float | None) -> dict:
    outcomes = [
        outcome(name, value, error=None if value is not None else "broke") for name, value in scores.items()
    ]
    return compute(scorecard, Evidence(outcomes, {}))


def validators(key: str, **extra) -> dict:
    return {"key": key, "source": "validators", "validators": [key], **extra}


def test_weighted_default_weights_average():
    result = scored(card("weighted", validators("a"), validators("b")), a=0.6, b=0.8)
    assert (result["score"], result["passed"]) == (0.7, True)


def test_weighted_honours_explicit_weights():
    result = scored(card("weighted", validators("a", weight=3), validators("b", weight=1)), a=1.0, b=0.0)
    assert result["score"] == 0.75  # (3*1 + 1*0) / 4


def test_weighted_skips_unavailable_dimensions():
    result = scored(card("weighted", validators("a"), validators("b")), a=0.5, b=None)
    assert (result["score"], result["passed"]) == (0.5, True)
    assert result["dimensions"][1]["state"] == "unavailable"
    assert result["dimensions"][1]["reason"] == "evaluator 'b' errored: broke"


def test_weighted_with_nothing_available_has_no_verdict():
    result = scored(card("weighted", validators("a")), a=None)
    assert (result["score"], result["passed"]) == (None, None)
    assert result["reason"] == "no dimension has evidence for this task"


def test_weighted_gate_fails_while_the_weighted_score_is_high():
    scorecard = card(
        "weighted", validators("safety", gate=True, pass_threshold=0.9), validators("quality", weight=9)
    )
    result = scored(scorecard, safety=0.8, quality=1.0)
    assert result["score"] == pytest.approx(0.98)  # (0.8 + 9 * 1.0) / 10
    assert result["passed"] is False
    assert result["reason"] == 'weighted: gate "safety" scored 0.8, below its pass_threshold 0.9'
    gate = result["dimensions"][0]
    assert (gate["raw"], gate["score"], gate["weight"], gate["gate"], gate["passed"]) == (
        0.8,
        0.8,
        1.0,
        True,
        False,
    )


def test_weighted_scorecard_threshold():
    result = scored(card("weighted", validators("a"), validators("b"), pass_threshold=0.8), a=0.6, b=0.8)
    assert (result["score"], result["passed"]) == (0.7, False)


def test_binary_all_dimensions_are_gates():
    scorecard = card("binary", validators("a", pass_threshold=0.5), validators("b", pass_threshold=0.5))
    assert scored(scorecard, a=0.8, b=0.6)["score"] == 1.0
    failing = card("binary", validators("a", pass_threshold=0.9), validators("b", pass_threshold=0.5))
    result = scored(failing, a=0.8, b=0.6)
    assert (result["score"], result["passed"]) == (0.0, False)
    assert '"a"' in result["reason"]
    unavailable = scored(scorecard, a=0.8, b=None)
    assert (unavailable["score"], unavailable["passed"]) == (0.0, False)
    assert '"b" is unavailable' in unavailable["reason"]


def test_hybrid_gate_pass_uses_the_weighted_average():
    result = scored(
        card("hybrid", validators("gated", gate=True, pass_threshold=0.5), validators("other")),
        gated=0.8,
        other=0.4,
    )
    # AgentClash's computeOverallScore (engine.go, "Issue #147 criterion 7"): the mean of the
    # non-gate dimensions only; bench reported the mean of all (0.6) before.
    assert result["score"] == pytest.approx(0.4)
    assert result["passed"] is True


def test_hybrid_with_only_gates_scores_one():
    result = scored(card("hybrid", validators("gated", gate=True, pass_threshold=0.5)), gated=0.8)
    assert (result["score"], result["passed"]) == (1.0, True)
    assert result["reason"] == "hybrid: gates passed; no other dimension to weigh"


def test_hybrid_gate_failure_forces_zero():
    scorecard = card("hybrid", validators("gated", gate=True, pass_threshold=0.9), validators("other"))
    result = scored(scorecard, gated=0.8, other=1.0)
    assert (result["score"], result["passed"]) == (0.0, False)
    assert result["reason"].startswith('hybrid: gate "gated" scored 0.8')


def test_hybrid_needs_both_conditions():
    scorecard = card(
        "hybrid",
        validators("gated", gate=True, pass_threshold=0.5),
        validators("x"),
        validators("y"),
        pass_threshold=0.7,
    )
    # gates pass, the rest averages (0.6 + 0.9) / 2 = 0.75 >= 0.7
    assert scored(scorecard, gated=0.6, x=0.6, y=0.9)["passed"] is True
    # gates pass, the rest averages 0.5 < 0.7, although the gate itself is perfect
    low = scored(scorecard, gated=1.0, x=0.4, y=0.6)
    assert low["passed"] is False
    assert low["reason"] == "hybrid: the other dimensions' weighted score 0.5 is below 0.7"
    # the rest is high but the gate fails
    assert scored(scorecard, gated=0.4, x=1.0, y=1.0)["passed"] is False


def test_hybrid_non_gated_thresholds_do_not_fail_the_card():
    scorecard = card(
        "hybrid", validators("gated", gate=True, pass_threshold=0.5), validators("soft", pass_threshold=0.9)
    )
    assert scored(scorecard, gated=0.6, soft=0.1)["passed"] is True


def test_linear_normalisation():
    assert lower_is_better(500, target=1000, maximum=5000) == 1.0
    assert lower_is_better(3000, target=1000, maximum=5000) == 0.5
    assert lower_is_better(6000, target=1000, maximum=5000) == 0.0
    assert higher_is_better(0.75, target=1.0, floor=0.5) == 0.5


def test_latency_and_cost_dimensions_from_the_legacy_block_and_runtime_limits():
    scorecard = Scorecard.model_validate(
        {
            "strategy": "weighted",
            "dimensions": ["correctness", "latency", "cost"],
            "normalization": {"latency": {"target_ms": 1000}, "cost": {"target_usd": 0.01, "max_usd": 0.05}},
        }
    )
    assert check(scorecard, metrics={}, max_duration_ms=5000, max_cost_usd=None) == []
    metrics = collect_metrics(
        latency_ms=3000, usage={"cost_usd": 0.03}, target_error=False, outcomes=[outcome("ok", 1.0)]
    )
    result = compute(scorecard, Evidence([outcome("ok", 1.0)], metrics))
    rows = {r["key"]: r for r in result["dimensions"]}
    assert (rows["latency"]["raw"], rows["latency"]["score"]) == (3000, 0.5)  # max from runtime_limits
    assert (rows["cost"]["raw"], rows["cost"]["score"]) == (0.03, 0.5)
    assert result["score"] == pytest.approx((1.0 + 0.5 + 0.5) / 3)


def test_reliability_and_metric_dimensions():
    scorecard = Scorecard.model_validate(
        {
            "dimensions": [
                "reliability",
                {
                    "key": "passrate",
                    "source": "metric",
                    "metric": "validator_pass_rate",
                    "better_direction": "higher",
                    "normalization": {"target": 1.0, "max": 0.0},
                },
            ]
        }
    )
    assert check(scorecard, metrics={}, max_duration_ms=None, max_cost_usd=None) == []
    outcomes = [outcome("a", 1.0), outcome("b", 0.0, passed=False)]
    metrics = collect_metrics(latency_ms=None, usage={}, target_error=False, outcomes=outcomes)
    rows = {r["key"]: r for r in compute(scorecard, Evidence(outcomes, metrics))["dimensions"]}
    assert rows["reliability"]["score"] == 1.0
    assert (rows["passrate"]["raw"], rows["passrate"]["score"]) == (0.5, 0.5)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {
                "strategy": "binary",
                "dimensions": [{"key": "correctness", "pass_threshold": 0.5}],
                "pass_threshold": 0.8,
            },
            "binary strategy derives pass/fail from its gates; remove pass_threshold",
        ),
        (
            {"strategy": "binary", "dimensions": ["correctness"]},
            "every dimension of a binary scorecard needs pass_threshold (0..1)",
        ),
        (
            {"strategy": "hybrid", "dimensions": ["correctness"]},
            "hybrid strategy needs at least one dimension with gate: true",
        ),
        ({"dimensions": [{"key": "correctness", "gate": True}]}, "a gate needs pass_threshold (0..1)"),
        ({"dimensions": ["correctness", "correctness"]}, "dimension key 'correctness' is used twice"),
        (
            {"dimensions": ["latency"]},
            "a latency dimension needs normalization.target (or scorecard normalization.latency.target_ms)",
        ),
        (
            {"dimensions": [{"key": "speed", "source": "latency", "normalization": {"target": 10}}]},
            "a latency dimension needs normalization.max (or runtime_limits.max_duration_ms)",
        ),
        (
            {
                "dimensions": [
                    {
                        "key": "m",
                        "source": "metric",
                        "metric": "nope",
                        "better_direction": "lower",
                        "normalization": {"target": 0, "max": 1},
                    }
                ]
            },
            "unknown metric 'nope'; known: run_total_latency_ms",
        ),
        (
            {"dimensions": [{"key": "j", "source": "llm_judge"}]},
            "an llm_judge dimension needs judge_key (the judge evaluator's name)",
        ),
    ],
)
def test_each_rule_rejects_its_bad_input(spec, message):
    problems = check(Scorecard.model_validate(spec), metrics={}, max_duration_ms=None, max_cost_usd=None)
    assert any(m.startswith(message) for _, m in problems), problems


def test_unknown_shorthand_and_missing_source_are_refused():
    with pytest.raises(
        ValueError, match="unknown dimension 'speed'; the built-in ones are correctness, reliability"
    ):
        Scorecard.model_validate({"dimensions": ["speed"]})
    with pytest.raises(ValueError, match="dimension 'speed' needs a source"):
        Scorecard.model_validate({"dimensions": [{"key": "speed"}]})
    with pytest.raises(ValueError, match="Input should be 'weighted', 'binary' or 'hybrid'"):
        Scorecard.model_validate({"strategy": "average", "dimensions": ["correctness"]})
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        Scorecard.model_validate({"dimensions": [{"key": "correctness", "wieght": 2}]})
