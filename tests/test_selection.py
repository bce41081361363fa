"""Task selection: ``-k``, ``--filter``, ``--limit``, ``--sample``, ``tags:``,
``--failed`` / ``--errors`` and how they compose with ``--repeat`` and ``--resume``."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from bench.suite.plan import TaskList

ROOT = Path(__file__).resolve().parents[1]
SUITE = """\
name: sel
tasks:
  - {id: math-add, tags: [math], metadata: {level: easy, src: {name: atlas}}, response: "4", evaluate: {expected: "4"}}
  - {id: math-mul, tags: [math, slow], metadata: {level: hard, hard: true}, response: "5", evaluate: {expected: "6"}}
  - {id: geo-cap, tags: [geo], metadata: {level: hard, langs: [en, fr]}, response: Paris, evaluate: {expected: Paris}}
  - {id: geo-river, tags: [geo, slow], response: Nile, evaluate: {expected: Amazon}}
  - {id: broken, tags: [geo], response: {error: boom}, evaluate: {expected: x}}
"""


def _run_ids(tmp_path: Path) -> list[str]:
    """Run folders, oldest first."""
    runs = tmp_path / ".bench" / "runs"
    return sorted(
        (p.name for p in runs.iterdir()), key=lambda n: (runs / n / "manifest.json").stat().st_mtime_ns
    )


def _ran(tmp_path: Path, run_id: str | None = None) -> list[str]:
    """The task ids a run recorded, in order (the newest run by default)."""
    run_id = run_id or _run_ids(tmp_path)[-1]
    lines = (tmp_path / ".bench" / "runs" / run_id / "results.jsonl").read_text().splitlines()
    return [json.loads(line)["id"] for line in lines]


def _manifest(tmp_path: Path, run_id: str) -> dict:
    return json.loads((tmp_path / ".bench" / "runs" / run_id / "manifest.json").read_text())


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("math", ["math-add", "math-mul"]),  # a substring of the id, and a tag
        ("math and not slow", ["math-add"]),
        ("slow", ["math-mul", "geo-river"]),  # a tag only
        ("geo and not (slow or broken)", ["geo-cap"]),
        ("cap or add", ["math-add", "geo-cap"]),
        ("not not mul", ["math-mul"]),
        ("Math", []),  # case-sensitive
    ],
)
def test_k_selects_by_id_substring_and_exact_tag(bench_cli, bench_suite_file, tmp_path, expression, expected):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "-k", expression)
    if not expected:
        assert result.stderr == f"error: no task matches the selection: -k {expression!r}\n"
        assert result.exit_code == 2
        assert not (tmp_path / ".bench" / "runs").exists() or not _run_ids(tmp_path)
        return
    assert _ran(tmp_path) == expected
    assert f"selected {len(expected)} of 5 tasks (-k {expression!r})" in result.stdout


def test_a_tag_matches_exactly_not_as_a_substring(bench_cli, bench_suite_file, tmp_path):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "-k", "slo")
    assert result.stderr == "error: no task matches the selection: -k 'slo'\n"


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("", "-k '': the expression is empty"),
        ("math and", "-k 'math and': expected a name or '(' after 'and' at the end"),
        ("and math", "-k 'and math': expected a name or '(' at column 1, found 'and'"),
        ("math geo", "-k 'math geo': expected 'and' or 'or' before 'geo' at column 6"),
        ("(math or geo", "-k '(math or geo': '(' at column 1 is never closed"),
        ("math)", "-k 'math)': unmatched ')' at column 5"),
        ("not", "-k 'not': expected a name or '(' after 'not' at the end"),
        ("math or ()", "-k 'math or ()': expected a name or '(' at column 10, found ')'"),
    ],
)
def test_an_invalid_k_expression_is_refused_before_loading(bench_cli, bench_suite_file, expression, message):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "-k", expression)
    assert result.stderr == f"error: {message}\n"
    assert result.exit_code == 2


def test_k_is_never_evaluated_as_python(bench_cli, bench_suite_file, tmp_path):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "-k", "__import__('os').system('touch pwned')")
    assert result.stderr == (
        "error: -k \"__import__('os').system('touch pwned')\": expected 'and' or 'or' before '(' at column 11\n"
    )
    assert result.exit_code == 2
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (["level=hard"], ["math-mul", "geo-cap"]),
        (["level=hard", "hard=true"], ["math-mul"]),  # every filter holds; a bool reads as YAML writes it
        (["src.name=atlas"], ["math-add"]),  # a dotted key reaches into nested metadata
        (["langs=fr"], ["geo-cap"]),  # a list matches when it holds the value
    ],
)
def test_filter_on_metadata(bench_cli, bench_suite_file, tmp_path, filters, expected):
    args = [a for f in filters for a in ("--filter", f)]
    result = bench_cli("run", bench_suite_file(SUITE), "-q", *args)
    assert _ran(tmp_path) == expected
    assert f"selected {len(expected)} of 5 tasks" in result.stdout


def test_a_filter_on_a_key_no_task_has_selects_none(bench_cli, bench_suite_file, tmp_path):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "--filter", "owner=me", "-k", "math")
    assert result.stderr == "error: no task matches the selection: -k 'math', --filter owner=me\n"
    assert result.exit_code == 2
    assert not (tmp_path / ".bench" / "runs").exists() or not _run_ids(tmp_path)


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        (["level"], "--filter level: write it as KEY=VALUE (a metadata key, dotted for nested ones)"),
        (["=hard"], "--filter =hard: write it as KEY=VALUE (a metadata key, dotted for nested ones)"),
        (["level=hard", "level=easy"], "--filter level=easy: key 'level' is already filtered on 'hard'"),
    ],
)
def test_a_malformed_filter_is_refused(bench_cli, bench_suite_file, filters, message):
    args = [a for f in filters for a in ("--filter", f)]
    result = bench_cli("run", bench_suite_file(SUITE), "-q", *args)
    assert result.stderr == f"error: {message}\n"
    assert result.exit_code == 2


def test_limit_takes_the_first_n_after_the_other_filters(bench_cli, bench_suite_file, tmp_path):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "-k", "geo", "--limit", "2")
    assert _ran(tmp_path) == ["geo-cap", "geo-river"]
    assert "selected 2 of 5 tasks (-k 'geo', --limit 2)" in result.stdout


def test_limit_must_be_positive(bench_cli, bench_suite_file):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "--limit", "0")
    assert result.exit_code == 2
    assert "--limit" in result.stderr


def test_sample_is_reproducible_with_a_seed(bench_cli, bench_suite_file, tmp_path):
    rows = "".join(f"  - {{id: t{i:02d}, response: ok, evaluate: {{expected: ok}}}}\n" for i in range(30))
    path = bench_suite_file(f"name: many\ntasks:\n{rows}")
    drawn = []
    for seed in ("7", "7", "8"):
        result = bench_cli("run", path, "-q", "--sample", "5", "--seed", seed)
        assert result.exit_code == 0, result.output
        assert f"selected 5 of 30 tasks (--sample 5 --seed {seed})" in result.stdout
        drawn.append(_ran(tmp_path))
    assert drawn[0] == drawn[1]
    assert drawn[0] != drawn[2]
    assert drawn[0] == sorted(drawn[0])  # the suite's order is kept
    default = bench_cli("run", path, "-q", "--sample", "5")
    assert "(--sample 5 --seed 0)" in default.stdout
    by_default = _ran(tmp_path)
    bench_cli("run", path, "-q", "--sample", "5", "--seed", "0")
    assert _ran(tmp_path) == by_default


def test_a_sample_larger_than_the_selection_takes_all_of_it(bench_cli, bench_suite_file, tmp_path):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "-k", "math", "--sample", "10")
    assert _ran(tmp_path) == ["math-add", "math-mul"]
    assert "selected 2 of 5 tasks" in result.stdout


def test_selection_composes_with_repeat(bench_cli, bench_suite_file, tmp_path):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "--repeat", "3", "--limit", "2")
    assert "6 runs of 2 tasks: 3 passed, 3 failed, 0 errors" in result.stdout
    assert "selected 2 of 5 tasks (--limit 2)" in result.stdout
    assert _ran(tmp_path).count("math-add") == 3


def test_tags_from_a_json_lines_tasks_file(bench_cli, tmp_path):
    rows = [
        {"id": "r1", "tags": ["fast"], "response": "a", "evaluate": {"expected": "a"}},
        {"id": "r2", "tags": ["slow"], "response": "b", "evaluate": {"expected": "b"}},
    ]
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "suite.yaml").write_text("name: rows\ntasks: tasks.jsonl\n")
    result = bench_cli("run", "suite.yaml", "-q", "-k", "not slow")
    assert result.exit_code == 0, result.output
    assert _ran(tmp_path) == ["r1"]


def test_tags_must_be_a_list_of_strings(bench_cli, bench_suite_file):
    result = bench_cli(
        "validate",
        bench_suite_file("tasks:\n  - {id: a, tags: math, response: x, evaluate: {expected: x}}\n"),
    )
    assert result.exit_code == 2
    assert "tags" in result.stderr


def test_the_schema_describes_tags(bench_cli):
    result = bench_cli("schema")
    task = json.loads(result.stdout)["$defs"]["TaskSpec"]["properties"]["tags"]
    assert task["type"] == "array"
    assert task["items"] == {"type": "string"}


# -- --failed / --errors --------------------------------------------------------------------------


def test_failed_reruns_the_failures_as_a_new_derived_run(bench_cli, bench_suite_file, tmp_path):
    path = bench_suite_file(SUITE)
    first = bench_cli("run", path, "-q")
    assert first.exit_code == 3
    [source] = _run_ids(tmp_path)
    result = bench_cli("run", path, "-q", "--failed", source)
    assert result.exit_code == 1
    derived = _run_ids(tmp_path)[-1]
    assert derived != source
    assert _ran(tmp_path, derived) == ["math-mul", "geo-river"]
    assert f"selected 2 of 5 tasks (--failed {source})" in result.stdout
    manifest = _manifest(tmp_path, derived)
    assert manifest["derived_from"] == {"run": source, "select": "failed"}
    assert manifest["selection"] == {"failed": source}
    assert "derived_from" not in _manifest(tmp_path, source)


def test_errors_reruns_the_errors_and_latest_names_the_newest_run(bench_cli, bench_suite_file, tmp_path):
    path = bench_suite_file(SUITE)
    bench_cli("run", path, "-q")
    bench_cli("run", path, "-q", "-k", "geo")  # the newest run: geo-cap, geo-river, broken
    newest = _run_ids(tmp_path)[-1]
    result = bench_cli("run", path, "-q", "--errors", "latest")
    assert result.exit_code == 3
    assert _ran(tmp_path) == ["broken"]
    assert _manifest(tmp_path, _run_ids(tmp_path)[-1])["derived_from"] == {"run": newest, "select": "errors"}
    both = bench_cli("run", path, "-q", "--failed", newest, "--errors", newest)
    assert _ran(tmp_path) == ["geo-river", "broken"]
    assert _manifest(tmp_path, _run_ids(tmp_path)[-1])["derived_from"] == {
        "run": newest,
        "select": "failed+errors",
    }
    assert both.exit_code == 3


def test_a_rerun_reads_the_latest_attempt_of_each_task(bench_cli, bench_suite_file, tmp_path):
    """A resumed run appends a task's line again; the later line is the one that counts."""
    path = bench_suite_file(SUITE)
    bench_cli("run", path, "-q", "-k", "math-mul")
    [source] = _run_ids(tmp_path)
    results = tmp_path / ".bench" / "runs" / source / "results.jsonl"
    line = json.loads(results.read_text())
    line["status"], line["passed"] = "passed", True
    with results.open("a") as fh:
        fh.write(json.dumps(line) + "\n" + '{"id": "torn", "status": "fail')
    result = bench_cli("run", path, "-q", "--failed", source)
    assert (
        result.stderr
        == f"error: --failed {source}: run {source} has no task that failed; nothing to run again\n"
    )
    assert result.exit_code == 2


