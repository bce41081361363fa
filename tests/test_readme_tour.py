"""The README's 60-second tour runs as written, in an empty folder.

Its blocks are taken from README.md in order: each ``$`` line of a console block runs (``bench``
in-process, ``mkdir`` and ``cd`` as the shell would; a line this test cannot run fails it), and
each yaml block headed ``# NAME`` must be the file NAME as it stands at that point of the tour.
Only the install is not run: the test's environment has installed bench from this checkout.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import pytest

from bench.authoring.scaffold import MODELINE
from bench.testing.pytest_plugin import CliResult

if sys.version_info >= (3, 11):
    import tomllib
else:  # pytest brings tomli to Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _tour() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    return readme.split("\n## A 60-second tour\n", 1)[1].split("\n## ", 1)[0]


def _blocks() -> list[tuple[str, str]]:
    """The tour's fenced blocks: (language, text), in order."""
    return re.findall(r"^```(\w+)\n(.*?)^```$", _tour(), flags=re.MULTILINE | re.DOTALL)


def _commands() -> list[str]:
    return [
        line.removeprefix("$ ")
        for language, text in _blocks()
        if language == "console"
        for line in text.splitlines()
        if line.startswith("$ ")
    ]


def _expected_exit(line: str) -> int:
    """0, unless the line's comment says ``exits N``."""
    said = re.search(r"#.*\bexits (\d+)\b", line)
    return int(said.group(1)) if said else 0


def _install_from_clone() -> list[str]:
    [install] = [c for c in _commands() if c.startswith("pip install")]
    return shlex.split(install, comments=True)


def _distribution(folder: str) -> str:
    pyproject = tomllib.loads((ROOT / folder / "pyproject.toml").read_text(encoding="utf-8"))
    return str(pyproject["project"]["name"])


def test_the_readme_tour_installs_from_a_clone_what_pypi_will_offer():
    """bench is not on PyPI yet: the tour's install names this repository's package folders,
    the same distributions as the PyPI form it keeps for when bench is released."""
    words = _install_from_clone()
    assert words[:2] == ["pip", "install"]
    folders = [folder for flag, folder in zip(words[2::2], words[3::2], strict=True) if flag == "-e"]
    assert len(folders) * 2 == len(words) - 2, f"the install takes only -e FOLDER: {words}"
    released = re.search(r"once bench is released, `pip install ([\w\s-]+)`", " ".join(_tour().split()))
    assert released, "the tour keeps the PyPI form, marked for when bench is released"
    assert [_distribution(folder) for folder in folders] == released.group(1).split()


def _run_line(line: str, bench_cli: Callable[..., CliResult], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Run one ``$`` line as the shell would; return the bench commands it ran."""
    words = shlex.split(line, comments=True)
    commands = [group.split("\0") for group in "\0".join(words).split("\0&&\0")]
    ran = []
    for command in commands:
        match command:
            case ["pip", "install", *args]:
                for folder in args[1::2]:
                    assert metadata.version(_distribution(folder))  # installed here from this checkout
            case ["mkdir", folder]:
                Path(folder).mkdir()
            case ["cd", folder]:
                monkeypatch.chdir(folder)
            case ["bench", *args]:
                args, out = (args[:-2], args[-1]) if args[-2:-1] == [">"] else (args, None)
                result = bench_cli(*args)
                assert result.exit_code == _expected_exit(line), (line, result.output)
                if out is not None:
                    Path(out).write_text(result.stdout, encoding="utf-8")
                ran.append(args[0])
            case _:
                pytest.fail(f"the tour runs {command!r}, which this test cannot run")
    return ran


def test_the_readme_tour_runs_as_written(bench_cli, monkeypatch):
    ran: list[str] = []
    shown = []
    for language, text in _blocks():
        if language == "console":
            for line in text.splitlines():
                assert line.startswith("$ "), f"a console block of the tour shows output: {line!r}"
                ran += _run_line(line.removeprefix("$ "), bench_cli, monkeypatch)
        elif language == "yaml":
            name, _, body = text.partition("\n")
            assert name.startswith("# "), f"a yaml block of the tour names its file first: {name!r}"
            written = Path(name.removeprefix("# ")).read_text(encoding="utf-8")
            assert written.removeprefix(MODELINE) == body, f"{name} is not what the tour wrote"
            shown.append(name)
    assert shown == ["# suite.yaml"]
    assert {"init", "validate", "run", "compare"} <= set(ran), ran
