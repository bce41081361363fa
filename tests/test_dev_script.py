"""`python3 dev.py demo` ends by saying what the demo showed and what to try next."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from bench.testing import run_suite

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = "Scripts" if os.name == "nt" else "bin"


def _dev() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dev_script", ROOT / "dev.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_dev(command: str, nox_exit: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """``dev.main([command])`` with its tools in place and nox answering ``nox_exit``; the
    commands it ran."""
    dev = _dev()
    tools = tmp_path / "tools"
    python = tools / SCRIPTS / "python"
    python.parent.mkdir(parents=True)
    python.touch()
    monkeypatch.setattr(dev, "TOOLS", tools)
    ran: list[list[str]] = []

    def fake_run(args: list[Any], **_: Any) -> subprocess.CompletedProcess[str]:
        ran.append([str(a) for a in args])
        return subprocess.CompletedProcess(args, nox_exit if "nox" in args else 0)

    monkeypatch.setattr(dev.subprocess, "run", fake_run)
    assert dev.main([command]) == nox_exit
    return ran


def test_the_demo_ends_by_saying_what_it_showed_and_what_to_try_next(
    tmp_path, monkeypatch, capsys, bench_cli
):
    ran = _run_dev("demo", 0, tmp_path, monkeypatch)
    assert ran[-1][-2:] == ["-s", "demo"]
    said = capsys.readouterr().out
    # What it showed: the suite the noxfile's demo session runs, and the tasks that fail on
    # purpose, which are the ones that fail when it runs.
    suite = re.search(r"^That was (\S+), run offline", said, flags=re.MULTILINE)
    assert suite, said
    assert f'"bench", "run", "{suite.group(1)}"' in (ROOT / "noxfile.py").read_text()
    outcome = run_suite(ROOT / suite.group(1), runs_dir=tmp_path / "runs")
    failed = [t["id"] for t in outcome.report.tasks() if not t["passed"]]
    assert re.findall(r"Task (\S+) fails on purpose", said) == failed
    # What to try next: bench commands of the demo's environment that exist.
    bench = str(Path(".nox", "demo", SCRIPTS, "bench"))
    tries = [shlex.split(line, comments=True) for line in said.splitlines() if line.startswith(f"  {bench} ")]
    assert [t[1] for t in tries] == ["show", "view", "run"]
    assert tries[-1][-2:] == ["-o", "report.html"]
    for words in tries:
        assert bench_cli(words[1], "-h").exit_code == 0, words


@pytest.mark.parametrize(("command", "nox_exit"), [("demo", 1), ("typecheck", 0)])
def test_dev_says_nothing_more_after_a_failed_demo_or_another_command(
    tmp_path, monkeypatch, capsys, command, nox_exit
):
    _run_dev(command, nox_exit, tmp_path, monkeypatch)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize(("first_exit", "second_exit", "expected"), [(0, 0, 0), (0, 1, 1), (1, 0, 1)])
def test_dev_test_runs_rays_and_the_other_pythons_sessions_in_a_second_nox(
    tmp_path, monkeypatch, capsys, first_exit, second_exit, expected
):
    dev = _dev()
    tools = tmp_path / "tools"
    (tools / SCRIPTS).mkdir(parents=True)
    (tools / SCRIPTS / "python").touch()
    monkeypatch.setattr(dev, "TOOLS", tools)
    listed = [
        "package(bench-core)",
        "package(bench-rag)",
        "package(bench-ray)",
        "tests-3.10",
        "tests-3.11",
        "lint",
    ]
    ran: list[list[str]] = []

    def fake_run(args: list[Any], **_: Any) -> subprocess.CompletedProcess[str]:
        ran.append([str(a) for a in args])
        if "--json" in args:
            return subprocess.CompletedProcess(args, 0, stdout=json.dumps([{"session": n} for n in listed]))
        return subprocess.CompletedProcess(args, first_exit if "nox" in args else 0)

    class FakePopen:
        def __init__(self, args: list[Any], stdout: Any, **_: Any) -> None:
            ran.append([str(a) for a in args])
            stdout.write("the second nox's output\n")
            stdout.flush()

        def wait(self) -> int:
            return second_exit

        def poll(self) -> int:
            return second_exit

    monkeypatch.setattr(dev.subprocess, "run", fake_run)
    monkeypatch.setattr(dev.subprocess, "Popen", FakePopen)
    assert dev.main(["test"]) == expected
    sessions = {tuple(args[args.index("-s") + 1 :]) for args in ran if "-s" in args}
    assert sessions == {
        ("package(bench-core)", "package(bench-ray)", "tests-3.10"),
        ("package(bench-rag)", "tests-3.11", "lint"),
    }
    assert capsys.readouterr().out.endswith(
        "== the sessions run alongside: package(bench-core), package(bench-ray), tests-3.10\n\n"
        "the second nox's output\n"
    )
