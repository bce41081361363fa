"""bench gives the verdicts ``oaieval`` recorded (conformance/openai_evals/expected, made by record.py).

Both run against the same scripted model (conformance/openai_evals/fake_model.py): bench's rows
must hold the same verdict per sample id (``Match``-style ``correct``; ``ModelBasedClassify``'s
``choice``, ``score`` and ``metascore``), and bench must send the same prompts, to the model and
to the grader, and the grader the same sampling parameters.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

import bench

CORPUS = Path(__file__).parent / "conformance" / "openai_evals"
EXPECTED = {
    path.stem: json.loads(path.read_text(encoding="utf-8"))
    for path in sorted((CORPUS / "expected").glob("*.json"))
}
FILES = sorted((CORPUS / "registry" / "evals").glob("*.yaml"))


def _fake_model() -> Any:
    spec = importlib.util.spec_from_file_location("openai_evals_fake_model", CORPUS / "fake_model.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fake_model = _fake_model()


def run_bench(registry_file: Path, tmp_path: Path) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """bench's tasks by id, and the requests it sent, for one registry file."""
    server = fake_model.serve()
    try:
        target = {
            "type": "litellm",
            "model": "openai/gpt-3.5-turbo",
            "api_base": server.url,
            "api_key_env": "FAKE_KEY",
        }
        outcome = bench.run(registry_file, target=target, runs_dir=tmp_path / "runs")
        requests = fake_model.sent(server)
    finally:
        server.stop()
    return {task["id"]: task for task in outcome.report.tasks()}, requests


def evals_of(registry_file: Path) -> list[dict[str, Any]]:
    names = {
        name for name, value in _yaml(registry_file).items() if isinstance(value, dict) and "id" in value
    }
    return [EXPECTED[name] for name in sorted(names)]


def _yaml(path: Path) -> dict[str, Any]:
    import yaml

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def verdict(task: dict[str, Any]) -> dict[str, Any]:
    """What bench's row says in ``evals``' terms."""
    (check,) = task["evaluators"]
    details = check.get("details") or {}
    if check["type"] == "openai_evals":
        out: dict[str, Any] = {"correct": check["passed"]}
        if "f1_score" in details:
            out["f1_score"] = details["f1_score"]
        return out
    out = {"choice": details.get("choice"), "score": details.get("choice_score")}
    if "metascore" in details:
        out["metascore"] = details["metascore"]
    return out


def recorded(sample: dict[str, Any]) -> dict[str, Any]:
    keys = ("correct", "f1_score") if "correct" in sample else ("choice", "score", "metascore")
    return {key: sample[key] for key in keys if key in sample}


@pytest.mark.parametrize("registry_file", FILES, ids=lambda p: p.stem)
def test_bench_gives_oaievals_verdicts(registry_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("FAKE_KEY", "sk-fake")
    tasks, requests = run_bench(registry_file, tmp_path)
    expected = evals_of(registry_file)
    assert expected, f"no recorded evals for {registry_file.name}: run record.py"
    differences = []
    for recording in expected:
        for sample_id, sample in recording["samples"].items():
            task = tasks.get(sample_id)
            if task is None:
                differences.append(f"{sample_id}: no such task in bench's run")
            elif task["status"] == "error":
                differences.append(
                    f"{sample_id}: bench's row is an error: {task['error'] or task['evaluators']}"
                )
            elif verdict(task) != recorded(sample):
                differences.append(f"{sample_id}: oaieval {recorded(sample)}, bench {verdict(task)}")
    recorded_ids = {sample_id for recording in expected for sample_id in recording["samples"]}
    differences += [f"{task_id}: a row oaieval did not make" for task_id in set(tasks) - recorded_ids]
    assert not differences, "\n".join(differences)

    # bench's cache asks a prompt once per run (two evals here share their samples): compare sets.
    sent_prompts = {json.dumps(r["messages"], sort_keys=True) for r in requests}
    evals_prompts = {
        json.dumps(prompt, sort_keys=True)
        for recording in expected
        for sample in recording["samples"].values()
        for prompt in sample["prompts"]
    }
    assert sent_prompts == evals_prompts, (
        f"only bench sent: {sorted(sent_prompts - evals_prompts)[:3]}\n"
        f"only oaieval sent: {sorted(evals_prompts - sent_prompts)[:3]}"
    )
    graders = [r["params"] for r in requests if r["who"] == "grader"]
    for recording in expected:
        if "grader" in recording["params"]:
            assert recording["params"]["grader"] in graders
