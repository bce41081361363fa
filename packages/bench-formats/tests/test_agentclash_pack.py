"""AgentClash challenge packs run as AgentClash scores them (docs/formats/agentclash.md).

Expected verdicts are derived by hand from AgentClash's rules; each test says the arithmetic.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import bench
from bench.testing import load_suite, write_suite
from bench_formats.agentclash.loader import AgentClashLoader

TARGET = {"type": "recorded", "file": "answers.jsonl"}

PACK = """
pack:
  slug: capitals
  name: Capitals
  family: knowledge
version:
  number: 1
  execution_mode: prompt_eval
  evaluation_spec:
    name: capitals
    version_number: 1
    judge_mode: deterministic
    validators:
      - key: exact
        type: exact_match
        target: final_output
        expected_from: case.expectations.answer
      - key: mentions
        type: contains
        target: final_output
        expected_from: case.payload.country
    metrics:
      - {key: completed, type: boolean, collector: run_completed_successfully}
    scorecard:
      SCORECARD
challenges:
  - key: capital
    title: Capital city
    category: knowledge
    difficulty: easy
    instructions: "What is the capital of {{country}}? Answer in {{ style.tone }} form. {{missing}} {x}"
input_sets:
  - key: default
    name: Default
    cases:
      - challenge_key: capital
        case_key: france
        payload: {country: France, style: {tone: short}}
        expectations: [{key: answer, kind: text, value: Paris}]
      - challenge_key: capital
        case_key: peru
        payload: {country: Peru, style: {tone: short}}
        expectations: [{key: answer, kind: text, value: Lima}]
