"""bench-ray without a cluster: its options, the handshake, chunking, and that Ray stays unimported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench import ConfigError

pytest.importorskip("bench_ray", reason="bench-ray is not installed (its own nox session installs it)")

from bench_ray.executor import chunks
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


def test_chunks_are_consecutive_keys_in_plan_order():
    assert list(chunks(iter("abcdefg"), 3)) == [["a", "b", "c"], ["d", "e", "f"], ["g"]]


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
