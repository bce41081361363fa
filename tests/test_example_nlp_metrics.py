"""examples/nlp-metrics runs offline; its corpus scores are the libraries' published values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "nlp-metrics"


def test_metrics_example(bench_cli, tmp_path):
    result = bench_cli("run", EXAMPLE / "metrics.yaml", "-o", "out.json", "--runs-dir", tmp_path / "runs")
    assert result.exit_code == 0, result.stdout
    aggregates = json.loads((tmp_path / "out.json").read_text())["aggregates"]
    assert aggregates["bleu"]["corpus_bleu"] == pytest.approx(48.53, abs=0.005)  # sacrebleu's README
    assert aggregates["chrf"]["corpus_chrf"] == pytest.approx(59.15, abs=0.005)  # chrF++ of the same
    assert "corpus bleu 48.53" in result.stdout


def test_similarity_example(bench_cli, tmp_path):
    pytest.importorskip(
        "sentence_transformers", reason="installed only where torch 2.13.0 (CPU) is available"
    )
    result = bench_cli("run", EXAMPLE / "similarity.yaml", "-o", "out.json", "--runs-dir", tmp_path / "runs")
    assert result.exit_code == 0, result.stdout
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["aggregates"]["close-to-reference"]["samples"] == 2
