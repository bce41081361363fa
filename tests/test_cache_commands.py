"""`bench cache info` / `bench cache clear` and the user-level response cache."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from bench.testing import write_suite

SUITE = """
name: cached
target: {type: litellm, model: openai/fake}
tasks:
  - {id: a, prompt: 'question a', evaluate: [{type: contains, value: question}]}
  - {id: b, prompt: 'question b', evaluate: [{type: contains, value: question}]}
  - {id: c, prompt: 'question c', evaluate: [{type: contains, value: question}]}
"""


def _info(bench_cli, *args: object) -> dict:
    result = bench_cli("cache", "info", "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_run_fills_the_cache_and_info_counts_it(bench_cli, tmp_path, bench_fake_llm):
    suite = write_suite(tmp_path, SUITE)
    assert _info(bench_cli)["entries"] == 0
    assert bench_cli("run", suite, "-q").exit_code == 0
    info = _info(bench_cli)
    assert info["path"] == str(tmp_path / ".bench" / "cache" / "llm.sqlite3")
    assert info["entries"] == 3
    assert info["size_bytes"] > 0
    assert info["oldest"] <= info["newest"] <= time.time()
    text = bench_cli("cache", "info").stdout
    assert f"cache:   {tmp_path / '.bench' / 'cache' / 'llm.sqlite3'}\n" in text
    assert "entries: 3\n" in text


def test_the_default_cache_is_shared_across_projects(bench_cli, tmp_path, bench_fake_llm, monkeypatch):
    monkeypatch.delenv("BENCH_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    one = write_suite(tmp_path / "project-one", SUITE)
    two = write_suite(tmp_path / "project-two", SUITE)
    assert bench_cli("run", one, "-q", "--runs-dir", tmp_path / "project-one" / "runs").exit_code == 0
    assert bench_fake_llm.count() == 3
    assert bench_cli("run", two, "-q", "--runs-dir", tmp_path / "project-two" / "runs").exit_code == 0
    assert bench_fake_llm.count() == 3  # the second project's run was answered from the shared cache
    assert _info(bench_cli)["path"] == str(tmp_path / "user-cache" / "bench" / "llm.sqlite3")


def test_clear_removes_every_entry(bench_cli, tmp_path, bench_fake_llm):
    suite = write_suite(tmp_path, SUITE)
    bench_cli("run", suite, "-q")
    result = bench_cli("cache", "clear")
    assert result.exit_code == 0
    assert (
        result.stdout == f"removed 3 cached responses from {tmp_path / '.bench' / 'cache' / 'llm.sqlite3'}\n"
    )
    assert _info(bench_cli)["entries"] == 0
    bench_cli("run", suite, "-q")
    assert bench_fake_llm.count() == 6  # asked again


def test_clear_older_than_keeps_the_recent_entries(bench_cli, tmp_path, bench_fake_llm):
    suite = write_suite(tmp_path, SUITE)
    bench_cli("run", suite, "-q")
    db = sqlite3.connect(tmp_path / ".bench" / "cache" / "llm.sqlite3")
    with db:
        db.execute("UPDATE responses SET created = ? WHERE rowid = 1", (time.time() - 8 * 86400,))
    db.close()
    result = bench_cli("cache", "clear", "--older-than", "7d")
    assert result.stdout.startswith("removed 1 cached response older than 7d from ")
    assert _info(bench_cli)["entries"] == 2


def test_cache_dir_option_names_another_folder(bench_cli, tmp_path):
    info = _info(bench_cli, "--cache-dir", tmp_path / "elsewhere")
    assert info == {
        "path": str(tmp_path / "elsewhere" / "llm.sqlite3"),
        "entries": 0,
        "size_bytes": 0,
        "oldest": None,
        "newest": None,
    }
    assert not (tmp_path / "elsewhere").exists()  # looking creates nothing


@pytest.mark.parametrize("age", ["7", "3x", "d7", "-1d", ""])
def test_a_bad_age_is_refused_with_the_forms_it_takes(bench_cli, age):
    result = bench_cli("cache", "clear", "--older-than", age)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: --older-than {age}: write an age as a number and a unit: 90s, 30m, 12h, 7d, 2w\n"
    )


def test_no_cache_leaves_the_cache_untouched(bench_cli, tmp_path: Path, bench_fake_llm):
    suite = write_suite(tmp_path, SUITE)
    bench_cli("run", suite, "-q", "--no-cache")
    assert _info(bench_cli)["entries"] == 0


def test_a_cache_dir_that_is_a_file_is_refused(bench_cli, tmp_path):
    (tmp_path / "afile").write_text("x")
    for command in (("info",), ("clear",)):
        result = bench_cli("cache", *command, "--cache-dir", tmp_path / "afile")
        assert result.exit_code == 2
        assert result.stderr == f"error: --cache-dir {tmp_path / 'afile'}: not a folder\n"
