"""The human_preference scorecard dimension, fed by a labels file (task, passed and/or score)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.scoring.labels import human_scores, read_labels
from bench.vocabulary.errors import ConfigError

SUITE = """
scorecard:
  strategy: weighted
  dimensions:
    - correctness
    - {{key: human_preference, source: human_preference, labels: {labels}, weight: 3}}
tasks:
  - id: liked
    response: Paris
    evaluate: {{expected: Paris}}
  - id: disliked
    response: Paris
    evaluate: {{expected: Paris}}
  - id: unlabelled
    response: Paris
    evaluate: {{expected: Paris}}
"""


def test_human_labels_feed_the_dimension(bench_cli, bench_suite_file, tmp_path):
    (tmp_path / "labels.jsonl").write_text(
        '{"task": "liked", "passed": true, "rater": "ann"}\n'
        '{"task": "liked", "score": 0.5, "rater": "bob"}\n'
        '{"task": "disliked", "passed": false}\n',
        encoding="utf-8",
    )
    path = bench_suite_file(SUITE.format(labels="labels.jsonl"))
    result = bench_cli("run", path, "-o", "out.json")
    tasks = {t["id"]: t["scorecard"] for t in json.loads((tmp_path / "out.json").read_text())["tasks"]}
    liked = tasks["liked"]["dimensions"][1]
    assert (liked["raw"], liked["score"]) == (0.75, 0.75)  # mean of 1 (passed) and 0.5
    assert tasks["liked"]["score"] == pytest.approx((1 + 3 * 0.75) / 4)
    assert tasks["disliked"]["score"] == pytest.approx(0.25)
    unlabelled = tasks["unlabelled"]["dimensions"][1]
    assert (unlabelled["state"], unlabelled["reason"]) == (
        "unavailable",
        "no human label for task 'unlabelled'",
    )
    assert tasks["unlabelled"]["score"] == 1.0  # weighted over the available dimensions only
    assert result.exit_code == 0, result.output


def test_labels_may_be_csv(tmp_path):
    path = tmp_path / "labels.csv"
    path.write_text("task,passed,score,rater\na,true,,x\nb,,0.25,y\nb,false,,z\n", encoding="utf-8")
    assert human_scores(read_labels(path)) == {"a": 1.0, "b": 0.125}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"passed": true}\n', "labels.jsonl:1: a label needs the task's id (task or id)"),
        ('{"task": "a"}\n', "labels.jsonl:1: label for task 'a' has neither passed nor score"),
        ('{"task": "a", "score": 2}\n', "labels.jsonl:1: score must be between 0 and 1, not 2"),
        ('{"task": "a", "passed": "maybe"}\n', "labels.jsonl:1: passed must be true or false, not 'maybe'"),
        ("\n[1]\n", "labels.jsonl:2: expected a JSON object, got list"),
    ],
)
def test_bad_labels_are_refused_with_the_row(tmp_path, monkeypatch, text, message):
    monkeypatch.chdir(tmp_path)
    Path("labels.jsonl").write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        read_labels(Path("labels.jsonl"))
    assert str(caught.value) == message


def test_a_suite_with_bad_or_missing_labels_says_where(bench_cli, bench_suite_file, tmp_path):
    (tmp_path / "labels.jsonl").write_text('{"task": "liked", "score": 7}\n', encoding="utf-8")
    result = bench_cli("validate", bench_suite_file(SUITE.format(labels="labels.jsonl")))
    assert result.exit_code == 2
    assert (
        "scorecard.dimensions[1].labels: labels.jsonl:1: score must be between 0 and 1, not 7"
        in result.output
    )
    result = bench_cli("validate", bench_suite_file(SUITE.format(labels="none.jsonl")))
    assert (
        "scorecard.dimensions[1].labels: none.jsonl: cannot read the labels: No such file or directory"
        in result.output
    )


def test_the_dimension_needs_labels_and_only_it_takes_them(bench_cli, bench_suite_file):
    no_labels = SUITE.replace(", labels: {labels}", "")
    result = bench_cli("validate", bench_suite_file(no_labels.format()))
    assert "a human_preference dimension needs labels (a file of task, passed or score)" in result.output
    misplaced = SUITE.replace("- correctness", "- {{key: c, source: validators, labels: x.jsonl}}")
    result = bench_cli("validate", bench_suite_file(misplaced.format(labels="x.jsonl")))
    assert "labels is only for source: human_preference" in result.output