def test_failed_refuses_an_unknown_run(bench_cli, bench_suite_file):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "--failed", "20250101-000000-abcdef")
    assert result.stderr == (
        "error: --failed 20250101-000000-abcdef: no run '20250101-000000-abcdef' in .bench/runs\n"
    )
    assert result.exit_code == 2


def test_failed_latest_refuses_when_the_suite_never_ran(bench_cli, bench_suite_file):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "--failed", "latest")
    assert result.stderr == "error: --failed latest: no run of suite 'sel' in .bench/runs\n"
    assert result.exit_code == 2


def test_failed_refuses_a_run_with_no_failures(bench_cli, bench_suite_file, tmp_path):
    path = bench_suite_file(SUITE)
    bench_cli("run", path, "-q", "-k", "add")
    [source] = _run_ids(tmp_path)
    result = bench_cli("run", path, "-q", "--failed", source)
    assert (
        result.stderr
        == f"error: --failed {source}: run {source} has no task that failed; nothing to run again\n"
    )
    assert result.exit_code == 2
    errors = bench_cli("run", path, "-q", "--errors", "latest")
    assert errors.stderr == (
        f"error: --errors latest: run {source} has no task that errored; nothing to run again\n"
    )
    assert len(_run_ids(tmp_path)) == 1  # no empty run folder is left behind


