"""docs/python-api.md stays true: each example runs as the page says, in a folder where
``bench init --example echo`` wrote the suite, and the failure texts it shows are bench's own."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.authoring.scaffold import scaffold
from bench.testing import assert_passes

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "python-api.md").read_text()


def blocks(language: str) -> list[str]:
    """The page's fenced blocks in ``language`` ("" for plain ones), in order."""
    found, current, opened = [], [], None
    for line in PAGE.splitlines(keepends=True):
        if line.startswith("```"):
            if opened is None:
                opened, current = line[3:].strip(), []
            else:
                if opened == language:
                    found.append("".join(current))
                opened = None
        elif opened is not None:
            current.append(line)
    return found


SCRIPTS = [b for b in blocks("python") if "def test_" not in b]
[TEST_FILE] = [b for b in blocks("python") if "def test_" in b]
[INI] = blocks("ini")
PLAIN = blocks("")


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    scaffold(tmp_path / "suite.yaml", "echo", "{}\n")
    return tmp_path


def test_the_page_is_in_the_readme_docs_list():
    assert "[docs/python-api.md](docs/python-api.md)" in (ROOT / "README.md").read_text()


def test_the_load_and_run_example_runs(folder: Path):
    done = run([sys.executable, "-c", SCRIPTS[0]], folder)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "echo: 2 tasks (greeting, no-apology), target echo"
    assert lines[1].endswith(" 2 of 2 passed")
    assert "  greeting: expected passed: found 'Hello'" in lines
    assert done.stderr == ""


def test_the_event_loop_example_runs(folder: Path):
    done = run([sys.executable, "-c", SCRIPTS[1]], folder)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "4 task runs, 4 passed\n"


def test_the_assert_passes_example_is_a_passing_test_file(folder: Path):
    (folder / "test_answers.py").write_text(TEST_FILE)
    done = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "test_answers.py"], folder)
    assert done.returncode == 0, done.stdout
    assert "2 passed" in done.stdout


def test_the_assertion_message_shown_is_the_real_one():
    with pytest.raises(AssertionError) as caught:
        assert_passes(
            "Lyon",
            [{"type": "regex", "value": "^Paris", "name": "starts"}, {"type": "contains"}],
            expected="Lyon",
        )
    assert f"AssertionError: {caught.value}\n" in PLAIN


def test_the_ini_option_collects_the_suite(folder: Path):
    (folder / "pytest.ini").write_text(INI)
    done = run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-v"], folder)
    assert done.returncode == 0, done.stdout
    assert "suite.yaml::greeting PASSED" in done.stdout
    assert "suite.yaml::no-apology PASSED" in done.stdout


def test_the_command_and_the_failure_shown_are_what_pytest_prints(folder: Path):
    [command] = [b for b in PLAIN if b.startswith("pytest ")]
    evals = folder / "evals"
    evals.mkdir()
    text = (folder / "suite.yaml").read_text()
    (evals / "suite.yaml").write_text(text.replace("Here is the answer.", "Sorry, here is the answer."))
    done = run([sys.executable, "-m", *command.split(), "-p", "no:cacheprovider", "-v"], folder)
    assert done.returncode == 1, done.stdout
    [shown] = [b for b in PLAIN if "FAILED" in b]
    first, title, *reasons = shown.splitlines()
    assert first + " " in done.stdout
    assert re.search(rf"^_+ {title.strip('_ ')} _+$", done.stdout, flags=re.MULTILINE)
    for line in reasons:
        assert f"\n{line}\n" in done.stdout
