"""The command-line contract (docs/cli.md): commands, exit codes, the --output JSON and JUnit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

# Behaviour that differs between Python versions: these run on every Python (noxfile.py).
pytestmark = pytest.mark.every_python

QUICKSTART = Path(__file__).resolve().parents[1] / "examples" / "quickstart" / "suite.yaml"


def test_quickstart_runs_offline_with_passing_and_failing_tasks(bench_cli, tmp_path):
    result = bench_cli("run", QUICKSTART, "--output", "out.json", "--junit", "junit.xml")
    assert result.exit_code == 1, result.output
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["suite"] == "quickstart"
    assert report["passed"] is False
    assert report["summary"] == {"total": 6, "passed": 5, "failed": 1, "errors": 0, "interrupted": 0}
    first = report["tasks"][0]
    assert {k: first[k] for k in ("id", "passed", "score", "response", "error")} == {
        "id": "capital-of-france",
        "passed": True,
        "score": 1.0,
        "response": "The capital of France is Paris.",
        "error": None,
    }
    assert first["evaluators"][0] == {
        "name": "mentions_paris",
        "type": "expected",
        "passed": True,
        "score": 1.0,
        "reason": "found 'Paris'",
        "error": None,
        "weight": 1.0,
        "details": {},
    }
    slow = next(t for t in report["tasks"] if t["id"] == "too-slow")
    assert slow["passed"] is True
    assert slow["error"] == "timed out after 0.5 s"
    rows = {line.split("│")[1].strip(): line for line in result.stdout.splitlines() if line.startswith("│ ")}
    assert "│ failed │ expected: not found: 'Canberra'" in rows["wrong-answer"]
    assert "│ passed │ mentions_paris: found 'Paris'" in rows["capital-of-france"]
    assert "6 tasks: 5 passed, 1 failed, 0 errors" in result.stdout

    suite = ET.parse(tmp_path / "junit.xml").getroot().find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("6", "1", "0")
    failure = suite.find("testcase[@name='wrong-answer']/failure")
    assert failure is not None
    assert failure.get("message") == "expected (expected): not found: 'Canberra'"


def test_exit_0_when_all_pass(bench_cli, bench_suite_file):
    path = bench_suite_file("tasks:\n  - {id: a, response: yes, evaluate: {expected: yes}}\n")
    assert bench_cli("run", path).exit_code == 0


def test_exit_3_when_a_task_could_not_be_evaluated(bench_cli, bench_suite_file):
    path = bench_suite_file(
        "target: {type: recorded}\n"
        "tasks:\n  - {id: a, response: yes, evaluate: {expected: yes}}\n  - {id: b, evaluate: {expected: x}}\n"
    )
    result = bench_cli("run", path, "-o", "out.json")
    assert result.exit_code == 3
    assert "│ b    │ error  │ no recorded response for task 'b' │" in result.stdout


def test_validate_lists_the_evaluators(bench_cli):
    result = bench_cli("validate", QUICKSTART)
    assert result.exit_code == 0
    assert "suite 'quickstart' is valid: 6 tasks, target: python" in result.stdout
    for name in ("mentions_paris", "(inline)", "polite"):
        assert name in result.stdout
    assert "│ several-facts     │ python        │ polite, expected │" in result.stdout
    assert "definition file:" in result.stdout


def test_evaluators_lists_types_with_their_distribution(bench_cli):
    result = bench_cli("evaluators")
    assert result.exit_code == 0
    assert "expected" in result.stdout
    assert "bench-deterministic" in result.stdout


def test_unknown_reporter_and_missing_output_folder(bench_cli, bench_suite_file):
    path = bench_suite_file("tasks:\n  - {id: a, response: yes, evaluate: {expected: yes}}\n")
    result = bench_cli("run", path, "--report", "pdf=out.pdf")
    assert result.exit_code == 2
    assert result.stderr == "error: --report: unknown reporter 'pdf'\n"
    result = bench_cli("run", path, "-o", "no/such/folder/out.json")
    assert result.exit_code == 2
    assert (
        result.stderr == "error: cannot write no/such/folder/out.json: folder no/such/folder does not exist\n"
    )


def test_missing_suite_file(bench_cli):
    result = bench_cli("validate", "nope.yaml")
    assert result.exit_code == 2
    assert result.stderr == "error: nope.yaml: no such file\n"


def _modules_after(*argv: str) -> set[str]:
    code = (
        "import sys\nfrom bench.cli import main\nsys.argv = ['bench', *sys.argv[1:]]\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "sys.stderr.write('MODULES=' + ','.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, timeout=60)
    return set(done.stderr.rsplit("MODULES=", 1)[1].split(","))


def test_help_imports_no_heavy_module():
    modules = _modules_after("--help")
    for heavy in (
        "litellm",
        "torch",
        "sentence_transformers",
        "pydantic",
        "yaml",
        "bench.suite.loader",
        "fsspec",
    ):
        assert heavy not in modules, heavy


def test_validate_imports_neither_litellm_nor_torch():
    modules = _modules_after("validate", str(QUICKSTART))
    assert "bench.suite.loader" in modules  # the command really ran
    for heavy in ("litellm", "torch", "sentence_transformers"):
        assert heavy not in modules, heavy


def test_a_closed_pipe_ends_every_command_quietly(bench_suite_file, tmp_path):
    # `bench cache info | head -1`: the reader is gone before bench writes (here, before it starts).
    suite = bench_suite_file(
        "target: {type: echo}\ntasks:\n  - {id: a, prompt: hi, evaluate: {expected: hi}}\n"
    )
    commands = [
        ["cache", "info"],
        ["schema"],
        ["evaluators"],
        ["validate", str(suite)],
        ["run", str(suite), "-q", "--runs-dir", str(tmp_path / "runs")],
    ]
    for command in commands:
        read, write = os.pipe()
        os.close(read)
        try:
            done = subprocess.run(
                [sys.executable, "-m", "bench", *command],
                stdout=write,
                stderr=subprocess.PIPE,
                text=True,
                timeout=120,
            )
        finally:
            os.close(write)
        assert (command, done.returncode, done.stderr) == (command, 141, "")
