"""Evidence references (AgentClash 002): target and expected_from on any evaluator."""

from __future__ import annotations

import json

import pytest

from bench.evidence import FORMS, Evidence, EvidenceUnavailable, parse_reference
from bench.testing import run_suite, write_suite
from bench.vocabulary.models import Response, Task


@pytest.mark.parametrize(
    "ref",
    [
        "final_output",
        "run.final_output",
        "challenge_input",
        "case.payload",
        "case.payload.city",
        "case.inputs.question",
        "case.inputs.doc.title",
        "case.expectations.answer",
        "artifact.report.status",
        "file:out/result.txt",
        "literal:Paris",
        "literal:",
    ],
)
def test_supported_references(ref):
    assert parse_reference(ref) == ref


@pytest.mark.parametrize(
    "ref",
    [
        "output",
        "case.inputs",
        "case.inputs.",
        "case.inputs..x",
        "artifact.",
        "file:",
        "case.other.x",
        "Final_Output",
    ],
)
def test_unsupported_references_are_refused(ref):
    with pytest.raises(ValueError, match=f"unsupported evidence reference '{ref}'; use one of: final_output"):
        parse_reference(ref)
    assert "literal:VALUE" in FORMS


def test_each_reference_resolves_against_the_task_and_response(tmp_path):
    (tmp_path / "notes.txt").write_text("from the workspace")
    task = Task(
        id="t",
        prompt="What is the capital of France?",
        vars={"city": "Paris", "nested": {"list": [1, 2]}},
        inputs={"doc": {"title": "Guide"}},
        expectations={"answer": "Paris", "count": 3},
        workspace=str(tmp_path),
    )
    response = Response(
        output="Paris", artifacts={"report": {"status": "ok"}, "files": {"cap.txt": "captured"}}
    )
    evidence = Evidence(task, response, "Paris")
    assert evidence.resolve("final_output") == "Paris"
    assert evidence.resolve("challenge_input") == "What is the capital of France?"
    assert evidence.resolve("case.payload.city") == "Paris"
    assert evidence.resolve("case.payload.nested.list.1") == "2"
    assert json.loads(evidence.resolve("case.payload")) == {"city": "Paris", "nested": {"list": [1, 2]}}
    assert evidence.resolve("case.inputs.doc.title") == "Guide"
    assert evidence.resolve("case.expectations.count") == "3"
    assert evidence.resolve("artifact.report") == '{"status":"ok"}'
    assert evidence.resolve("file:cap.txt") == "captured"  # a captured file wins
    assert evidence.resolve("file:notes.txt") == "from the workspace"
    assert evidence.resolve("literal:a:b") == "a:b"


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ("case.inputs.missing", "case input 'missing' is unavailable"),
        ("case.expectations.missing", "case expectation 'missing' is unavailable"),
        ("artifact.none", "artifact 'none' is unavailable"),
        ("case.payload.city.zip", "evidence case.payload.city.zip: 'zip' is not there"),
        ("file:absent.txt", "file absent.txt: the task has no workspace and the response captured no files"),
    ],
)
def test_missing_evidence_is_named(ref, message):
    evidence = Evidence(Task(id="t", vars={"city": "Paris"}), Response(output="x"), "x")
    with pytest.raises(EvidenceUnavailable, match=message):
        evidence.resolve(ref)


def test_a_bad_reference_fails_validation_before_anything_runs(bench_cli, bench_suite_file, tmp_path):
    path = bench_suite_file(
        """
        tasks:
          - id: a
            response: "Paris"
            evaluate: {type: exact_match, target: final_answer, expected_from: "literal:Paris"}
        """
    )
    result = bench_cli("validate", path)
    assert result.exit_code == 2
    assert "tasks[0].evaluate.target: unsupported evidence reference 'final_answer'" in result.stderr
    assert not (tmp_path / ".bench").exists()


def test_agentclash_validator_entries_run_unchanged(tmp_path):
    suite = write_suite(
        tmp_path,
        """
        tasks:
          - id: capital
            prompt: "Capital of France?"
            response:
              output: "The capital is Paris."
              artifacts: {answer: {city: "Paris"}}
            expectations: {city: "Paris"}
            evaluators:
              - key: city-mentioned
                type: contains
                target: final_output
                expected_from: case.expectations.city
              - key: structured-city
                type: exact_match
                target: artifact.answer.city
                expected_from: literal:Paris
              - key: fuzzy
                type: fuzzy_match
                target: run.final_output
                expected_from: "literal:The capital is Paris"
                config: {threshold: 0.9, case_insensitive: true}
        """,
    )
    report = run_suite(suite).report
    (task,) = list(report.tasks())
    assert task["passed"], task["evaluators"]
    assert [e["name"] for e in task["evaluators"]] == ["city-mentioned", "structured-city", "fuzzy"]


def test_unavailable_evidence_is_an_evaluator_error_not_a_failure(tmp_path):
    suite = write_suite(
        tmp_path,
        """
        tasks:
          - id: a
            response: "x"
            evaluate: {type: exact_match, value: "x", target: case.inputs.nothing}
        """,
    )
    report = run_suite(suite).report
    (task,) = list(report.tasks())
    assert task["status"] == "error"
    assert task["evaluators"][0]["error"] == "case input 'nothing' is unavailable"