"""


def _pack(
    tmp_path: Path, scorecard: str = "{dimensions: [correctness, reliability]}", **answers: str
) -> Path:
    path = write_suite(tmp_path, PACK.replace("SCORECARD", scorecard), name="pack.yaml")
    rows = answers or {"france": "Paris", "peru": "Cusco, Peru"}
    (tmp_path / "answers.jsonl").write_text(
        "".join(json.dumps({"id": k, "response": v}) + "\n" for k, v in rows.items())
    )
    return path


def _run(path: Path) -> dict[str, dict[str, Any]]:
    result = bench.run(path, target=TARGET, runs_dir=path.parent / "runs")
    return {row["id"]: row for row in result.report.tasks()}


def _validate(path: Path, *args: str) -> tuple[int, str]:
    done = subprocess.run(
        [sys.executable, "-m", "bench", "validate", str(path), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def test_cases_become_tasks_with_the_instructions_rendered_as_agentclash_renders_them(tmp_path: Path):
    plan = load_suite(_pack(tmp_path), target=TARGET)
    task = plan.tasks[0].task
    assert [p.task.id for p in plan.tasks] == ["france", "peru"]
    # Known placeholders filled (dotted paths too); unknown ones stay literal; bench's {x} is text.
    assert task.prompt == "What is the capital of France? Answer in short form. {{missing}} {x}"
    assert task.expectations == {"answer": "Paris"}
    assert task.metadata == {
        "challenge": "capital", "title": "Capital city", "category": "knowledge", "difficulty": "easy",
        "input_set": "default", "case_key": "france",
    }  # fmt: skip


def test_weighted_scorecard_skips_reliability_when_only_run_completed_is_declared(tmp_path: Path):
    rows = _run(_pack(tmp_path))
    # france: exact 1, contains('France')... 'Paris' lacks 'France' -> 0; correctness (1+0)/2 = 0.5.
    # reliability is unavailable (run_failure_count is not declared) -> weighted over correctness alone = 0.5.
    assert round(rows["france"]["score"], 3) == 0.5
    # peru: exact 0, contains 'Peru' 1 -> 0.5; no gates and no pass_threshold -> passes.
    assert round(rows["peru"]["score"], 3) == 0.5
    assert rows["peru"]["passed"] is True
    assert [d["key"] for d in rows["peru"]["scorecard"]["dimensions"]] == ["correctness"]


def test_hybrid_gates_hold_and_the_mean_of_the_other_dimensions_decides(tmp_path: Path):
    scorecard = textwrap.dedent("""\
        {strategy: hybrid, pass_threshold: 0.6, dimensions: [
            {key: correctness, gate: true, pass_threshold: 0.5},
            {key: answer, source: validators, validators: [exact]}]}""")
    rows = _run(_pack(tmp_path, scorecard, france="Paris", peru="Cusco"))
    # france: exact 1, contains('France') 0 -> correctness 0.5 >= 0.5, the gate holds; the score is
    # the mean of the non-gate dimensions: answer = 1 >= 0.6 -> pass with 1.0.
    assert (rows["france"]["passed"], round(rows["france"]["score"], 3)) == (True, 1.0)
    # peru: exact 0, contains('Peru') 0 -> correctness 0 < 0.5: the gate fails the run.
    assert rows["peru"]["passed"] is False


def test_binary_fails_when_a_dimension_misses_its_threshold(tmp_path: Path):
    scorecard = "{strategy: binary, dimensions: [{key: correctness, gate: true, pass_threshold: 0.5}]}"
    rows = _run(_pack(tmp_path, scorecard, france="Paris", peru="Cusco"))
    # france: (exact 1 + contains 0)/2 = 0.5 >= 0.5 -> 1; peru: (0+0)/2 = 0 < 0.5 -> 0.
    assert (rows["france"]["passed"], rows["france"]["score"]) == (True, 1.0)
    assert (rows["peru"]["passed"], rows["peru"]["score"]) == (False, 0.0)


def test_a_case_key_in_two_input_sets_is_prefixed_with_its_input_set(tmp_path: Path):
    path = _pack(tmp_path, "{dimensions: [correctness]}")
    extra = "  - {key: extra, name: Extra, cases: [{challenge_key: capital, case_key: france, payload: {country: France}}]}\n"
    path.write_text(path.read_text() + extra)
    plan = load_suite(path, target=TARGET)
    assert [p.task.id for p in plan.tasks] == ["default/france", "peru", "extra/france"]


def test_a_json_pack_loads_the_same(tmp_path: Path):
    import yaml

    data = yaml.safe_load(PACK.replace("SCORECARD", "{dimensions: [correctness]}"))
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(data))
    assert [p.task.id for p in load_suite(path, target=TARGET).tasks] == ["france", "peru"]


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("slug: capitals", "slug: ' '"), "invalid challenge pack: pack.slug is required"),
        (("number: 1", "number: 0"), "invalid challenge pack: version.number must be greater than 0"),
        (
            ("difficulty: easy", "difficulty: trivial"),
            "invalid challenge pack: challenges[0].difficulty must be one of easy, medium, hard, expert",
        ),
        (
            ("case_key: peru", "case_key: france"),
            "invalid challenge pack: input_sets[0].cases[1].case_key must be unique per challenge in the input set",
        ),
        (
            ("execution_mode: prompt_eval", "execution_mode: batch"),
            'invalid challenge pack: version.execution_mode must be one of "native", "prompt_eval", '
            '"responses", "multi_turn"',
        ),
        (
            ("execution_mode: prompt_eval", "execution_mode: multi_turn"),
            "invalid challenge pack: input_sets[0].cases[0].user_simulator is required when "
            "version.execution_mode is multi_turn; input_sets[0].cases[1].user_simulator is required when "
            "version.execution_mode is multi_turn",
        ),
        (
            (
                "{dimensions: [correctness, reliability]}",
                "{dimensions: [{key: reliability, gate: true, pass_threshold: 1}]}",
            ),
            "scorecard dimension reliability is a gate, but AgentClash scores it only when metrics declare both "
            "the run_completed_successfully and run_failure_count collectors: as written every run fails",
        ),
    ],
)
def test_invalid_packs_are_refused_in_agentclash_words(tmp_path: Path, edit: tuple[str, str], message: str):
    path = _pack(tmp_path)
    path.write_text(path.read_text().replace(*edit, 1))
    code, output = _validate(path)
    assert code == 2
    assert output.strip() == f"error: {path}: {message}"


def test_not_applied_settings_are_warned(tmp_path: Path):
    path = _pack(tmp_path)
    text = path.read_text().replace(
        "execution_mode: prompt_eval", "execution_mode: native\n  sandbox: {network_access: false}"
    )
    text += textwrap.dedent("""\
        tools:
          custom:
            - name: lookup
              parameters: {type: object, properties: {q: {type: string}}}
              implementation: {type: mock, response: {answer: 42}}
        security:
          forbidden_outputs: [{pattern: "sk_test_"}]
        """)
    path.write_text(text)
    loader = AgentClashLoader()
    loader.load(path)
    assert ["warning: " + line for line in loader.warnings] == [
        "warning: version.sandbox is not applied: bench does not provision AgentClash's sandbox; the target runs where bench runs",
        "warning: version.execution_mode native: each case's instructions go to the target given with --target "
        "(an agent target for tool use), not to AgentClash's sandboxed native agent",
        "warning: security is not applied: bench does not scan for its forbidden outputs or planted secrets, "
        "nor send its adversarial prompts",
        "warning: scorecard dimension reliability is left out: AgentClash scores it only when metrics declare "
        "both the run_completed_successfully and run_failure_count collectors, so in this pack it is unavailable",
    ]


def test_the_older_challenge_pack_v0_draft_is_refused(tmp_path: Path):
    path = write_suite(
        tmp_path,
        """
        version: challenge_pack/v0
        name: smoke
        version:
          tool_policy: {allow_shell: true}
        tasks:
          - id: lint
            prompt: Lint it.
        scoring:
          judges:
            - {id: has_ruff, type: contains, target: answer, value: ruff}
        """,
        name="smoke.yaml",
    )
    code, output = _validate(path)
    assert code == 2
    assert output.strip() == (
        f"error: {path}: this is an AgentClash challenge_pack/v0 draft (`tasks:` and `scoring.judges`), which "
        "AgentClash's bundle parser does not load either: a challenge pack has `pack:`, `version:` (with "
        "`number` and `evaluation_spec`), `challenges:` and `input_sets:`"
    )


def test_the_example_runs_offline():
    path = Path(__file__).resolve().parents[3] / "examples" / "from-agentclash" / "capitals.yaml"
    import tempfile

    with tempfile.TemporaryDirectory() as runs:
        result = bench.run(path, target=TARGET, runs_dir=runs)
        rows = {row["id"]: row for row in result.report.tasks()}
    # france: exact 1 -> 1.0; peru: exact 0 -> 0.0, passing: no gate and no pass_threshold.
    assert [(k, r["passed"], r["score"]) for k, r in rows.items()] == [
        ("france", True, 1.0),
        ("peru", True, 0.0),
    ]


def test_token_f1_gets_agentclash_defaults_no_normalisation_and_threshold_half(tmp_path: Path):
    pack = PACK.replace(
        "      - key: mentions\n        type: contains\n        target: final_output\n        expected_from: case.payload.country\n",
        "      - key: overlap\n        type: token_f1\n        target: final_output\n        expected_from: case.expectations.answer\n",
    ).replace("SCORECARD", "{dimensions: [correctness]}")
    path = write_suite(tmp_path, pack, name="pack.yaml")
    (tmp_path / "answers.jsonl").write_text(
        json.dumps({"id": "france", "response": "paris"})
        + "\n"
        + json.dumps({"id": "peru", "response": "Lima city"})
        + "\n"
    )
    rows = _run(path)
    overlap = {k: next(e for e in r["evaluators"] if e["name"] == "overlap") for k, r in rows.items()}
    # france: no normalisation, so 'paris' != 'Paris': no overlap, F1 0 (SQuAD normalisation would give 1).
    assert (overlap["france"]["score"], overlap["france"]["passed"]) == (0.0, False)
    # peru: tokens [Lima, city] vs [Lima]: precision 1/2, recall 1 -> F1 2/3 >= 0.5 passes.
    assert round(overlap["peru"]["score"], 3) == 0.667
    assert overlap["peru"]["passed"] is True


def test_keys_agentclash_ignores_in_a_file_validators_config_are_dropped_with_a_warning(tmp_path: Path):
    path = _pack(tmp_path)
    extra = (
        "      - key: wrote\n        type: file_content_match\n        target: final_output\n"
        '        expected_from: "literal:Par"\n        config: {mode: contains, match_mode: contains}\n'
    )
    path.write_text(path.read_text().replace("    metrics:\n", extra + "    metrics:\n", 1))
    loader = AgentClashLoader()
    native = loader.load(path).data
    entry = next(e for e in native["tasks"][0]["evaluate"] if e["key"] == "wrote")
    assert entry["config"] == {"match_mode": "contains"}
    assert (
        "validator 'wrote' (file_content_match): config mode ignored, as AgentClash ignores keys its config "
        "does not define"
    ) in loader.warnings


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench", *args], capture_output=True, text=True, check=False, cwd=cwd
    )


def test_validate_checks_a_pack_that_names_no_target_and_says_a_target_is_needed_to_run(tmp_path: Path):
    # AgentClash validates a pack without any model: bench validate does too; running needs one
    path = _pack(tmp_path)
    done = _cli("validate", str(path), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[0] == "suite 'Capitals' is valid: 2 tasks, target: none"
    assert done.stdout.rstrip().splitlines()[-1] == (
        "a target is needed to run it: 2 tasks have no recorded response and the suite names no "
        "target (add 'target:' or give --target SPEC)"
    )
    run = _cli("run", str(path), cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr.splitlines()[0] == (
        f"{path}: tasks[0]: the task has no 'response:' and the suite has no 'target:' "
        "(add one or give --target SPEC)"
    )
    assert not (tmp_path / ".bench").exists()
