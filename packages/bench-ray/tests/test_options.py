"""bench-ray without a cluster: its options, the handshake, chunking, and that Ray stays unimported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench import ConfigError
from bench.distributed import PlanRow

pytest.importorskip("bench_ray", reason="bench-ray is not installed (its own nox session installs it)")

from bench_ray.executor import chunks, unlanded
from bench_ray.handshake import identity, mismatch
from bench_ray.options import Pool, RayOptions, Resources, parse_options
from bench_ray.pools import Group, default_workers, describe_cluster, groups, placement_error, route

QUICKSTART = Path(__file__).resolve().parents[3] / "examples" / "quickstart" / "suite.yaml"


def test_options_name_resources_for_the_workers():
    options = parse_options({"num_gpus": "1", "resource.sandbox": "2", "in_flight": "3"})
    assert options == RayOptions(
        Resources(num_cpus=1.0, num_gpus=1.0, resources={"sandbox": 2.0}), in_flight=3
    )


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            {"gpus": "1"},
            "--executor-option gpus: the ray executor's options are num_cpus, num_gpus, disk, in_flight, "
            "start_timeout, resource.NAME and pool.TAG.workers, pool.TAG.num_cpus, pool.TAG.num_gpus, "
            "pool.TAG.disk and pool.TAG.resource.NAME",
        ),
        ({"num_gpus": "many"}, "--executor-option num_gpus=many: write a number of at least 0"),
        ({"disk": "lots"}, "--executor-option disk=lots: write a size (disk=20GiB, disk=500MB)"),
        (
            {"pool.big.workers": "1", "pool.big.disk": "2 parsecs"},
            "--executor-option pool.big.disk=2 parsecs: write a size (disk=20GiB, disk=500MB)",
        ),
        ({"num_cpus": "-1"}, "--executor-option num_cpus=-1: write a number of at least 0"),
        ({"in_flight": "0"}, "--executor-option in_flight: write a whole number of at least 1"),
        ({"start_timeout": "0"}, "--executor-option start_timeout: write a number of seconds above 0"),
        (
            {"pool.gpu.workers": "1", "pool.gpu.gpus": "1"},
            "--executor-option pool.gpu.gpus: a pool's options are pool.TAG.workers, pool.TAG.num_cpus, "
            "pool.TAG.num_gpus, pool.TAG.disk and pool.TAG.resource.NAME",
        ),
        (
            {"pool.gpu": "1"},
            "--executor-option pool.gpu: a pool's options are pool.TAG.workers, pool.TAG.num_cpus, "
            "pool.TAG.num_gpus, pool.TAG.disk and pool.TAG.resource.NAME",
        ),
        (
            {"pool.gpu.num_gpus": "1"},
            "--executor-option pool.gpu: give pool.gpu.workers=N (how many workers the pool starts)",
        ),
        (
            {"pool.gpu.workers": "0"},
            "--executor-option pool.gpu.workers=0: write a whole number of at least 1",
        ),
        (
            {"pool.gpu.workers": "two"},
            "--executor-option pool.gpu.workers=two: write a whole number of at least 1",
        ),
        (
            {"pool.gpu.workers": "1", "pool.gpu.num_gpus": "-1"},
            "--executor-option pool.gpu.num_gpus=-1: write a number of at least 0",
        ),
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


def test_pools_keep_the_order_they_were_given_in_and_their_own_resources():
    options = parse_options(
        {
            "pool.workspace.workers": "2",
            "pool.gpu.num_gpus": "1",
            "pool.workspace.resource.sandbox": "1",
            "pool.gpu.workers": "1",
            "pool.gpu.num_cpus": "4",
            "start_timeout": "5",
        }
    )
    assert options.pools == (
        Pool("workspace", 2, Resources(resources={"sandbox": 1.0})),
        Pool("gpu", 1, Resources(num_cpus=4.0, num_gpus=1.0)),
    )
    assert options.start_timeout == 5.0
    assert options.default == Resources()
    assert parse_options({}).start_timeout == 60.0


def test_a_row_goes_to_the_first_pool_whose_tag_it_needs():
    pools = (Pool("workspace", 1), Pool("gpu", 1))
    assert route(frozenset(), pools) is None
    assert route(frozenset({"gpu"}), pools) == "gpu"
    assert route(frozenset({"gpu", "workspace"}), pools) == "workspace"
    assert route(frozenset({"gpu", "workspace"}), pools[1:]) == "gpu"
    assert route(frozenset({"tpu"}), pools) is None


def test_groups_start_only_where_rows_go_and_say_why_a_pool_starts_none():
    options = parse_options(
        {
            "pool.workspace.workers": "2",
            "pool.gpu.workers": "1",
            "pool.gpu.num_gpus": "1",
            "pool.tpu.workers": "3",
        }
    )
    notes: list[str] = []
    used = {frozenset(), frozenset({"workspace", "gpu"})}
    found = groups(options, 3, used, notes.append)
    assert [(g.tag, g.members, g.resources) for g in found] == [
        (None, [0, 1, 2], Resources()),
        ("workspace", [3, 4], Resources()),
    ]
    assert notes == [
        "--executor-option pool.gpu: the tasks that need 'gpu' go to an earlier pool; the pool starts no workers",
        "--executor-option pool.tpu: no task of this run needs 'tpu'; the pool starts no workers",
    ]
    only_pool = groups(options, 3, {frozenset({"gpu"})}, notes.append)
    assert [(g.tag, g.members) for g in only_pool] == [("gpu", [0])]  # no default worker idles
    rows = _rows(("a",), ("b",), ("c",))
    rows[1] = PlanRow(1, {}, "d1", ("b",), frozenset({"gpu"}))
    assert [r.keys for r in only_pool[0].rows(rows)] == [("b",)]


def test_the_cluster_is_described_without_its_node_markers():
    totals = {
        "node:__internal_head__": 1.0,
        "sandbox": 1.0,
        "memory": 3.5 * 2**30,
        "CPU": 2.0,
        "object_store_memory": 256 * 2**20,
        "node:10.0.0.1": 1.0,
    }
    assert describe_cluster(totals) == "CPU 2, memory 3.5 GiB, object_store_memory 256 MiB, no GPU, sandbox 1"
    assert describe_cluster({"CPU": 8.0, "GPU": 2.0, "accelerator_type:A100": 1.0}) == "CPU 8, GPU 2"


def test_a_placement_error_says_whether_any_node_could_hold_a_worker():
    gpu = Group("gpu", Resources(num_gpus=1.0), [2])
    totals = {"CPU": 2.0, "memory": 2.0 * 2**30}
    assert placement_error(gpu, 60, [totals], totals) == (
        "--executor-option pool.gpu: no node of the cluster has num_gpus=1 for its 1 worker "
        "(the cluster has CPU 2, memory 2.0 GiB, no GPU); add such a node or drop the pool"
    )
    busy = {**totals, "GPU": 1.0}
    assert placement_error(gpu, 60, [busy], busy) == (
        "--executor-option pool.gpu: its 1 worker (num_gpus=1) did not start within 60 s (the cluster has "
        "CPU 2, memory 2.0 GiB, GPU 1; other work may hold them); free them or raise "
        "--executor-option start_timeout"
    )
    default = Group(None, Resources(num_cpus=4.0), [0, 1])
    assert placement_error(default, 5, [totals], totals) == (
        "--executor ray: no node of the cluster has num_cpus=4 for its 2 workers "
        "(the cluster has CPU 2, memory 2.0 GiB, no GPU); add such a node or ask for less"
    )


def test_without_workers_the_default_workers_take_the_cpus_the_pools_leave():
    # A 2-CPU cluster with a 1-CPU GPU pool: two default workers would ask for 3 CPUs, and the
    # one Ray cannot place failed the run after start_timeout.
    gpu = parse_options({"pool.gpu.workers": "1", "pool.gpu.num_gpus": "1"})
    both = {frozenset(), frozenset({"gpu"})}
    assert default_workers(gpu, 2, both) == 1
    assert default_workers(gpu, 2, {frozenset()}) == 2  # the pool starts no worker
    assert default_workers(parse_options({}), 8, both) == 8
    assert default_workers(parse_options({"num_cpus": "2"}), 8, both) == 4
    assert default_workers(parse_options({"num_cpus": "0.5"}), 2, both) == 4
    assert default_workers(parse_options({"pool.gpu.workers": "4"}), 2, both) == 1  # at least one
    big = parse_options({"pool.gpu.workers": "2", "pool.gpu.num_cpus": "3"})
    assert default_workers(big, 16, both) == 10


def test_a_placement_error_says_when_the_runs_workers_ask_for_more_than_the_cluster_has():
    # Each worker fits on a node, but not all of them together: no other work holds anything.
    totals = {"CPU": 2.0, "GPU": 1.0}
    gpu = Group("gpu", Resources(num_gpus=1.0), [2, 3])
    assert placement_error(gpu, 60, [totals], totals) == (
        "--executor-option pool.gpu: its 2 workers (num_gpus=1) did not start: the run's 2 workers ask "
        "for GPU 2 in all (the cluster has CPU 2, GPU 1); start fewer workers (--workers, "
        "pool.TAG.workers) or add nodes"
    )
    default, sandbox = Group(None, Resources(), [0, 1]), Group("workspace", Resources(), [2])
    assert placement_error(sandbox, 60, [totals], totals, [default, sandbox]) == (
        "--executor-option pool.workspace: its 1 worker (num_cpus=1) did not start: the run's 3 workers "
        "ask for CPU 3 in all (the cluster has CPU 2, GPU 1); start fewer workers (--workers, "
        "pool.TAG.workers) or add nodes"
    )
    assert "other work may hold them" in placement_error(sandbox, 60, [totals], totals, [sandbox])


def test_runs_needing_two_declared_tags_no_pool_holds_together_are_refused_with_the_sums():
    from bench_ray.options import parse_options
    from bench_ray.pools import unheld

    pools = parse_options({"pool.container.workers": "1", "pool.gpu.workers": "2"}).pools
    runs = {
        frozenset({"container", "gpu"}): 3,
        frozenset({"container", "workspace"}): 4,
        frozenset({"custom"}): 2,
        frozenset({"gpu"}): 5,
    }
    assert unheld(runs, pools, frozenset({"container", "gpu", "custom"})) == (
        "--executor ray: 3 runs need 'container' and 'gpu'; 2 runs need 'custom' (5 in all), which no "
        "worker provides (the pools: pool.container (1 worker), pool.gpu (2 workers); a pool provides "
        "its own tag, the default workers none); add a pool for each tag (--executor-option "
        "pool.TAG.workers=N, and pool.TAG.resource.NAME=AMOUNT for what its workers ask of the cluster)"
    )
    assert unheld({frozenset({"container", "workspace"}): 4}, pools, frozenset({"container"})) is None


GIB = 2**30


def test_a_repository_goes_to_workers_whose_disk_holds_it():
    from bench_ray.pools import route, unheld

    options = parse_options(
        {
            "disk": "1GiB",
            "pool.workspace.workers": "1",
            "pool.workspace.disk": "2GiB",
            "pool.big.workers": "1",
            "pool.big.disk": "50GiB",
            "pool.gpu.workers": "1",
        }
    )
    small, medium, large = (frozenset({"workspace", f"disk={n}"}) for n in (GIB // 2, GIB * 3 // 2, 20 * GIB))
    assert route(small, options.pools, frozenset(), options.disk) == "workspace"
    assert route(medium, options.pools, frozenset(), options.disk) == "workspace"
    assert route(large, options.pools, frozenset(), options.disk) == "big"  # too large for its tag's pool
    # no tag: the default workers while they hold it, else the first pool with room
    assert route(frozenset({f"disk={GIB // 2}"}), options.pools, frozenset(), options.disk) is None
    assert route(frozenset({f"disk={2 * GIB}"}), options.pools, frozenset(), options.disk) == "workspace"
    # a pool that says nothing of disk holds any repository its tag brings
    assert route(frozenset({"gpu", f"disk={20 * GIB}"}), options.pools, frozenset(), options.disk) == "gpu"
    assert unheld({small: 3, medium: 2, large: 1}, options.pools, frozenset(), options.disk) is None


def test_runs_whose_repository_no_worker_holds_are_refused_with_the_sums():
    from bench_ray.pools import unheld

    options = parse_options({"disk": "1GiB", "pool.workspace.workers": "2", "pool.workspace.disk": "2GiB"})
    runs = {
        frozenset({"workspace", f"disk={3 * GIB}"}): 2,
        frozenset({"workspace", f"disk={5 * GIB}"}): 1,
        frozenset({"workspace", f"disk={GIB}"}): 4,  # fits: not counted
        # declared in resources: (a required tag) yet too large for the pool of its tag
        frozenset({"workspace", f"disk={4 * GIB}"}): 1,
    }
    assert unheld(runs, options.pools, frozenset({"workspace"}), options.disk) == (
        "--executor ray: 4 runs need more disk for their repository than the workers they can go to "
        "hold (the largest 5 GiB, 15 GiB in all; each worker holds: the default workers 1 GiB, "
        "pool.workspace 2 GiB); give workers enough (--executor-option disk=SIZE for the default "
        "workers, pool.TAG.disk=SIZE for a pool's)"
    )
    # without any disk option every worker holds any repository, as before
    assert unheld(runs, parse_options({}).pools, frozenset()) is None
