"""The run store's group fsync (RELIABILITY S1) runs beside the event loop, never in it."""

from __future__ import annotations

import errno
import threading
import time

import pytest

from bench.vocabulary import store as store_module
from bench.vocabulary.store import RunStore, StoreWriteError


def test_s1_append_does_not_wait_for_a_slow_fsync_and_close_waits_for_it(tmp_path, monkeypatch):
    synced: list[tuple[str, float]] = []
    real_fsync = store_module.os.fsync

    def slow_fsync(fd: int) -> None:
        time.sleep(0.5)
        real_fsync(fd)
        synced.append((threading.current_thread().name, time.monotonic()))

    monkeypatch.setattr(store_module.os, "fsync", slow_fsync)
    store = RunStore.create(tmp_path / "runs")
    started = time.monotonic()
    store.append('{"id": "t0"}')
    store.append('{"id": "t1"}')
    assert time.monotonic() - started < 0.4  # the writes are done; the fsync is still running
    assert synced == []
    store.close()
    closed = time.monotonic()
    # The background fsync finished before close returned, and close synced once more itself.
    assert [name.startswith("bench-fsync") for name, _ in synced] == [True, False]
    assert all(at <= closed for _, at in synced)
    assert store.results_path.read_text() == '{"id": "t0"}\n{"id": "t1"}\n'


def test_s1_an_fsync_that_failed_stops_the_run_at_the_next_append(tmp_path, monkeypatch):
    def failing_fsync(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(store_module.os, "fsync", failing_fsync)
    monkeypatch.setattr(store_module, "FSYNC_INTERVAL_S", 0.0)
    store = RunStore.create(tmp_path / "runs")
    try:
        store.append('{"id": "t0"}')  # starts the fsync that fails
        assert store._syncing is not None
        store._syncing.exception(timeout=5)  # wait for it to fail
        with pytest.raises(StoreWriteError) as failed:
            store.append('{"id": "t1"}')
        assert str(failed.value) == f"cannot write results to {store.results_path}: Input/output error"
    finally:
        store.close()
