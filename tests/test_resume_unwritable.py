"""``--resume`` on a run whose folder cannot be written: one line, exit 2, the run left as it was."""

from __future__ import annotations

import errno
import os

import pytest

from bench.testing import write_suite

SUITE = "name: s\ntarget: {type: echo}\ntasks:\n  - {id: a, prompt: hello, evaluate: {type: contains, value: hello}}\n"


def _read_only_mount(monkeypatch, lock):
    # A read-only mount refuses to create or open the lock file (EROFS). Injected: the tests may run
    # as root, whom neither chmod nor a folder's write bits stop, and mounting needs privileges.
    real_open = os.open

    def refusing(path, flags, *args, **kwargs):
        if os.path.abspath(path) == str(lock):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing)


def _folder_in_the_locks_place(monkeypatch, lock):
    # Real, and it stops root too: a folder where the lock file goes cannot be opened for writing.
    lock.unlink()
    lock.mkdir()


@pytest.mark.parametrize(
    ("make_unwritable", "why"),
    [(_read_only_mount, "Read-only file system"), (_folder_in_the_locks_place, "Is a directory")],
)
def test_n45_resume_on_a_run_folder_that_cannot_be_written_is_one_line(
    bench_cli, tmp_path, monkeypatch, make_unwritable, why
):
    suite = write_suite(tmp_path, SUITE)
    assert bench_cli("run", suite, "-q").exit_code == 0
    (folder,) = (tmp_path / ".bench" / "runs").iterdir()
    results = (folder / "results.jsonl").read_text()
    make_unwritable(monkeypatch, folder / "lock")
    outcome = bench_cli("run", suite, "-q", "--resume", folder.name)
    assert outcome.exit_code == 2
    assert outcome.stderr == (
        f"error: cannot resume run {folder.name}: its folder .bench/runs/{folder.name} cannot be written "
        f"({why}); copy the run to a writable --runs-dir to resume it\n"
    )
    assert (folder / "results.jsonl").read_text() == results
