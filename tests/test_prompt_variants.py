"""Prompt variants in native suites (``prompts:``): each task on every prompt × target pair."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SUITE = """\
name: variants
prompts:
  - {label: plain, template: "{prompt}"}
  - {label: terse, template: "In one word: {prompt}"}
targets:
  - {label: same, type: echo}
  - {label: upper, type: command, command: [tr, a-z, A-Z]}
tasks:
  - {id: a, prompt: "capital of {country}?", vars: {country: france}, evaluate: {expected: france}}
  - {id: b, prompt: bye, prompt_label: terse, evaluate: {expected: word}}
"""


def _tasks(path: Path) -> dict[str, dict]:
    return {t["id"]: t for t in json.loads(path.read_text())["tasks"]}


def test_a_task_runs_on_every_prompt_and_target_pair_labelled_in_its_result(
    bench_cli, bench_suite_file, tmp_path
):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "-o", "out.json")
    assert result.exit_code == 1, result.stderr
    tasks = _tasks(tmp_path / "out.json")
    assert [(i, t["prompt_label"], t["target"]["label"], t["response"]) for i, t in tasks.items()] == [
        ("a[plain][same]", "plain", "same", "capital of france?"),
        ("a[plain][upper]", "plain", "upper", "CAPITAL OF FRANCE?"),
        ("a[terse][same]", "terse", "same", "In one word: capital of france?"),
        ("a[terse][upper]", "terse", "upper", "IN ONE WORD: CAPITAL OF FRANCE?"),
        ("b[same]", "terse", "same", "In one word: bye"),
        ("b[upper]", "terse", "upper", "IN ONE WORD: BYE"),
    ]


def test_a_task_without_prompt_variants_has_no_prompt_label(bench_cli, bench_suite_file, tmp_path):
    body = "target: {type: echo}\ntasks: [{id: a, prompt: hi, evaluate: {expected: hi}}]\n"
    assert bench_cli("run", bench_suite_file(body), "-q", "-o", "out.json").exit_code == 0
    assert "prompt_label" not in _tasks(tmp_path / "out.json")["a"]


def test_prompts_read_from_files_are_labelled_by_the_file_or_their_place(
    bench_cli, bench_suite_file, tmp_path
):
    (tmp_path / "ask.txt").write_text("Please: {question}\n")
    body = (
        "prompts: [{file: ask.txt}, 'Q: {question}']\n"
        "target: {type: echo}\n"
        "tasks: [{id: a, vars: {question: why}, evaluate: {expected: why}}]\n"
    )
    assert bench_cli("run", bench_suite_file(body), "-q", "-o", "out.json").exit_code == 0
    tasks = _tasks(tmp_path / "out.json")
    assert [(i, t["prompt_label"], t["response"]) for i, t in tasks.items()] == [
        ("a[ask.txt]", "ask.txt", "Please: why\n"),
        ("a[prompt 2]", "prompt 2", "Q: why"),
    ]


def test_resume_keys_are_unique_per_pair_and_an_edited_prompt_reruns_only_its_runs(bench_suite_file):
    from bench.suite.loader import load_suite

    plan = load_suite(bench_suite_file(SUITE))
    keys, digests = list(plan.tasks.ids), list(plan.tasks.digests)
    assert len(set(keys)) == len(keys) == 6
    edited = load_suite(bench_suite_file(SUITE.replace("In one word:", "Briefly:")))
    assert list(edited.tasks.ids) == keys
    changed = [key for key, old, new in zip(keys, digests, edited.tasks.digests, strict=True) if old != new]
    assert changed == ["a[terse][same]", "a[terse][upper]", "b[same]", "b[upper]"]


def test_a_resumed_run_runs_only_the_pairs_it_had_not_finished(bench_cli, bench_suite_file, tmp_path):
    suite = bench_suite_file(SUITE)
    assert bench_cli("run", suite, "-q").exit_code == 1
    (run,) = (tmp_path / ".bench" / "runs").iterdir()
    lines = (run / "results.jsonl").read_text().splitlines()
    (run / "results.jsonl").write_text("\n".join(lines[:3]) + "\n")  # three pairs finished
    assert bench_cli("run", suite, "-q", "--resume", run.name, "-o", "out.json").exit_code == 1
    assert sorted(_tasks(tmp_path / "out.json")) == sorted(
        ["a[plain][same]", "a[plain][upper]", "a[terse][same]", "a[terse][upper]", "b[same]", "b[upper]"]
    )


def test_without_prompts_a_task_prompt_label_labels_its_own_prompt(bench_cli, bench_suite_file, tmp_path):
    body = (
        "target: {type: echo}\ntasks: [{id: a, prompt: hi, prompt_label: greet, evaluate: {expected: hi}}]\n"
    )
    assert bench_cli("run", bench_suite_file(body), "-q", "-o", "out.json").exit_code == 0
    assert _tasks(tmp_path / "out.json")["a"]["prompt_label"] == "greet"


TASK = "tasks: [{id: a, prompt: p, evaluate: {expected: p}}]\n"


def test_unlabelled_inline_prompts_are_told_apart_by_their_place(bench_cli, bench_suite_file, tmp_path):
    body = "prompts: ['{prompt}', '{prompt}!']\ntarget: {type: echo}\n" + TASK
    assert bench_cli("run", bench_suite_file(body), "-q", "-o", "out.json").exit_code == 0
    assert list(_tasks(tmp_path / "out.json")) == ["a[prompt 1]", "a[prompt 2]"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "prompts: [{label: x, template: a}, {label: x, template: b}]\ntarget: {type: echo}\n" + TASK,
            "1:37: prompts[1].label: prompt label 'x' is used twice",
        ),
        (
            "prompts: [{file: a.txt}, {file: a.txt}]\ntarget: {type: echo}\n" + TASK,
            "1:26: prompts[1].label: prompt label 'a.txt' is used twice (give each prompt a label)",
        ),
        (
            "prompts: [{label: x}]\ntarget: {type: echo}\n" + TASK,
            "1:11: prompts[0]: a prompt gives 'template' or 'file', not both and not neither",
        ),
        (
            "prompts: [{label: x, file: missing.txt}]\ntarget: {type: echo}\n" + TASK,
            "1:22: prompts[0].file: cannot read prompt file missing.txt: no such file",
        ),
        (
            "prompts: [{label: x, template: '{nope}'}]\ntarget: {type: echo}\n" + TASK,
            "3:9: tasks[0]: prompt 'x' has the placeholder {nope}, which this task does not give "
            "(its vars: prompt)",
        ),
        (
            "prompts: [x]\ntarget: {type: echo}\n"
            "tasks: [{id: a, prompt: p, prompt_label: y, evaluate: {expected: p}}]\n",
            "3:28: tasks[0].prompt_label: unknown prompt 'y'; the suite's prompts are prompt 1",
        ),
        (
            "prompts: [x]\ntarget: {type: echo}\n"
            "tasks: [{id: a, input: [{role: user, content: hi}], evaluate: {expected: p}}]\n",
            "3:17: tasks[0].input: the suite's prompts: are text templates; this task's input is a "
            "conversation",
        ),
    ],
)
def test_prompts_refusals(bench_cli, bench_suite_file, tmp_path, body, message):
    (tmp_path / "a.txt").write_text("{prompt}")
    suite = bench_suite_file(body)
    result = bench_cli("validate", suite)
    assert result.exit_code == 2
    assert result.stderr == f"error: {suite}:{message}\n"


def test_the_docs_example_runs_as_its_comments_say(bench_cli, bench_suite_file, tmp_path):
    text = (Path(__file__).resolve().parents[1] / "docs" / "suites.md").read_text()
    section = text[text.index("### Prompt variants") :]
    block = section[section.index("```yaml\n") + 8 : section.index("```\n", section.index("```yaml"))]
    result = bench_cli("run", bench_suite_file(block), "-q", "-o", "out.json")
    assert result.exit_code == 1, result.stderr
    assert [(i, t["passed"]) for i, t in _tasks(tmp_path / "out.json").items()] == [
        ("a[plain][same]", True),
        ("a[plain][upper]", False),
        ("a[terse][same]", True),
        ("a[terse][upper]", False),
        ("b[same]", True),
        ("b[upper]", False),
    ]
