"""examples/scorecard: a hybrid scorecard with repeats, then bench compare between the two runs."""

from __future__ import annotations

import json
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "scorecard" / "suite.yaml"


def test_baseline_candidate_and_their_comparison(bench_cli, monkeypatch, tmp_path):
    base = bench_cli("run", EXAMPLE, "-o", "baseline.json", "--runs-dir", tmp_path / "runs")
    assert base.exit_code == 0, base.stdout
    monkeypatch.setenv("SYSTEM", "candidate")
    cand = bench_cli("run", EXAMPLE, "-o", "candidate.json", "--runs-dir", tmp_path / "runs")
    assert cand.exit_code == 1
    baseline = json.loads((tmp_path / "baseline.json").read_text())
    card = baseline["tasks"][0]["scorecard"]
    # hybrid scores the non-gate dimensions only (AgentClash's computeOverallScore): correctness
    # is the gate; (latency 1 - 500/4000 + cost 1 - 0.001/0.002) / 2, by hand
    assert card["score"] == round((0.875 + 0.5) / 2, 6)
    assert [d["key"] for d in card["dimensions"]] == ["correctness", "latency", "cost"]
    candidate = json.loads((tmp_path / "candidate.json").read_text())
    assert candidate["statistics"]["flaky"] == ["chile", "peru"]
    assert candidate["statistics"]["pass_at_k"]["3"] == 0.6  # 10 always pass, 2 flaky pass at least once
    compared = bench_cli("compare", "baseline.json", "candidate.json")
    assert compared.exit_code == 1
    assert "verdict: regression" in compared.stdout
    assert (
        "regressed (10): canada, chile, fiji, ghana, laos, mali, nepal, oman, peru, togo" in compared.stdout
    )