def test_failed_refuses_a_run_of_another_suite(bench_cli, bench_suite_file, tmp_path):
    bench_cli("run", bench_suite_file(SUITE), "-q")
    [source] = _run_ids(tmp_path)
    other = bench_suite_file(SUITE.replace("name: sel", "name: other"), name="other.yaml")
    result = bench_cli("run", other, "-q", "--failed", source)
    assert result.stderr == f"error: --failed {source}: run {source} is of suite 'sel', not 'other'\n"
    assert result.exit_code == 2


def test_failed_and_errors_must_name_the_same_run(bench_cli, bench_suite_file):
    result = bench_cli("run", bench_suite_file(SUITE), "-q", "--failed", "a", "--errors", "b")
    assert result.stderr == "error: --failed and --errors name different runs; name the same run in both\n"
    assert result.exit_code == 2


# -- resume and dry runs --------------------------------------------------------------------------


def test_resume_applies_the_selection_the_run_started_with(bench_cli, bench_suite_file, tmp_path):
    path = bench_suite_file(SUITE)
    bench_cli("run", path, "-q", "-k", "math")
    [run_id] = _run_ids(tmp_path)
    results = tmp_path / ".bench" / "runs" / run_id / "results.jsonl"
    first_line = results.read_text().splitlines()[0]
    results.write_text(first_line + "\n")  # as if killed after the first task
    assert _manifest(tmp_path, run_id)["selection"] == {"keyword": "math"}
    result = bench_cli("run", path, "-q", "--resume", run_id)
    assert f"resuming run {run_id}: 1 kept, 1 to run" in result.stderr
    assert "selected 2 of 5 tasks (-k 'math')" in result.stdout
    assert _ran(tmp_path, run_id) == ["math-add", "math-mul"]  # not the geo tasks
    same = bench_cli("run", path, "-q", "--resume", run_id, "-k", "math")
    assert same.exit_code == 1, same.output


