"""bench-ray without a cluster: its options, the handshake, chunking, and that Ray stays unimported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench import ConfigError, PlanRow

pytest.importorskip("bench_ray", reason="bench-ray is not installed (its own nox session installs it)")

from bench_ray.executor import chunks, unlanded
from bench_ray.handshake import identity, mismatch
from bench_ray.options import RayOptions, parse_options

QUICKSTART = Path(__file__).resolve().parents[3] / "examples" / "quickstart" / "suite.yaml"


def test_options_name_resources_for_the_workers():
    options = parse_options({"num_gpus": "1", "resource.sandbox": "2", "in_flight": "3"})
    assert options == RayOptions(num_cpus=1.0, num_gpus=1.0, resources={"sandbox": 2.0}, in_flight=3)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            {"gpus": "1"},
            "--executor-option gpus: the ray executor's options are num_cpus, num_gpus, in_flight and resource.NAME",
        ),
        ({"num_gpus": "many"}, "--executor-option num_gpus=many: write a number of at least 0"),
        ({"num_cpus": "-1"}, "--executor-option num_cpus=-1: write a number of at least 0"),
        ({"in_flight": "0"}, "--executor-option in_flight: write a whole number of at least 1"),
    ],
)
def test_a_bad_option_says_what_is_expected(given, message):
    with pytest.raises(ConfigError) as caught:
        parse_options(given)
    assert str(caught.value) == message


def _rows(*keys: tuple[str, ...]) -> list[PlanRow]:
    return [PlanRow(i, {"id": f"r{i}"}, f"d{i}", k) for i, k in enumerate(keys)]


def _keys(chunked: list[list[PlanRow]]) -> list[list[tuple[int, tuple[str, ...]]]]:
    return [[(row.index, row.keys) for row in chunk] for chunk in chunked]


def test_chunks_are_consecutive_keys_in_plan_order():
    rows = _rows(("a",), ("b",), ("c",), ("d",), ("e",), ("f",), ("g",))
    chunked = list(chunks(iter(rows), None, 3))
    assert [[k for row in chunk for k in row.keys] for chunk in chunked] == [
        ["a", "b", "c"],
        ["d", "e", "f"],
        ["g"],
    ]
    assert chunked[0][0] is rows[0]  # a whole row travels as it was read


def test_a_row_whose_runs_straddle_a_chunk_is_split_between_two():
    rows = _rows(("a", "a@1", "a@2"), ("b", "b@1"), ("c",))
    assert _keys(list(chunks(iter(rows), None, 2))) == [
        [(0, ("a", "a@1"))],
        [(0, ("a@2",)), (1, ("b",))],
        [(1, ("b@1",)), (2, ("c",))],
    ]


def test_chunks_keep_only_the_selected_keys_and_leave_out_rows_without_any():
    rows = _rows(("a", "a@1", "a@2"), ("b", "b@1"), ("c",), ("d",))
    assert _keys(list(chunks(iter(rows), {"a@1", "c", "d"}, 2))) == [
        [(0, ("a@1",)), (2, ("c",))],
        [(3, ("d",))],
    ]


def test_a_lost_chunk_hands_back_only_its_unlanded_keys():
    rows = _rows(("a", "a@1"), ("b",), ("c",))
    assert [(r.index, r.keys) for r in unlanded(rows, {"a@1", "c"})] == [(0, ("a@1",)), (2, ("c",))]
    assert unlanded(rows, set()) == []
    assert unlanded(rows, {"a", "a@1", "b", "c"}) == rows


def test_the_handshake_names_the_first_difference():
    mine = identity([QUICKSTART])
    assert mismatch(mine, dict(mine)) is None
    assert (
        mismatch(mine, {**mine, "bench": "0.0.1"}) == f"bench '0.0.1' on the worker, {mine['bench']!r} here"
    )
    assert mismatch(mine, {**mine, "python": "3.9"}) == f"python '3.9' on the worker, {mine['python']!r} here"
    other = {**mine, "plugins": {**mine["plugins"], "bench-ray": "9.9"}}
    assert mismatch(mine, other) == f"plugin bench-ray 9.9 on the worker, {mine['plugins']['bench-ray']} here"
    fewer = {**mine, "plugins": {k: v for k, v in mine["plugins"].items() if k != "bench-ray"}}
    assert mismatch(mine, fewer) == (
        f"plugin bench-ray not installed on the worker, {mine['plugins']['bench-ray']} here"
    )


def test_the_suite_digest_covers_the_files(tmp_path):
    suite = tmp_path / "suite.yaml"
    suite.write_text("tasks: tasks.jsonl\n")
    rows = tmp_path / "tasks.jsonl"
    rows.write_text('{"id": "a", "response": "x", "evaluate": {"expected": "x"}}\n')
    before = identity([suite, rows])["suite"]
    rows.write_text('{"id": "a", "response": "y", "evaluate": {"expected": "x"}}\n')
    assert identity([suite, rows])["suite"] != before


def test_nothing_imports_ray_without_the_ray_executor(tmp_path):
    """A local run and the plugin registry (which loads bench-ray's plugin) leave Ray unimported."""
    code = (
        "import sys, bench\n"
        "from bench.plugins.registry import get_registry\n"
        "assert 'ray' in get_registry().executors\n"
        f"result = bench.run({str(QUICKSTART)!r}, runs_dir={str(tmp_path / 'runs')!r})\n"
        "assert result.summary.total == 6\n"
        "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "[]\n"
