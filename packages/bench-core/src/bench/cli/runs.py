"""Commands on stored runs: runs, show, view, compare, answer."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bench.cli.errors import handle_errors
from bench.cli.loading import load_registry
from bench.cli.options import (
    LABELS_FILE,
    RUNS_DIR,
    AsJson,
    RunsDir,
    json_option,
    labels_file_option,
    output_option,
    rater_option,
    runs_dir_option,
)
from bench.cli.outputs import checked_outputs, is_html


@handle_errors
def compare(
    run_a: Annotated[
        str,
        typer.Argument(
            help="The baseline: a run id (or latest), a run folder, or an --output JSON file; "
            "RUN:LABEL for one target of a run of several."
        ),
    ],
    run_b: Annotated[str, typer.Argument(help="The candidate, in the same forms.")],
    more: Annotated[
        list[str] | None, typer.Argument(help="More runs to rank (with --judge only).", show_default=False)
    ] = None,
    runs_dir: Annotated[Path, runs_dir_option("Where run ids are looked up.")] = RUNS_DIR,
    alpha: Annotated[float, typer.Option("--alpha", min=0.0001, max=0.5, help="Significance level.")] = 0.05,
    min_effect: Annotated[
        float,
        typer.Option("--min-effect", min=0.001, max=1.0, help="Smallest pass-rate change worth detecting."),
    ] = 0.05,
    output: Annotated[
        list[Path] | None,
        output_option(
            "Write the comparison as JSON, or FILE.html: a page of the tasks with each one's two "
            "runs diffed (with --judge: of the ranking) (repeatable)."
        ),
    ] = None,
    as_json: Annotated[
        bool, json_option("Print the comparison as JSON on stdout instead of the summary.")
    ] = False,
    judge: Annotated[
        str | None,
        typer.Option(
            "--judge",
            help="Judge the runs' responses against each other: a judge mapping (YAML, inline or a file), "
            "e.g. '{type: pairwise, model: openai/gpt-4o-mini}'.",
        ),
    ] = None,
    suite: Annotated[
        Path | None,
        typer.Option("--suite", help="With --judge: the suite the runs ran, to show the judge each prompt."),
    ] = None,
) -> None:
    """Compare two runs task by task: regressions, improvements, and whether the change is real.

    ``RUN:LABEL`` is one target of a run of several targets, so ``bench compare latest:gpt
    latest:claude`` compares two targets of one run (task ``ID[gpt]`` with ``ID[claude]``).

    ``bench compare`` exits with its verdict: 0 no significant change or an improvement, 1 a
    significant regression, 2 a run it cannot read, 3 insufficient evidence (too few tasks to tell;
    the output says how many would be needed), with or without ``--json``. With ``--judge``, a
    pairwise or n-wise judge compares the runs' responses to each task (in every order, to cancel
    position bias) and the output ranks the runs: win rates with intervals and a Bradley-Terry
    ranking (exit 0).
    """
    outputs = checked_outputs(output)
    if judge is not None:
        _compare_judged([run_a, run_b, *(more or [])], runs_dir, judge, suite, outputs, as_json)
        return
    if more:
        from bench.vocabulary.errors import ConfigError

        raise ConfigError("more than two runs can only be compared with --judge")
    _compare_two(run_a, run_b, runs_dir, alpha, min_effect, outputs, as_json)


def _compare_two(
    run_a: str,
    run_b: str,
    runs_dir: Path,
    alpha: float,
    min_effect: float,
    outputs: list[Path],
    as_json: bool,
) -> None:
    """The statistical comparison of two runs; exits with its verdict."""
    from bench.report.compare import EXIT_FOR, compare_runs, load_run
    from bench.report.console import print_comparison
    from bench.report.reporters.formats import write_text
    from bench.vocabulary import jsonio

    result = compare_runs(
        load_run(run_a, runs_dir), load_run(run_b, runs_dir), alpha=alpha, min_effect=min_effect
    )
    text = jsonio.dumps(result.as_dict())
    for path in outputs:
        if is_html(path):
            from bench.report.compare_page import write_compare_page

            write_compare_page(path, run_a, run_b, runs_dir, result)
        else:
            write_text(path, text + "\n")
    if as_json:
        typer.echo(text)
    else:
        print_comparison(result, alpha)
    raise typer.Exit(EXIT_FOR[result.verdict])


def _compare_judged(
    refs: list[str], runs_dir: Path, judge: str, suite: Path | None, outputs: list[Path], as_json: bool
) -> None:
    from bench.judging.pairwise import bind_judge, judge_runs, print_pairwise, write_html
    from bench.report.reporters.formats import write_text
    from bench.suite.loader import load_suite
    from bench.vocabulary import jsonio

    registry = load_registry()
    prompts = None
    if suite is not None:
        prompts = {}
        for planned in load_suite(suite, registry).tasks:
            prompts[planned.task.id] = planned.task.text
            if planned.target_label is not None:  # as RUN:LABEL names it
                prompts[planned.task.id.removesuffix(f"[{planned.target_label}]")] = planned.task.text
    result = judge_runs(refs, runs_dir, bind_judge(judge, registry), prompts)
    text = jsonio.dumps(result.as_dict())
    for path in outputs:
        if is_html(path):
            write_html(path, result)
        else:
            write_text(path, text + "\n")
    if as_json:
        typer.echo(text)
    else:
        print_pairwise(result)


@handle_errors
def runs(
    runs_dir: RunsDir = RUNS_DIR,
    as_json: AsJson = False,
    suite: Annotated[
        str | None,
        typer.Option(
            "--suite",
            help="One suite's pass rate run by run, oldest first, with intervals, bars and costs.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """List the stored runs, newest first: id, suite, when, status, tasks, pass rate, cost."""
    from bench.report.history import list_runs, print_runs

    if suite is not None:
        from bench.report.trend import print_trend, suite_points, trend_json
        from bench.vocabulary import jsonio

        points = suite_points(runs_dir, suite)
        if as_json:
            typer.echo(jsonio.dumps(trend_json(points)))
        else:
            print_trend(points, suite)
        return

    rows = list_runs(runs_dir)
    if as_json:
        from bench.vocabulary import jsonio

        typer.echo(jsonio.dumps(rows))
    else:
        print_runs(rows, runs_dir)


@handle_errors
def show(
    run_id: Annotated[str, typer.Argument(help="The run (or latest).", show_default=False)],
    task_id: Annotated[
        str | None,
        typer.Argument(help="One task, whole (ID, or ID@N for one repeat).", show_default=False),
    ] = None,
    runs_dir: RunsDir = RUNS_DIR,
    as_json: AsJson = False,
) -> None:
    """Show a stored run's summary and the tasks that did not pass, or one task whole."""
    from bench.report import history
    from bench.vocabulary import jsonio

    found, manifest, results = history.load(runs_dir, run_id)
    if task_id is None:
        if as_json:
            typer.echo(history.run_json(found, manifest, results))
        else:
            history.print_run(found, manifest, results)
        return
    chosen = history.task_results(found, results, task_id)
    if as_json:
        typer.echo(jsonio.dumps({"run_id": found, "task": task_id, "results": chosen}))
        return
    for i, result in enumerate(chosen):
        if i:
            typer.echo("")
        history.print_task(result)


