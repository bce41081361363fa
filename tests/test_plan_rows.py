"""Plan rows (docs/scale.md): a worker rebuilds tasks from ``Plan.rows()`` with a header-only
load (``load_suite(path, tasks="lazy")``), and gets exactly the PlannedTasks the full load gives."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from bench.distributed import PlannedTask, PlanRow
from bench.suite.selection.narrowing import Selection, narrow
from bench.testing import load_suite
from bench.vocabulary.errors import BenchError
from bench.workspace.disk import size_on_disk

ROOT = Path(__file__).resolve().parents[1]


def _plain(value: Any) -> Any:
    """Settings as comparable data (a compiled schema object compares by its attributes)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return (type(value).__name__, _plain(getattr(value, "__dict__", repr(value))))


def _signature(planned: PlannedTask) -> tuple[Any, ...]:
    task = planned.task
    return (
        planned.key,
        planned.digest,
        planned.target_label,
        planned.repeats,
        planned.pass_at_k,
        task.prompt,
        task.messages,
        task.response,
        task.vars,
        task.workspace,
        [(e.name, e.type, e.spec, _plain(e.instance.config.model_dump())) for e in planned.evaluators],
    )


def _offline_examples() -> list[Path]:
    found = []
    for path in sorted((ROOT / "examples").rglob("*.yaml")):
        try:
            load_suite(path)
        except (BenchError, OSError, ValueError):
            continue  # needs a network, a key or an installed tool: not an offline suite
        found.append(path)
    return found


def _assert_rebuilt(path: Path) -> None:
    full = load_suite(path)
    rows = list(full.rows())
    rows = pickle.loads(pickle.dumps(rows))  # what a driver sends a worker
    worker = load_suite(path, tasks="lazy")
    assert len(worker.tasks) == 0
    assert [_signature(p) for p in worker.build(rows)] == [_signature(p) for p in full.tasks]
    assert [key for row in rows for key in row.keys] == full.tasks.ids


@pytest.mark.parametrize("path", _offline_examples(), ids=lambda p: str(p.relative_to(ROOT / "examples")))
def test_example_rebuilt_from_rows_equals_the_full_load(path: Path) -> None:
    _assert_rebuilt(path)


def test_offline_examples_are_found() -> None:
    assert len(_offline_examples()) >= 10


def _jsonl_suite(tmp_path: Path, n: int = 1000) -> Path:
    rows = []
    for i in range(n):
        row: dict[str, Any] = {"id": f"t{i}", "prompt": f"Say {i}", "evaluate": {"expected": str(i)}}
        if i % 3 == 0:
            row["repeat"] = 2
        if i % 7 == 0:
            row["target"] = "b"
        if i % 11 == 0:
            row["evaluate"] = ["short", {"type": "contains", "value": str(i)}]
        rows.append(row)
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: rows\n"
        "targets: [{label: a, type: echo}, {label: b, type: echo}]\n"
        "evaluators: {short: {type: starts_with, value: Say}}\n"
        "tasks: tasks.jsonl\n"
    )
    return suite


def test_jsonl_suite_with_repeats_and_two_targets_rebuilt_from_rows(tmp_path: Path) -> None:
    suite = _jsonl_suite(tmp_path)
    _assert_rebuilt(suite)
    full = load_suite(suite)
    assert len(full.tasks) > 2000  # repeats and both targets expand the 1,000 rows


def test_rows_from_a_start_row_and_in_chunks(tmp_path: Path) -> None:
    suite = _jsonl_suite(tmp_path, 50)
    full = load_suite(suite)
    rows = list(full.rows())
    assert list(full.rows(17)) == rows[17:]
    assert rows[3] == PlanRow(
        3,
        json.loads((tmp_path / "tasks.jsonl").read_text().splitlines()[3]),
        rows[3].digest,
        ("t3[a]", "t3[a]@1", "t3[b]", "t3[b]@1"),
    )
    worker = load_suite(suite, tasks="lazy")
    chunks = [worker.build(rows[i : i + 8]) for i in range(0, len(rows), 8)]
    assert [p.key for chunk in chunks for p in chunk] == full.tasks.ids


def test_lazy_load_does_not_read_the_tasks_file(tmp_path: Path) -> None:
    suite = _jsonl_suite(tmp_path, 5)
    (tmp_path / "tasks.jsonl").write_text("not json\n")  # a validating load would refuse it
    worker = load_suite(suite, tasks="lazy")
    assert worker.tasks.ids == []
    assert set(worker.targets) == {"a", "b"}


