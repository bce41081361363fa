"""N33: every file another tool's suite reads keeps bench's suite-folder rule (B06).

A promptfoo var, prompt, tests file, vars file, defaultTest or assertion value, a youBencha
prompt or evaluator file and an AI Eval prompt may only lead inside the suite's folder (symlinks
resolved), unless ``--allow-outside-root`` is given: what a file outside holds never reaches a
prompt, a provider or a report.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bench import ConfigError
from bench_formats.aieval.loader import AIEvalLoader
from bench_formats.promptfoo.loader import PromptfooLoader
from bench_formats.youbencha.loaders import TestCaseLoader

SECRET = "SECRET-FROM-OUTSIDE"
CONFIG = 'prompts: ["Summarise {{doc}}"]\nproviders: [echo]\ntests: file://TESTS\n'


def _real(path: Path) -> str:
    return os.path.realpath(path)


def _refusal(what: str, resolved: Path, root: Path) -> str:
    return (
        f"path escapes the suite folder: {what} (resolved to {_real(resolved)}); a suite may only read "
        f"files inside {_real(root)} (pass --allow-outside-root to allow it)"
    )


def _project(tmp_path: Path) -> tuple[Path, Path]:
    """A suite folder, and a secret file beside it (outside it)."""
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    suite = tmp_path / "suite"
    suite.mkdir()
    return suite, secret


def _tests_file(suite: Path, kind: str, reference: str) -> Path:
    """A tests file of ``kind`` whose one test, 'leak', sets ``doc`` to ``reference``."""
    text = {
        "csv": f"__description,doc\nleak,{reference}\n",
        "jsonl": f'{{"description": "leak", "vars": {{"doc": "{reference}"}}}}\n',
        "yaml": f"- description: leak\n  vars:\n    doc: '{reference}'\n",
    }[kind]
    tests = suite / f"tests.{kind}"
    tests.write_text(text)
    config = suite / "promptfooconfig.yaml"
    config.write_text(CONFIG.replace("TESTS", tests.name))
    return config


@pytest.mark.parametrize("kind", ["csv", "jsonl", "yaml"])
@pytest.mark.parametrize("form", ["parent", "absolute", "glob", "symlink"])
def test_n33_a_promptfoo_test_row_cannot_read_a_file_outside_the_suite_folder(
    bench_cli, tmp_path, kind, form
):
    suite, secret = _project(tmp_path)
    if form == "symlink":
        (suite / "notes.txt").symlink_to(secret)
    reference = {
        "parent": "file://../secret.txt",
        "absolute": f"file://{secret}",
        "glob": "file://../*.txt",
        "symlink": "file://notes.txt",
    }[form]
    config = _tests_file(suite, kind, reference)
    # a glob's folder outside the suite is refused before it is walked
    resolved = tmp_path if form == "glob" else secret
    expected = _refusal(f"test 'leak' var 'doc' reads {reference}", resolved, suite)

    refused = bench_cli("run", config, "-o", "out.json")
    assert refused.exit_code == 2, refused.output
    assert f"error: {config}: {expected}\n" in refused.stderr
    assert SECRET not in refused.output
    assert not (tmp_path / "out.json").exists()

    allowed = bench_cli("run", config, "-o", "out.json", "--allow-outside-root")
    assert allowed.exit_code == 0, allowed.output
    assert SECRET in (tmp_path / "out.json").read_text()


@pytest.mark.parametrize(
    ("config", "what", "outside"),
    [
        (
            "prompts: [file://../p.txt]\nproviders: [echo]\n",
            "prompts[0] reads file://../p.txt",
            "p.txt",
        ),
        (
            "prompts: [hi]\nproviders: [echo]\ntests: file://../t.csv\n",
            "tests reads file://../t.csv",
            "t.csv",
        ),
        (
            "prompts: [hi]\nproviders: [echo]\ntests: [file://../t.yaml]\n",
            "tests reads file://../t.yaml",
            "t.yaml",
        ),
        (
            "prompts: [hi]\nproviders: [echo]\ndefaultTest: file://../d.yaml\ntests: [{vars: {a: 1}}]\n",
            "defaultTest reads file://../d.yaml",
            "d.yaml",
        ),
        (
            "prompts: [hi]\nproviders: [echo]\ntests: [{vars: file://../v.yaml}]\n",
            "vars reads file://../v.yaml",
            "v.yaml",
        ),
        (
            "prompts: [hi]\nproviders: [echo]\ntests: [{assert: [{type: equals, value: file://../a.txt}]}]\n",
            "an assertion's value reads file://../a.txt",
            "a.txt",
        ),
    ],
    ids=["prompt", "tests-csv", "tests-glob", "default-test", "vars-file", "assert-value"],
)
def test_n33_every_file_a_promptfoo_config_reads_must_lie_in_its_folder(tmp_path, config, what, outside):
    suite, _ = _project(tmp_path)
    for name, text in {
        "p.txt": SECRET,
        "t.csv": f"doc\n{SECRET}\n",
        "t.yaml": f"- vars: {{doc: {SECRET}}}\n",
        "d.yaml": f"vars: {{doc: {SECRET}}}\n",
        "v.yaml": f"doc: {SECRET}\n",
        "a.txt": SECRET,
    }.items():
        (tmp_path / name).write_text(text)
    path = suite / "promptfooconfig.yaml"
    path.write_text(config.replace("DIR", str(tmp_path)))
    with pytest.raises(ConfigError) as caught:
        PromptfooLoader().load(path)
    assert caught.value.message == _refusal(what.replace("DIR", str(tmp_path)), tmp_path / outside, suite)
    assert caught.value.file == str(path)


def test_n33_a_var_rendered_into_a_file_reference_outside_the_folder_is_never_read(tmp_path):
    """promptfoo sends a var that renders to ``file://...`` as that text (renderPrompt renders vars
    after reading files), so the file outside the folder is not read at all."""
    suite, _ = _project(tmp_path)
    (tmp_path / "v.yaml").write_text(f"doc: {SECRET}\n")
    path = suite / "promptfooconfig.yaml"
    path.write_text(
        "prompts: ['{{q}}']\nproviders: [echo]\n"
        f"tests: [{{vars: {{q: \"{{{{ 'file://' ~ dir }}}}/v.yaml\", dir: {tmp_path}}}}}]\n"
    )
    tasks = PromptfooLoader().load(path).data["tasks"]
    assert [task["prompt"] for task in tasks] == [f"file://{tmp_path}/v.yaml"]  # sent as written
    assert SECRET not in json.dumps(tasks)


def test_n33_files_inside_the_suite_folder_are_read_as_before(tmp_path):
    suite, _ = _project(tmp_path)
    (suite / "data").mkdir()
    (suite / "data" / "doc.txt").write_text("inside")
    # a symlink that stays inside the folder is followed
    (suite / "alias.txt").symlink_to(suite / "data" / "doc.txt")
    config = _tests_file(suite, "csv", "file://alias.txt")
    tasks = PromptfooLoader().load(config).data["tasks"]
    assert [task["prompt"] for task in tasks] == ["Summarise inside"]


YOUBENCHA = """\
name: leak
description: reads a file outside its folder
repo: https://example.invalid/repo.git
agent:
  type: copilot-cli
  config:
    prompt: hi