@handle_errors
def view(
    run_id: Annotated[
        str | None, typer.Argument(help="Open this run (or latest) first.", show_default=False)
    ] = None,
    runs_dir: RunsDir = RUNS_DIR,
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on; anything but loopback is warned about.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port; 0 picks a free one.")] = 8765,
    open_browser: Annotated[bool, typer.Option("--open", help="Open the page in a browser.")] = False,
    label: Annotated[
        bool,
        typer.Option("--label", help="Let the page label tasks (as bench label does); read-only without."),
    ] = False,
    rater: Annotated[str | None, rater_option("Who labels, with --label [default: your user name].")] = None,
    out: Annotated[Path, labels_file_option("The labels file --label writes (JSONL).")] = LABELS_FILE,
) -> None:
    """Browse the stored runs in a local web viewer: the runs, one run, two runs or targets compared.

    It serves only the runs folder, on 127.0.0.1 unless ``--host`` says otherwise; a run still in
    progress updates live. With ``--label`` a task's detail takes a label (p pass, f fail, 0-9
    score, s skip, n note) into bench label's file. Ctrl-C stops it.
    """
    import getpass

    from bench.report.viewer import Labelling, serve

    labelling = Labelling(out, rater if rater is not None else getpass.getuser()) if label else None
    try:
        serve(runs_dir, host, port, run_id, open_browser, labelling)
    except OSError as exc:
        from bench.vocabulary.errors import ConfigError

        raise ConfigError(f"bench view: cannot listen on {host}:{port}: {exc.strerror or exc}") from None