@pytest.mark.parametrize(
    "selection",
    [Selection(keyword="t1 or t21 or t22"), Selection(sample=9, seed=3), Selection(limit=4)],
    ids=["keyword", "sample", "limit"],
)
def test_a_narrowed_plan_hands_out_only_the_chosen_rows_and_runs(
    tmp_path: Path, selection: Selection
) -> None:
    suite = _jsonl_suite(tmp_path, 40)
    narrowed = narrow(load_suite(suite), selection).plan
    rows = list(narrowed.rows())
    assert [key for row in rows for key in row.keys] == narrowed.tasks.ids
    assert all(row.keys for row in rows)
    assert [row.index for row in rows] == sorted({row.index for row in rows})
    worker = load_suite(suite, tasks="lazy")
    keys = {key for row in rows for key in row.keys}  # a row rebuilds whole: keep the chosen runs
    rebuilt = [p for p in worker.build(rows) if p.key in keys]
    assert [_signature(p) for p in rebuilt] == [_signature(p) for p in narrowed.tasks]


def test_a_narrowed_target_keeps_a_row_with_some_of_its_runs(tmp_path: Path) -> None:
    suite = _jsonl_suite(tmp_path, 10)
    narrowed = narrow(load_suite(suite), Selection(keyword="t3")).plan
    [row] = list(narrowed.rows())
    assert row.keys == ("t3[a]", "t3[a]@1", "t3[b]", "t3[b]@1")
    full = load_suite(suite)
    assert next(full.rows(3)).keys == row.keys


def test_rows_carry_what_their_tasks_need(tmp_path: Path) -> None:
    """``PlanRow.needs``: a similarity judge on a local model needs a GPU (not on an API model), a
    task whose agent runs in a ``repo:`` a workspace (not one with a recorded response)."""
    pytest.importorskip("bench_nlp_metrics", reason="the similarity evaluator is bench-nlp-metrics'")
    from bench.testing import git_repo, write_suite

    git_repo(tmp_path / "repo", {"a.txt": "one\n"})
    suite = write_suite(
        tmp_path,
        """
        name: needs
        target: {type: command, command: [echo, hi]}
        tasks:
          - {id: plain, prompt: go, evaluate: {type: contains, value: hi}}
          - {id: gpu, prompt: go, evaluate: {type: similarity, reference: hi}}
          - {id: api, prompt: go, evaluate: {type: similarity, reference: hi, provider: litellm, model: m}}
          - {id: cpu, prompt: go, evaluate: {type: similarity, reference: hi, device: cpu}}
          - {id: agent, prompt: go, repo: repo, evaluate: {type: contains, value: hi}}
          - {id: both, prompt: go, repo: repo, evaluate: [{type: similarity, reference: hi}]}
          - {id: recorded, response: hi, repo: repo, evaluate: {type: contains, value: hi}}
        """,
    )
    plan = load_suite(suite)
    needs = {row.raw["id"]: row.needs for row in plan.rows()}
    # a workspace needs the disk its repository takes (the clone, .git included)
    disk = f"disk={size_on_disk(str(tmp_path / 'repo'))}"
    assert needs == {
        "plain": frozenset(),
        "gpu": {"gpu"},
        "api": frozenset(),
        "cpu": frozenset(),
        "agent": {"workspace", disk},
        "both": {"gpu", "workspace", disk},
        "recorded": frozenset(),
    }
    assert plan.row_needs() == {
        frozenset(),
        frozenset({"gpu"}),
        frozenset({"workspace", disk}),
        frozenset({"gpu", "workspace", disk}),
    }
    # A resumed run's keys left: only the rows with one count.
    assert plan.row_needs({"plain", "agent"}) == {frozenset(), frozenset({"workspace", disk})}
    assert plan.row_needs({"both"}) == {frozenset({"gpu", "workspace", disk})}
    assert plan.row_needs(set()) == set()
    only = narrow(plan, Selection(keyword="plain or agent")).plan
    assert only.row_needs() == {frozenset(), frozenset({"workspace", disk})}
    assert [row.needs for row in only.rows()] == [frozenset(), {"workspace", disk}]
    (tmp_path / "plain").mkdir()
    assert load_suite(_jsonl_suite(tmp_path / "plain", 20)).row_needs() == {frozenset()}


