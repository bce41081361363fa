"""OpenAI evals registry files: detection, refusals in the user's words, and rows that are errors."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

import bench
from bench import ConfigError
from bench.testing import load_suite
from bench_formats.openai_evals.loader import OpenAIEvalsLoader


def registry(tmp_path: Path, evals: str, samples: dict[str, list[Any] | str]) -> Path:
    """A registry folder: ``evals/e.yaml`` and ``data/<name>`` files (rows as JSON lines, or text)."""
    (tmp_path / "evals").mkdir()
    path = tmp_path / "evals" / "e.yaml"
    path.write_text(textwrap.dedent(evals))
    for name, rows in samples.items():
        file = tmp_path / "data" / name
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(rows if isinstance(rows, str) else "".join(json.dumps(r) + "\n" for r in rows))
    return path


MATCH = """\
    cap:
      id: cap.dev.v0
    cap.dev.v0:
      class: evals.elsuite.basic.match:Match
      args:
        samples_jsonl: cap.jsonl
    """
ROWS = [{"input": "Capital of France?", "ideal": "Paris"}, {"input": "Capital of Italy?", "ideal": "Rome"}]


def refusal(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_suite(path, need_target=False)
    return caught.value


def run(path: Path, tmp_path: Path, target: dict[str, Any]) -> dict[str, dict[str, Any]]:
    outcome = bench.run(path, target=target, runs_dir=tmp_path / "runs")
    return {task["id"]: task for task in outcome.report.tasks()}


def test_a_registry_file_is_claimed_by_its_content(tmp_path: Path):
    path = registry(tmp_path, MATCH, {"cap.jsonl": ROWS})
    assert OpenAIEvalsLoader().claims(path)
    plain = tmp_path / "suite.yaml"
    plain.write_text("tasks:\n  - {id: a.b, prompt: hi}\n")
    assert not OpenAIEvalsLoader().claims(plain)


def test_samples_become_tasks_named_as_oaieval_names_samples(tmp_path: Path):
    path = registry(tmp_path, MATCH, {"cap.jsonl": ROWS})
    tasks = run(path, tmp_path, {"type": "echo"})
    assert sorted(tasks) == ["cap.dev.0", "cap.dev.1"]
    # echo answers with the text prompt, a system message as oaieval sends it to a chat model
    assert [tasks[t]["passed"] for t in sorted(tasks)] == [False, False]
    recorded = tmp_path / "evals" / "answers.jsonl"
    recorded.write_text(
        '{"id": "cap.dev.0", "response": "Paris."}\n{"id": "cap.dev.1", "response": "Milan"}\n'
    )
    tasks = run(path, tmp_path, {"type": "recorded", "file": "answers.jsonl"})
    assert {t: tasks[t]["passed"] for t in tasks} == {"cap.dev.0": True, "cap.dev.1": False}


def test_braces_in_a_sample_reach_the_model_as_written(tmp_path: Path):
    rows = [{"input": [{"role": "user", "content": "Fill {name} in {{x}}"}], "ideal": "{name}"}]
    path = registry(tmp_path, MATCH, {"cap.jsonl": rows})
    (task,) = load_suite(path, need_target=False).tasks
    assert task.task.chat() == [{"role": "user", "content": "Fill {name} in {{x}}"}]


def test_a_class_bench_does_not_run_is_an_error_row_naming_it(tmp_path: Path):
    evals = """\
        mc:
          id: mc.dev.v0
        mc.dev.v0:
          class: evals.elsuite.multiple_choice:MultipleChoice
          args: {dataset: "hf://x"}
        """
    path = registry(tmp_path, evals, {})
    with pytest.warns(UserWarning, match="eval 'mc.dev.v0': class .* is not one bench runs"):
        tasks = run(path, tmp_path, {"type": "echo"})
    assert tasks["mc.dev.v0"]["status"] == "error"
    (check,) = tasks["mc.dev.v0"]["evaluators"]
    assert check["error"] == (
        "class evals.elsuite.multiple_choice:MultipleChoice is not one bench runs: bench runs Match, "
        "Includes, FuzzyMatch, JsonMatch and ModelBasedClassify evals (docs/formats/openai.md)"
    )


def _graded(spec: str, extra: str = "") -> str:
    return f"""\
        g:
          id: g.dev.v0
        g.dev.v0:
          class: evals.elsuite.modelgraded.classify:ModelBasedClassify
          args:
            samples_jsonl: g.jsonl
            modelgraded_spec: {spec}
{textwrap.indent(textwrap.dedent(extra), " " * 12)}"""


def _error_of(task: dict[str, Any]) -> str:
    assert task["status"] == "error"
    (check,) = task["evaluators"]
    return str(check["error"])


def test_a_spec_without_scores_gives_error_rows_not_passes(tmp_path: Path):
    path = registry(
        tmp_path, _graded("rhyming", "eval_type: cot_classify"), {"g.jsonl": [{"input": "Write a verse."}]}
    )
    with pytest.warns(UserWarning, match="eval 'g.dev.v0': every row is an error"):
        tasks = run(path, tmp_path, {"type": "echo"})
    assert _error_of(tasks["g.dev.0"]) == (
        "ModelBasedClassify (rhyming): the spec has no choice_scores, so a choice is neither a pass "
        "nor a fail in bench"
    )


def test_a_spec_that_needs_two_completions_gives_error_rows(tmp_path: Path):
    rows = [{"input1": "Joke about cats.", "input2": "Joke about dogs."}]
    path = registry(tmp_path, _graded("battle", "eval_type: cot_classify"), {"g.jsonl": rows})
    tasks = run(path, tmp_path, {"type": "echo"})
    assert _error_of(tasks["g.dev.0"]) == (
        "ModelBasedClassify (battle): needs 2 completions per sample (completion1, completion2); "
        "bench's target gives one"
    )


def test_several_completions_per_sample_give_error_rows(tmp_path: Path):
    path = registry(
        tmp_path, _graded("best", "eval_type: cot_classify\nmulticomp_n: 4"), {"g.jsonl": [{"input": "x"}]}
    )
    with pytest.warns(UserWarning, match="every row is an error"):
        tasks = run(path, tmp_path, {"type": "echo"})
    assert _error_of(tasks["g.dev.0"]) == (
        "ModelBasedClassify (best): multicomp_n 4 asks the model for several completions per sample; "
        "bench's target gives one"
    )


def test_without_a_model_target_a_graded_row_is_an_error_saying_what_grades(tmp_path: Path):
    rows = [{"input": "Capital of Spain?", "ideal": "Madrid"}]
    path = registry(
        tmp_path, _graded("closedqa", "modelgraded_spec_args: {criteria: correct}"), {"g.jsonl": rows}
    )
    tasks = run(path, tmp_path, {"type": "echo"})
    assert _error_of(tasks["g.dev.0"]) == (
        "ModelBasedClassify (closedqa): no grading model: oaieval grades with the model it evaluates, "
        "so run with --target '{type: litellm, model: ...}' (or set this evaluator's model)"
    )


def test_a_meta_eval_grades_the_samples_completion_without_asking_the_target(tmp_path: Path, bench_fake_llm):
    bench_fake_llm.add(bench.testing.Reply("Looks right.\nY"))
    rows = [
        {"input": "3+3?", "completion": "6", "choice": "Y"},
        {"input": "2+2?", "completion": "5", "choice": "N"},
    ]
    extra = "eval_type: cot_classify\nmetaeval: true\nmodelgraded_spec_args: {criteria: correct}"
    path = registry(tmp_path, _graded("closedqa", extra), {"g.jsonl": rows})
    target = {"type": "litellm", "model": "openai/gpt-4o-mini", "api_base": bench_fake_llm.url}
    tasks = run(path, tmp_path, target)
    assert {t: tasks[t]["passed"] for t in tasks} == {"g.dev.0": True, "g.dev.1": False}
    assert bench_fake_llm.count() == 2  # the two gradings: the target answered nothing
    assert all("[Submission]: " in r.body["messages"][0]["content"] for r in bench_fake_llm.requests)


@pytest.mark.parametrize(
    ("evals", "samples", "message"),
    [
        (
            MATCH.replace("samples_jsonl: cap.jsonl", "samples_jsonl: cap.jsonl\n        max_samples: 3"),
            {"cap.jsonl": ROWS},
            "eval 'cap.dev.v0': Match.__init__() got an unexpected keyword argument 'max_samples'",
        ),
        (MATCH, {"cap.jsonl": [{"input": "x"}]}, "eval 'cap.dev.v0': sample must have an 'ideal' key"),
        (
            MATCH,
            {"cap.jsonl": [{"input": "x", "ideal": [1]}]},
            "eval 'cap.dev.v0': sample['ideal'] must be a string or list of strings",
        ),
        (
            MATCH.replace("basic.match:Match", "basic.json_match:JsonMatch"),
            {"cap.jsonl": [{"input": "x", "ideal": "{a: 1}"}]},
            "eval 'cap.dev.v0': an ideal answer is not JSON (Expecting property name enclosed in double "
            "quotes: line 1 column 2 (char 1)): '{a: 1}'",
        ),
        (MATCH, {}, "eval 'cap.dev.v0': samples_jsonl cap.jsonl: no such file (looked for {data}/cap.jsonl)"),
        (MATCH, {"cap.jsonl": '{"input": "x", "ideal": "y"}\n{oops\n'}, "Error parsing JSON on line 2: "
         "Expecting property name enclosed in double quotes"),
        (
            MATCH,
            {"cap.jsonl": "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n"},
            "this is a Git LFS pointer, not the samples: fetch the data first (git lfs pull in the "
            "registry's repository)",
        ),
        (
            _graded("nosuch", "eval_type: cot_classify"),
            {"g.jsonl": [{"input": "x"}]},
            "eval 'g.dev.v0': Modelgraded spec nosuch not found (looked in {root}/modelgraded and evals' own specs)",
        ),
        (
            MATCH.replace("id: cap.dev.v0", "id: cap.test.v0"),
            {},
            "eval 'cap' names 'cap.test.v0', which this file does not define (bench reads the evals of one "
            "registry file)",
        ),
    ],
)  # fmt: skip
def test_bad_registry_input_is_refused_with_a_message(
    tmp_path: Path, evals: str, samples: dict[str, Any], message: str
):
    path = registry(tmp_path, evals, samples)
    root = str(tmp_path.resolve())
    expected = message.replace("{data}", f"{root}/data").replace("{root}", root)
    assert refusal(path).message == expected


def test_samples_outside_the_registry_are_refused(tmp_path: Path):
    (tmp_path / "outside.jsonl").write_text(json.dumps(ROWS[0]) + "\n")
    inner = tmp_path / "reg"
    inner.mkdir()
    path = registry(inner, MATCH.replace("cap.jsonl", "../../outside.jsonl"), {})
    assert refusal(path).message.startswith(
        "path escapes the suite folder: eval 'cap.dev.v0' samples_jsonl ../../outside.jsonl"
    )
