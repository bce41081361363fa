"""Which loader reads a file is decided from its top-level keys, whatever its line endings and comments."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench import ConfigError
from bench.testing import load_suite
from bench_formats.sniff import HEAD_BYTES

YOUBENCHA_CASE = """\
name: add-comment
description: Add a helpful comment to the README
repo: https://github.com/example/demo.git
agent:
  type: copilot-cli
  config:
    prompt: Add a comment
evaluators:
  - name: git-diff
"""


def test_detection_reads_keys_on_crlf_lines(tmp_path: Path):
    # a youBencha test case saved on Windows: `agent:` and `evaluators:` end in \r\n
    path = tmp_path / "case.yaml"
    path.write_bytes(YOUBENCHA_CASE.replace("\n", "\r\n").encode())
    plan = load_suite(path)
    assert (plan.name, plan.target_type, plan.tasks.ids[0]) == ("add-comment", "command", "add-comment")


def test_detection_reads_keys_after_a_long_comment_header(tmp_path: Path):
    # 200 comment lines that together outweigh the part of a file that is scanned for keys
    width = HEAD_BYTES // 150
    header = "".join(f"# {n:03d} {'-' * width}\n" for n in range(200))
    path = tmp_path / "eval.yaml"
    path.write_text(header + "prompts: ['Say {{word}}']\nproviders: [echo]\ntests:\n  - vars: {word: hi}\n")
    plan = load_suite(path)
    assert [t.task.prompt for t in plan.tasks] == ["Say hi"]


def test_detection_reads_keys_after_a_long_comment_line(tmp_path: Path):
    # one comment line longer than what is read at a time: its tail is no key
    path = tmp_path / "eval.yaml"
    path.write_text(
        f"# {'x' * HEAD_BYTES} tasks: [] \n"
        "prompts: ['Say {{word}}']\nproviders: [echo]\ntests:\n  - vars: {word: hi}\n"
    )
    plan = load_suite(path)
    assert [t.task.prompt for t in plan.tasks] == ["Say hi"]


LOADERS_TRIED = "promptfoo, youbencha-testcase, youbencha-eval, agentclash, aieval, openai-evals, suite-part"


@pytest.mark.parametrize(
    ("text", "nearest"),
    [
        (
            "prompts: ['Say hi']\ndescription: no providers, no tests\n",
            "; the nearest, promptfoo, declined: a promptfoo config has top-level 'prompts' with "
            "'providers' or 'tests'; this file has neither 'providers' nor 'tests'",
        ),
        (
            "repo: https://github.com/example/demo.git\nname: x\n",
            "; the nearest, youbencha-testcase, declined: a youBencha test case has top-level 'repo', "
            "'agent' and 'evaluators'; this file lacks 'agent' and 'evaluators'",
        ),
        ("name: x\n", ""),
    ],
)
def test_an_unclaimed_file_names_the_loaders_tried_and_why_the_nearest_declined(
    tmp_path: Path, text: str, nearest: str
):
    path = tmp_path / "thing.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    assert str(caught.value) == (
        f"{path}: a suite is a mapping with 'tasks:', and no other suite loader reads this file "
        f"(tried {LOADERS_TRIED}){nearest}"
    )


def test_a_file_of_an_unknown_kind_names_the_loaders_tried(tmp_path: Path):
    path = tmp_path / "suite.toml"
    path.write_text("tasks = []\n")
    with pytest.raises(ConfigError) as caught:
        load_suite(path)
    assert str(caught.value) == (
        f"{path}: no suite loader reads this kind of file; expected .yaml, .yml or .json "
        f"(tried {LOADERS_TRIED}, bench)"
    )