def test_resources_declared_by_a_task_or_the_defaults_are_its_needs_and_required(tmp_path: Path) -> None:
    from bench.testing import write_suite

    suite = write_suite(
        tmp_path,
        """
        defaults: {resources: [container]}
        tasks:
          - {id: a, prompt: p, response: r, evaluate: {expected: r}}
          - {id: b, prompt: p, response: r, evaluate: {expected: r}, resources: [gpu, site.rack-2]}
        """,
    )
    plan = load_suite(suite)
    assert [row.needs for row in plan.rows()] == [
        frozenset({"container"}),
        frozenset({"container", "gpu", "site.rack-2"}),
    ]
    assert plan.required == frozenset({"container", "gpu", "site.rack-2"})
    assert plan.needs_runs() == {
        frozenset({"container"}): 1,
        frozenset({"container", "gpu", "site.rack-2"}): 1,
    }


def test_a_resource_tag_with_a_space_names_the_field(bench_cli: Any, bench_suite_file: Any) -> None:
    suite = bench_suite_file(
        """
        tasks: [{id: a, prompt: p, response: r, evaluate: {expected: r}, resources: ["a gpu"]}]
        """
    )
    result = bench_cli("run", suite, "-q")
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: {suite}:1:78: tasks[0].resources[0]: Value error, a resource tag is letters, digits, "
        "'_', '.' and '-' (container, gpu), or disk=SIZE (got 'a gpu')\n"
    )


def test_a_program_run_in_a_container_needs_a_container_where_it_runs(tmp_path: Path) -> None:
    from bench.testing import write_suite
    from bench.workspace.container import container_runtime

    if container_runtime() is None:
        pytest.skip("a container sandbox is refused where no Podman or Docker is installed")
    suite = write_suite(
        tmp_path,
        """
        tasks:
          - {id: boxed, prompt: p, response: r, evaluate: {type: code_execution, sandbox: {type: container, image: x}}}
          - {id: plain, prompt: p, response: r, evaluate: {type: code_execution}}
        """,
    )
    plan = load_suite(suite)
    assert [row.needs for row in plan.rows()] == [frozenset({"container"}), frozenset()]
    assert plan.required == frozenset()  # inferred: a pool.container takes it, else any worker


def test_a_repository_size_need_is_measured_unless_declared(tmp_path: Path) -> None:
    from bench.testing import git_repo, write_suite

    git_repo(tmp_path / "repo", {"big.bin": "x" * 300_000})
    suite = write_suite(
        tmp_path,
        """
        target: {type: command, command: [echo, hi]}
        tasks:
          - {id: measured, prompt: go, repo: repo, evaluate: {type: contains, value: hi}}
          - {id: declared, prompt: go, repo: repo, resources: [disk=2GiB], evaluate: {type: contains, value: hi}}
        """,
    )
    plan = load_suite(suite)
    measured = size_on_disk(str(tmp_path / "repo"))
    assert measured > 300_000  # the files and the clone's .git
    needs = {row.raw["id"]: row.needs for row in plan.rows()}
    assert needs == {
        "measured": {"workspace", f"disk={measured}"},
        "declared": {"workspace", f"disk={2 * 2**30}"},
    }
    assert plan.required == frozenset({f"disk={2 * 2**30}"})


def test_a_disk_need_that_is_not_a_size_names_the_field(bench_cli: Any, bench_suite_file: Any) -> None:
    suite = bench_suite_file(
        """
        tasks: [{id: a, prompt: p, response: r, evaluate: {expected: r}, resources: [disk=lots]}]
        """
    )
    result = bench_cli("run", suite, "-q")
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: {suite}:1:78: tasks[0].resources[0]: Value error, disk=lots: write the disk a task "
        "needs as disk=SIZE (disk=2GiB, disk=500MB) (got 'disk=lots')\n"
    )


def test_a_targets_resources_are_needed_by_the_tasks_it_runs(tmp_path: Path) -> None:
    from bench.testing import write_suite

    suite = write_suite(
        tmp_path,
        """
        targets:
          - {label: boxed, type: command, command: [echo, hi], resources: [container]}
          - {label: plain, type: command, command: [echo, hi]}
        tasks:
          - {id: a, prompt: p, target: boxed, evaluate: {expected: hi}}
          - {id: b, prompt: p, target: plain, evaluate: {expected: hi}}
          - {id: c, prompt: p, evaluate: {expected: hi}}
        """,
    )
    plan = load_suite(suite)
    needs = {row.raw["id"]: row.needs for row in plan.rows()}
    assert needs == {"a": frozenset({"container"}), "b": frozenset(), "c": frozenset({"container"})}
    assert plan.required == frozenset({"container"})
