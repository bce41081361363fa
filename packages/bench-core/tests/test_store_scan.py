"""RunStore.finished(): the store scanned line by line, keeping only each key's digest (seam 5)."""

from __future__ import annotations

import json
from pathlib import Path

from bench.vocabulary.store import RunStore


def _line(task_id: str, status: str, digest: str, repeat: int = 0) -> str:
    return json.dumps(
        {"id": task_id, "repeat": repeat, "status": status, "digest": digest}, separators=(",", ":")
    )


def test_finished_keeps_the_latest_finished_line_of_each_key_and_sets_a_torn_line_aside(
    tmp_path: Path,
) -> None:
    store = RunStore.create(tmp_path)
    try:
        for line in [
            _line("a", "passed", "d1"),
            _line("a", "failed", "d2"),  # latest wins
            _line("b", "passed", "d3"),
            _line("b", "error", "d3"),  # the latest line of b did not finish
            _line("c", "passed", "d4", repeat=1),
            "not json at all",
        ]:
            store.append(line)
        with open(store.results_path, "ab") as fh:
            fh.write(_line("d", "passed", "d5").encode()[:20])  # a kill mid-write
        assert store.finished() == {"a": "d2", "c@1": "d4"}
        assert not store.results_path.read_bytes().endswith(b"d5")
        assert (store.folder / "results.torn.jsonl").read_text() == _line("d", "passed", "d5")[:20] + "\n"
        refs = store.latest_refs()
        assert refs["b"].finished is False
        assert json.loads(store.read_line(refs["a"].offset))["status"] == "failed"
    finally:
        store.close()


def test_iter_lines_streams_the_latest_lines_without_holding_the_file(tmp_path: Path) -> None:
    # The run's report, aggregates and statistics read the store after a run through iter_lines:
    # a 20 MB store is read a line at a time, not whole.
    import tracemalloc

    store = RunStore.create(tmp_path)
    pad = "x" * 10_000
    try:
        for i in range(2000):
            store.append(_line(f"t{i % 1000}", "passed", f"{i}-{pad}"))  # each key twice: the later wins
        order = [f"t{i}" for i in range(1000)] + ["never-run"]
        tracemalloc.start()
        try:
            digests = [json.loads(line)["digest"].split("-")[0] for line in store.iter_lines(order)]
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    finally:
        store.close()
    assert digests == [str(i) for i in range(1000, 2000)]
    assert peak < 2_000_000, peak  # the lines hold 20 MB


def test_lines_written_with_spaces_after_colons_are_scanned_whole(tmp_path: Path) -> None:
    # json.dumps' default form, as a hand-edited or another tool's results.jsonl has it.
    store = RunStore.create(tmp_path)
    try:
        store.append(json.dumps({"id": "a", "repeat": 1, "status": "passed", "digest": "d1"}))
        store.append(json.dumps({"id": "b", "status": "error", "digest": "d2"}))
        assert store.finished() == {"a@1": "d1"}
        assert [json.loads(line)["id"] for line in store.iter_lines(["b", "a@1"])] == ["b", "a"]
    finally:
        store.close()