def test_resume_of_a_derived_run_accepts_the_options_it_started_with(bench_cli, bench_suite_file, tmp_path):
    path = bench_suite_file(SUITE)
    bench_cli("run", path, "-q")
    source = _run_ids(tmp_path)[-1]
    bench_cli("run", path, "-q", "--failed", "latest")
    derived = _run_ids(tmp_path)[-1]
    bench_cli("run", path, "-q", "-k", "add")  # 'latest' now names another run
    result = bench_cli("run", path, "-q", "--resume", derived, "--failed", "latest")
    assert f"selected 2 of 5 tasks (--failed {source})" in result.stdout
    assert result.exit_code == 1, result.output


def test_resume_refuses_a_different_selection(bench_cli, bench_suite_file, tmp_path):
    path = bench_suite_file(SUITE)
    bench_cli("run", path, "-q", "-k", "math")
    [run_id] = _run_ids(tmp_path)
    result = bench_cli("run", path, "-q", "--resume", run_id, "--limit", "1")
    assert result.stderr == (
        f"error: run {run_id} was started with -k 'math', not --limit 1; resume it without "
        "selection options (the run's own selection is applied again)\n"
    )
    assert result.exit_code == 2
    bench_cli("run", path, "-q")
    whole = _run_ids(tmp_path)[-1]
    result = bench_cli("run", path, "-q", "--resume", whole, "-k", "geo")
    assert result.stderr.startswith(f"error: run {whole} was started with every task, not -k 'geo';")


