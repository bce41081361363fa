"""One headless Chromium (Debian's ``chromium`` package) for all the browser tests, driven by Playwright.

``nox -s browser`` installs the package when it is missing and apt can; elsewhere the tests are
skipped with the reason shown.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright for Python is not installed (nox -s browser installs it)"
    )
    if not Path(CHROMIUM).exists():
        pytest.skip("Chromium is not installed: apt-get install -y chromium (nox -s browser does it as root)")
    with sync_api.sync_playwright() as playwright:
        # Playwright passes --no-sandbox unless asked otherwise; needed when tests run as root.
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page; the test fails if the page logs a console error, throws, or opens a dialog."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    new = context.new_page()
    problems: list[str] = []
    new.on(
        "console",
        lambda msg: problems.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None,
    )
    new.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))

    def dialog(d: Any) -> None:
        problems.append(f"dialog {d.type}: {d.message}")
        d.dismiss()

    new.on("dialog", dialog)
    new.problems = problems
    yield new
    context.close()
    assert problems == []


def _bench_run(folder: Path, *args: str, exit_codes: tuple[int, ...] = (0,)) -> None:
    """``bench run ARGS -q`` in ``folder`` (its cache there too), ending with one of ``exit_codes``."""
    result = subprocess.run(
        [sys.executable, "-m", "bench", "run", *args, "-q"],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, "BENCH_CACHE_DIR": str(folder / "cache")},
        timeout=90,
        check=False,
    )
    assert result.returncode in exit_codes, result.stdout + result.stderr


@pytest.fixture(scope="session")
def bench_run() -> Callable[..., None]:
    """Make a run (and its reports) for a page to show: ``bench_run(folder, SUITE, *flags, exit_codes=...)``."""
    return _bench_run


@contextlib.contextmanager
def _serving(runs: Path) -> Iterator[str]:
    from bench.report.viewer.server import ViewServer

    server = ViewServer(runs, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.url
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def serving() -> Callable[[Path], contextlib.AbstractContextManager[str]]:
    """``with serving(RUNS) as url``: ``bench view`` of the runs folder on a free loopback port."""
    return _serving
