"""Hostile files given to the other formats' loaders: alias bombs (N36), globs over folders linked
to themselves (N37) and deep nesting (N41) are refused with bench's words, exit 2, at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import ConfigError
from bench_formats.agentclash.loader import AgentClashLoader
from bench_formats.aieval.loader import AIEvalLoader
from bench_formats.promptfoo import paths
from bench_formats.promptfoo.loader import PromptfooLoader
from bench_formats.youbencha.loaders import TestCaseLoader

#: Nine anchors, each a list of nine of the one before: 9**7 (4.8 million) nodes once expanded.
BOMB = "".join(
    f"  a{i}: &a{i} [{', '.join(['x'] * 9 if i == 0 else [f'*a{i - 1}'] * 9)}]\n" for i in range(7)
)
BOMBED = "expands to more than 1,000,000 nodes through aliases"
NESTED = "nested deeper than 64 levels"
DEEP = "[" * 5000 + "]" * 5000
PROMPTFOO = "prompts: [hi]\nproviders: [echo]\n"
YOUBENCHA = (
    "name: n\ndescription: d\nrepo: https://example.invalid/r.git\n"
    "agent: {type: copilot-cli, config: {prompt: hi}}\nevaluators: [{name: git-diff}]\n"
)
AIEVAL = "suite: s\nprompt: p\ncases: [{id: a, input: {word: x}, expected: {contains: [x]}}]\n"
AGENTCLASH = "pack: {slug: s, name: S, family: f}\nversion: {number: 1}\nchallenges: []\n"


PROMPT = {"prompts/p.yaml": "name: p\ntemplate: 'Say {{.word}}'\n"}


def _write_all(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)


@pytest.mark.parametrize(
    ("loader", "files", "bombed"),
    [
        (PromptfooLoader, {"promptfooconfig.yaml": f"{PROMPTFOO}bomb:\n{BOMB}"}, "promptfooconfig.yaml"),
        (
            PromptfooLoader,
            {
                "promptfooconfig.yaml": f"{PROMPTFOO}tests: file://tests.yaml\n",
                "tests.yaml": "- description: t\n  vars:\n" + BOMB.replace("  a", "    a"),
            },
            "tests.yaml",
        ),
        (
            PromptfooLoader,
            {
                "promptfooconfig.yaml": f"{PROMPTFOO}tests: [{{vars: file://vars.yaml}}]\n",
                "vars.yaml": f"bomb:\n{BOMB}",
            },
            "vars.yaml",
        ),
        (TestCaseLoader, {"testcase.yaml": f"{YOUBENCHA}bomb:\n{BOMB}"}, "testcase.yaml"),
        (AgentClashLoader, {"pack.yaml": f"{AGENTCLASH}bomb:\n{BOMB}"}, "pack.yaml"),
        (AIEvalLoader, {"tests/suite.yaml": f"{AIEVAL}bomb:\n{BOMB}", **PROMPT}, "tests/suite.yaml"),
    ],
    ids=[
        "promptfoo-config",
        "promptfoo-tests-file",
        "promptfoo-vars-file",
        "youbencha",
        "agentclash",
        "aieval",
    ],
)
def test_n36_an_alias_bomb_is_refused_by_every_loader_before_it_expands(tmp_path, loader, files, bombed):
    _write_all(tmp_path, files)
    with pytest.raises(ConfigError) as caught:
        loader().load(tmp_path / next(iter(files)))
    assert (caught.value.file, caught.value.line, caught.value.message) == (str(tmp_path / bombed), 1, BOMBED)


# The column is where the 65th level opens: a block mapping's top level is level 1.
@pytest.mark.parametrize(
    ("files", "suite", "error"),
    [
        (
            {"promptfooconfig.yaml": f"deep: {DEEP}\n{PROMPTFOO}"},
            "promptfooconfig.yaml",
            "promptfooconfig.yaml:1:70",
        ),
        (
            {
                "promptfooconfig.yaml": f"{PROMPTFOO}tests: file://tests.yaml\n",
                "tests.yaml": f"- deep: {DEEP}\n",
            },
            "promptfooconfig.yaml",
            "tests.yaml:1:71",
        ),
        (
            {
                "promptfooconfig.yaml": f"{PROMPTFOO}tests: file://tests.json\n",
                "tests.json": f'[{{"deep": {DEEP}}}]',
            },
            "promptfooconfig.yaml",
            "tests.json:1:73",
        ),
        ({"testcase.yaml": f"deep: {DEEP}\n{YOUBENCHA}"}, "testcase.yaml", "testcase.yaml:1:70"),
        (
            {"testcase.json": '{"deep": ' + DEEP + ', "repo": "r", "agent": {}, "evaluators": []}'},
            "testcase.json",
            "testcase.json:1:73",
        ),
        (
            {"tests/suite.yaml": f"deep: {DEEP}\n{AIEVAL}", **PROMPT},
            "tests/suite.yaml",
            "tests/suite.yaml:1:70",
        ),
        ({"pack.yaml": f"deep: {DEEP}\n{AGENTCLASH}"}, "pack.yaml", "pack.yaml:1:70"),
        ({"suite.yaml": "{tasks: " + DEEP + "}\n"}, "suite.yaml", "suite.yaml:1:72"),
        ({"suite.json": '{"tasks": ' + DEEP + "}"}, "suite.json", "suite.json:1:74"),
    ],
    ids=[
        "promptfoo-config",
        "promptfoo-tests-yaml",
        "promptfoo-tests-json",
        "youbencha-yaml",
        "youbencha-json",
        "aieval",
        "agentclash",
        "native-flow-yaml",
        "native-json",
    ],
)
def test_n41_deep_nesting_exits_2_naming_the_file_in_every_loader(bench_cli, tmp_path, files, suite, error):
    _write_all(tmp_path, files)
    result = bench_cli("validate", suite)
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: {error}: {NESTED}\n"


def _tests_config(folder: Path, tests: str) -> Path:
    path = folder / "promptfooconfig.yaml"
    path.write_text(f"prompts: ['{{{{q}}}}']\nproviders: [echo]\ntests: {tests}\n")
    return path


def test_n37_a_glob_star_star_does_not_enter_a_symlinked_folder(tmp_path):
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "t.yaml").write_text("- vars: {q: one}\n")
    (tmp_path / "more").symlink_to(tmp_path / "cases")
    path = _tests_config(tmp_path, "file://**/t.yaml")
    tasks = PromptfooLoader().load(path).data["tasks"]
    assert [task["prompt"] for task in tasks] == ["one"]


@pytest.mark.timeout(30)
def test_n37_a_folder_linked_to_itself_is_walked_once(tmp_path):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "self").symlink_to(".")
    (folder / "up").symlink_to("..")
    (folder / "t.yaml").write_text("- vars: {q: one}\n")
    (tmp_path / "u.yaml").write_text("- vars: {q: two}\n")
    path = _tests_config(tmp_path, "file://**/[tu].yaml")
    tasks = PromptfooLoader().load(path).data["tasks"]
    assert [task["prompt"] for task in tasks] == ["two", "one"]


def test_n37_a_glob_that_looks_at_too_many_entries_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(paths, "MAX_GLOB_ENTRIES", 10)
    for n in range(12):
        (tmp_path / f"v{n}.txt").write_text(str(n))
    path = _tests_config(tmp_path, "[{vars: {q: 'file://**/*.txt'}}]")
    with pytest.raises(ConfigError) as caught:
        PromptfooLoader().load(path)
    assert str(caught.value) == (
        f"{path}: test 'test 1' var 'q' reads file://**/*.txt: the glob looks at more than 10 files "
        "and folders; name fewer of them"
    )