evaluators:
  - name: git-diff
"""


@pytest.mark.parametrize(
    ("replace", "what"),
    [
        (("    prompt: hi\n", "    prompt_file: ../secret.txt\n"), "agent.config.prompt_file ../secret.txt"),
        (("  - name: git-diff\n", "  - file: ../secret.txt\n"), "evaluators file ../secret.txt"),
        (
            ("  - name: git-diff\n", "  - name: agentic-judge\n    config: {prompt_file: ../secret.txt}\n"),
            "evaluator 'agentic-judge' prompt_file ../secret.txt",
        ),
    ],
    ids=["agent-prompt-file", "evaluator-file", "judge-prompt-file"],
)
def test_n33_a_youbencha_test_case_reads_files_only_inside_its_folder(tmp_path, replace, what):
    suite, secret = _project(tmp_path)
    path = suite / "testcase.yaml"
    path.write_text(YOUBENCHA.replace(*replace))
    with pytest.raises(ConfigError) as caught:
        TestCaseLoader().load(path)
    assert caught.value.message == _refusal(what, secret, suite)


def test_n33_an_aieval_prompt_linked_from_outside_the_project_is_refused(tmp_path):
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "prompts").mkdir()
    outside = tmp_path / "p.yaml"
    outside.write_text(f"name: p\ntemplate: '{SECRET} {{{{.word}}}}'\n")
    (project / "prompts" / "p.yaml").symlink_to(outside)
    path = project / "tests" / "suite.yaml"
    path.write_text(
        "suite: s\nprompt: p\ncases:\n  - {id: one, input: {word: hi}, expected: {contains: [hi]}}\n"
    )
    with pytest.raises(ConfigError) as caught:
        AIEvalLoader().load(path)
    assert caught.value.message == _refusal("the prompt file prompts/p.yaml", outside, project)
    # the project folder (the parent of tests/) is the suite's folder: ../prompts is inside it
    (project / "prompts" / "p.yaml").unlink()
    (project / "prompts" / "p.yaml").write_text("name: p\ntemplate: 'Say {{.word}}'\n")
    assert [task["prompt"] for task in AIEvalLoader().load(path).data["tasks"]] == ["Say hi"]
