"""Every page that lists exit codes lists `bench run`'s and `bench compare`'s, as the code has them.

3 means "some task could not be evaluated" to `bench run` and "insufficient evidence" to
`bench compare`: a page that lists only one of them misleads whoever reads the other's status.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bench import cli
from bench.report.compare import EXIT_FOR
from bench.vocabulary.errors import StoreError

ROOT = Path(__file__).resolve().parents[1]
RUN_CODES = {
    cli.EXIT_OK,
    cli.EXIT_FAILED,
    cli.EXIT_INVALID,
    cli.EXIT_ERRORS,
    cli.EXIT_INTERNAL,
    cli.EXIT_INTERRUPTED,
    cli.EXIT_WAITING,
}
#: The pages that list exit codes (docs/cli.md from the commands' help).
PAGES = ["README.md", "docs/cli.md", "docs/ci.md", "docs/runs.md"]


def _listed(text: str, opening: str) -> dict[int, str]:
    """The ``CODE meaning, CODE meaning, ...`` list of the sentence that starts with ``opening``."""
    flat = " ".join(text.split())
    found = re.search(opening + r"(.*?)\.(?:\s|$)", flat)
    assert found, f"no sentence opens with {opening!r}"
    items = re.split(r", (?=\d)", found.group(1).strip())
    return {int(code): meaning for code, meaning in (item.split(" ", 1) for item in items)}


def _run_codes(page: str, text: str) -> set[int]:
    if page == "docs/runs.md":
        return {int(code) for code in re.findall(r"^\| (\d+) \|", text, flags=re.MULTILINE)}
    return set(_listed(text, r"Exit codes(?: of `bench run`)?: "))


@pytest.mark.parametrize("page", PAGES)
def test_each_page_lists_every_exit_code_of_bench_run(page):
    assert _run_codes(page, (ROOT / page).read_text(encoding="utf-8")) == RUN_CODES


@pytest.mark.parametrize("page", PAGES)
def test_each_page_that_lists_exit_codes_lists_bench_compares_too(page):
    listed = _listed((ROOT / page).read_text(encoding="utf-8"), r"`+bench compare`+ exits with its verdict: ")
    assert set(listed) == {*EXIT_FOR.values(), StoreError.exit_code}
    for verdict, code in EXIT_FOR.items():
        assert verdict in listed[code], (verdict, code, listed[code])