def test_dry_run_estimates_the_selected_tasks(bench_cli, bench_suite_file):
    result = bench_cli("run", bench_suite_file(SUITE), "--dry-run", "-k", "math")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("selected 2 of 5 tasks (-k 'math')\n")
    assert "2 tasks" in result.stdout


def test_selection_on_a_suite_rebuilt_one_task_at_a_time(monkeypatch, tmp_path):
    """Beyond TaskList.KEEP_LIMIT tasks are not held built: selection keeps positions and rebuilds."""
    from bench.pipeline.options import RunOptions
    from bench.pipeline.run import run_plan
    from bench.suite.loader import load_suite
    from bench.suite.selection.narrowing import Selection, narrow

    monkeypatch.setattr(TaskList, "KEEP_LIMIT", 3)
    rows = "".join(
        f"  - {{id: t{i}, tags: [{'even' if i % 2 == 0 else 'odd'}], response: ok, evaluate: {{expected: ok}}}}\n"
        for i in range(10)
    )
    path = tmp_path / "suite.yaml"
    path.write_text(f"name: lazy\nrepeat: 2\ntasks:\n{rows}")
    plan = load_suite(path)
    assert not plan.tasks.kept
    narrowed = narrow(plan, Selection(keyword="odd", limit=3))
    assert (narrowed.selected, narrowed.total) == (3, 10)
    assert not narrowed.plan.tasks.kept
    assert narrowed.plan.tasks.ids == ["t1", "t1@1", "t3", "t3@1", "t5", "t5@1"]
    assert [p.key for p in narrowed.plan.tasks] == narrowed.plan.tasks.ids
    assert narrowed.plan.needs_target == 0
    outcome = run_plan(
        plan,
        RunOptions(runs_dir=tmp_path / "runs", handle_signals=False, select=Selection(keyword="even")),
    )
    assert outcome.report.summary.total == 10
    assert outcome.selected == "selected 5 of 10 tasks (-k 'even')"


def test_selection_is_plain_data():
    from bench.suite.selection.narrowing import Selection

    selection = Selection(keyword="math", filters={"level": "hard"}, sample=3, seed=5)
    assert selection.as_dict() == {"keyword": "math", "filters": {"level": "hard"}, "sample": 3, "seed": 5}
    assert Selection.from_dict(json.loads(json.dumps(selection.as_dict()))) == selection
    assert not Selection().active
    assert not Selection(seed=4).active
    with pytest.raises(Exception, match=r"^--sample 0: give a whole number of tasks, at least 1$"):
        Selection(sample=0)


# -- docs -----------------------------------------------------------------------------------------


def test_the_selecting_tasks_example_in_runs_md_runs(bench_cli, tmp_path):
    section = (ROOT / "docs" / "runs.md").read_text().split("## Selecting tasks", 1)[1].split("\n## ", 1)[0]
    suite = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    commands = section.split("```yaml\n", 1)[1].split("```\n", 2)[1].split("```", 1)[0]
    (tmp_path / "suite.yaml").write_text(suite)
    bench_cli("run", "suite.yaml", "-q")  # a first run, for `--failed latest`
    names = {"math-add", "math-mul", "geo-capital"}
    for line in commands.strip().splitlines():
        command, comment = (part.strip() for part in line.split("#", 1))
        args = shlex.split(command)
        assert args[:3] == ["bench", "run", "suite.yaml"]
        result = bench_cli(*args[1:], "-q")
        assert result.exit_code in (0, 1), result.output
        expected = [word.strip(",") for word in comment.split() if word.strip(",") in names]
        assert _ran(tmp_path) == expected, line
