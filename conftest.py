"""Every test of the repository gets its own response cache (bench's default is per user) and
writes no GitHub step summary; a session whose tests leave files in the checkout fails."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
#: What tools, not tests, write in a checkout while the tests run.
TOOL_FOLDERS = frozenset(
    {".git", ".venv", ".venv-dev", ".nox", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
)
_FILES_BEFORE = pytest.StashKey[frozenset[str]]()
_LEFT_BEHIND = pytest.StashKey[list[str]]()


@pytest.fixture(autouse=True)
def _own_response_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / ".bench" / "cache"))
    # On GitHub Actions every run would append its summary to the job's page (a test sets it).
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)


@pytest.fixture(params=["auto", "litellm"])
def llm_transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run a test on each path the LLM client can take: ``auto`` (OpenAI-protocol providers
    over bench's direct HTTP path) and ``litellm`` (every call through litellm)."""
    monkeypatch.setenv("BENCH_LLM_TRANSPORT", request.param)
    return str(request.param)


def _checkout_files() -> frozenset[str]:
    """Every file and folder of the checkout (relative, ``/``-separated), outside tools' folders
    and virtual environments."""
    found: set[str] = set()
    for folder, dirs, files in os.walk(ROOT):
        if "pyvenv.cfg" in files:
            dirs.clear()
            continue
        dirs[:] = [d for d in dirs if d not in TOOL_FOLDERS]
        here = Path(folder).relative_to(ROOT)
        found.update((here / name).as_posix() for name in (*dirs, *files))
    return frozenset(found)


def _untracked(paths: list[str]) -> list[str]:
    """``paths`` less those git tracks (a merge or checkout while the tests ran adds files too)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--", *paths], cwd=ROOT, capture_output=True, text=True, check=False
    )
    tracked = [file for file in listed.stdout.split("\0") if file] if listed.returncode == 0 else []
    return [path for path in paths if not any(f == path or f.startswith(f"{path}/") for f in tracked)]


def _is_controller(config: pytest.Config) -> bool:
    """False in a pytest-xdist worker: the controller's session spans every worker's."""
    return not hasattr(config, "workerinput")


def pytest_sessionstart(session: pytest.Session) -> None:
    if _is_controller(session.config):
        session.config.stash[_FILES_BEFORE] = _checkout_files()


def pytest_sessionfinish(session: pytest.Session) -> None:
    if not _is_controller(session.config) or _FILES_BEFORE not in session.config.stash:
        return
    before = session.config.stash[_FILES_BEFORE]
    new = sorted(_checkout_files() - before)
    basetemp = getattr(session.config.option, "basetemp", None)  # may name a folder in the checkout
    if basetemp:
        inside = Path(basetemp).resolve()
        new = [path for path in new if not (ROOT / path).resolve().is_relative_to(inside)]
    # A new folder's contents are new too: name the folder alone.
    left = _untracked([path for path in new if not any(path.startswith(f"{d}/") for d in new)])
    if left:
        session.config.stash[_LEFT_BEHIND] = left
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    left = config.stash.get(_LEFT_BEHIND, [])
    if left:
        terminalreporter.write_sep(
            "=", "tests left files in the checkout: write them under tmp_path", red=True
        )
        for path in left:
            terminalreporter.write_line(path)
