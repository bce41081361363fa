"""Each task's record keeps its input beside the response: the rendered prompt or messages, vars,
metadata, tags and the target that answered, bounded like the response (D01)."""

from __future__ import annotations

import hashlib
import json

from bench.testing import write_suite

SUITE = """
name: records
target: {type: echo}
tasks:
  - id: capital
    prompt: "What is the capital of {country}?"
    vars: {country: France}
    metadata: {topic: geography}
    tags: [smoke]
    evaluate: {type: contains, value: Paris}
  - id: chat
    input:
      - {role: system, content: "Be brief."}
      - {role: user, content: "Say hi"}
    evaluate: {type: contains, value: hi}
  - id: given
    prompt: "Refund window?"
    response: "30 days."
    evaluate: {type: contains, value: "30"}
"""


def _tasks(path) -> dict[str, dict]:
    return {t["id"]: t for t in json.loads(path.read_text())["tasks"]}


def test_a_record_keeps_the_prompt_vars_metadata_tags_and_target(bench_cli, tmp_path):
    result = bench_cli("run", write_suite(tmp_path, SUITE), "-o", "out.json", "-q")
    assert result.exit_code == 1, result.output  # capital fails: echo does not know Paris
    tasks = _tasks(tmp_path / "out.json")
    capital = tasks["capital"]
    assert capital["prompt"] == "What is the capital of France?"
    assert capital["vars"] == {"country": "France"}
    assert capital["metadata"] == {"topic": "geography"}
    assert capital["tags"] == ["smoke"]
    assert capital["target"] == {"type": "echo"}
    assert capital["prompt_bytes"] is None
    assert capital["input_omitted"] is None
    assert capital["evaluators"][0]["reason"] == "not found: 'Paris'"
    assert tasks["chat"]["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Say hi"},
    ]
    assert tasks["given"]["target"] == {"type": "recorded"}
    # The run store holds the same records as the report.
    stored = [json.loads(line) for line in next(tmp_path.glob(".bench/runs/*/results.jsonl")).open()]
    assert {t["id"]: t["prompt"] for t in stored}["capital"] == "What is the capital of France?"


def test_a_records_target_names_its_model(bench_cli, tmp_path, bench_fake_llm):
    suite = write_suite(
        tmp_path,
        "name: m\ntarget: {type: litellm, model: openai/fake}\n"
        "tasks:\n  - {id: a, prompt: 'q', evaluate: [{type: contains, value: x}]}\n",
    )
    bench_cli("run", suite, "-o", "out.json", "-q")
    assert _tasks(tmp_path / "out.json")["a"]["target"] == {"type": "litellm", "model": "openai/fake"}


def test_d01_a_prompt_over_the_cap_is_cut_with_its_size_and_digest(bench_cli, tmp_path):
    prompt = "é" * 20  # 40 bytes: the cut never splits a character
    suite = write_suite(
        tmp_path,
        "name: big\nmax_response_bytes: 9\ntarget: {type: echo}\n"
        f"tasks:\n  - {{id: a, prompt: '{prompt}', vars: {{doc: '{'x' * 30}'}}, "
        "evaluate: {type: contains, value: é}}\n",
    )
    assert bench_cli("run", suite, "-o", "out.json", "-q").exit_code == 0
    task = _tasks(tmp_path / "out.json")["a"]
    assert task["prompt"] == "éééé"
    assert task["prompt_bytes"] == 40
    assert task["prompt_sha256"] == hashlib.sha256(prompt.encode()).hexdigest()
    assert task["vars"] is None
    doc = json.dumps({"doc": "x" * 30}).encode()
    assert task["input_omitted"] == {"vars": {"bytes": len(doc), "sha256": hashlib.sha256(doc).hexdigest()}}
