"""docs/ci.md's GitHub Actions workflow and the repository's action.yml, run step by step.

Each ``run:`` step is executed with bash on a copy of examples/quickstart, the way the runner
would, with ``${{ ... }}`` expressions resolved from the inputs; the install step is checked, not
run (the tests never reach PyPI: the packages are installed already).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")
PACKAGES = {p.name for p in (ROOT / "packages").iterdir()}


def _bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _environment(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    env["GITHUB_STEP_SUMMARY"] = str(tmp_path / "step-summary.md")
    env["GITHUB_OUTPUT"] = str(tmp_path / "github-output")
    return env


def _quickstart(tmp_path: Path, folder: str) -> Path:
    work = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "quickstart", work / folder)
    return work


def _installs(command: str) -> set[str]:
    words = command.split()
    assert words[:4] == ["python", "-m", "pip", "install"], command
    return {w for w in words[4:] if not w.startswith("-")}


def _recipe() -> dict:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(name: evals\n.*?)```", text, re.S)
    assert block, "docs/ci.md lost its workflow"
    return yaml.safe_load(block[1])


def test_the_workflow_in_docs_ci_runs_and_writes_the_step_summary(tmp_path):
    steps = _recipe()["jobs"]["evals"]["steps"]
    work = _quickstart(tmp_path, "evals")
    env = _environment(tmp_path)
    install, *runs = [s for s in steps if "run" in s]
    assert _installs(install["run"]) <= PACKAGES
    for step in runs:
        assert set(step.get("env", {})) <= {"OPENAI_API_KEY"}  # a secret this offline suite never reads
        result = _bash(step["run"], work, env)
        assert result.returncode == 0, (step["name"], result.stdout, result.stderr)
    assert "pass rate 83.3% ≥ threshold 80%: passing" in _bash(runs[0]["run"], work, env).stdout
    summary = (tmp_path / "step-summary.md").read_text(encoding="utf-8")
    assert summary.startswith("## bench: quickstart: 1 of 6 tasks did not pass\n")
    assert "| wrong-answer | failed | expected: not found: 'Canberra' |" in summary
    assert (work / "reports" / "junit.xml").read_text().count("<testcase") == 6
    upload = steps[-1]
    assert upload["uses"] == "actions/upload-artifact@v4"
    assert upload["if"] == "always()"
    assert upload["with"]["path"] == "reports/"


def _action_steps(inputs: dict[str, str]) -> tuple[dict, list[dict]]:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    values = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    values.update(inputs)

    def resolve(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            kind, _, name = match[1].partition(".")
            assert kind == "inputs", f"unexpected expression {match[0]}"
            return values[name]

        return EXPRESSION.sub(one, text)

    steps = []
    for step in action["runs"]["steps"]:
        if "run" in step:
            assert EXPRESSION.search(step["run"]) is None, "inputs must reach the script through env"
            step = {**step, "env": {k: resolve(v) for k, v in step.get("env", {}).items()}}
        steps.append(step)
    return action, steps


def _run_action(tmp_path: Path, inputs: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], Path]:
    action, steps = _action_steps(inputs)
    assert action["runs"]["using"] == "composite"
    work = _quickstart(tmp_path, "evals")
    env = _environment(tmp_path)
    install, run = [s for s in steps if "run" in s]
    assert (
        install["run"].strip().endswith('python -m pip install --disable-pip-version-check "${packages[@]}"')
    )
    assert set(install["env"]["BENCH_PACKAGES"].split()) <= PACKAGES
    result = _bash(run["run"], work, {**env, **run["env"]})
    return result, work


def test_the_action_passes_at_the_threshold_and_writes_every_report(tmp_path):
    result, work = _run_action(tmp_path, {"suite": "evals/suite.yaml", "pass-rate-threshold": "80%"})
    assert result.returncode == 0, result.stderr
    reports = work / "bench-reports"
    assert sorted(p.name for p in reports.iterdir()) == ["junit.xml", "results.json", "summary.md"]
    assert (tmp_path / "github-output").read_text() == "exit-code=0\n"
    summary = (tmp_path / "step-summary.md").read_text(encoding="utf-8")
    assert summary == (reports / "summary.md").read_text(encoding="utf-8")


def test_the_action_fails_the_step_with_bench_exit_code_and_still_writes_the_summary(tmp_path):
    result, _work = _run_action(tmp_path, {"suite": "evals/suite.yaml", "args": "-j 2 --repeat 2"})
    assert result.returncode == 1
    assert (tmp_path / "github-output").read_text() == "exit-code=1\n"
    summary = (tmp_path / "step-summary.md").read_text(encoding="utf-8")
    assert "| 12 | 10 | 2 | 0 | 83.3% |" in summary  # --repeat 2 arrived as two words
    assert "| wrong-answer (run 2) | failed |" in summary


def test_the_action_refuses_a_bad_threshold_as_bench_does(tmp_path):
    result, _ = _run_action(tmp_path, {"suite": "evals/suite.yaml", "pass-rate-threshold": "80"})
    assert result.returncode == 2
    assert (
        "error: --pass-rate-threshold 80: write a fraction from 0 to 1 (0.8) or a percentage (80%)"
        in result.stderr
    )
    assert (tmp_path / "github-output").read_text() == "exit-code=2\n"


def _documented_action_inputs() -> dict[str, str]:
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(\s+- uses: actions/checkout@v4\n.*?)```", text, re.S)
    assert block, "docs/ci.md lost its composite action example"
    (use,) = [s for s in yaml.safe_load(block[1]) if "with" in s]
    return {name: str(value) for name, value in use["with"].items()}


def test_the_action_splits_args_with_shell_quoting(tmp_path):
    inputs = _documented_action_inputs()
    assert inputs["args"] == '-k "not slow" -j 16'  # docs/ci.md's own example
    result, work = _run_action(tmp_path, inputs)
    assert result.returncode == 0, result.stderr  # 4 of 5 passed: at the 0.8 threshold
    tasks = json.loads((work / "bench-reports" / "results.json").read_text())["tasks"]
    assert "too-slow" not in {t["id"] for t in tasks}
    assert len(tasks) == 5
    # Quotes keep a word together; what is inside them is never run.
    marker = tmp_path / "ran"
    inputs["args"] = f"-k 'not slow' --var 'x=$(touch {marker})' -j 16"
    again, _ = _run_action(tmp_path / "again", inputs)
    assert again.returncode == 0, again.stderr
    assert not marker.exists()


def test_the_action_refuses_args_it_cannot_split(tmp_path):
    result, _ = _run_action(tmp_path, {"suite": "evals/suite.yaml", "args": '-k "not slow'})
    assert result.returncode == 2
    assert result.stderr == "error: args: No closing quotation\n"
    assert (tmp_path / "github-output").read_text() == "exit-code=2\n"


@pytest.mark.parametrize("name", ["suite", "packages", "pass-rate-threshold", "args", "reports", "upload"])
def test_every_action_input_is_documented_in_docs_ci(name):
    assert f"| `{name}` |" in (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
