"""The ``bench`` command line: run, calibrate, label, validate, evaluators, plugins, compare, schema, init.

Only typer is imported at start-up; everything else loads inside the command that needs it, so
``bench --help`` stays instant. Exit codes (docs/cli.md): 0 all passed, 1 some task failed,
2 invalid input, 3 some task could not be evaluated, 4 internal error, 5 a conversation waits for
a person, 130 interrupted, 141 the
reader of stdout went away (``bench cache info | head -1``), as a shell reports SIGPIPE.
"""

from __future__ import annotations

import copy
import gc
import sys
from typing import Annotated

import typer

from bench.cli import authoring, cache, intake, judging, run, runs
from bench.cli.errors import (
    EXIT_CLOSED_PIPE,
    EXIT_ERRORS,
    EXIT_FAILED,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_INVALID,
    EXIT_OK,
    EXIT_WAITING,
    closed_pipe,
    handle_errors,
)

app = typer.Typer(
    name="bench",
    help="Evaluate what LLMs and agents produce.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from bench.vocabulary.version import __version__

        typer.echo(f"bench {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print bench's version."),
    ] = False,
) -> None:
    """Evaluate what LLMs and agents produce."""


#: The commands, in the order ``bench --help`` lists them.
COMMANDS = (
    run.run,
    judging.calibrate,
    judging.label,
    authoring.validate,
    authoring.convert,
    authoring.evaluators,
    authoring.plugins,
    intake.rescore,
    runs.compare,
    runs.runs,
    runs.show,
    runs.view,
    run.answer,
    authoring.schema,
    authoring.init,
)
for _command in COMMANDS:
    app.command()(_command)
app.command(name="import")(intake.import_run)
app.add_typer(cache.cache_app, name="cache")


def app_for(argv: list[str]) -> typer.Typer:
    """``app`` holding only the command ``argv`` starts with: typer builds the parameters of
    every command it holds before it parses (~15 ms for all of bench's, ~3 ms for one). ``app``
    itself when ``argv`` names no command (``bench --help``, ``--version``, ``cache``, a typo
    that its error lists the commands for)."""
    from typer.main import get_command_name

    if not argv:
        return app
    chosen = [
        info
        for info in app.registered_commands
        if info.callback is not None and (info.name or get_command_name(info.callback.__name__)) == argv[0]
    ]
    if not chosen:
        return app
    narrowed = copy.copy(app)
    narrowed.registered_commands = chosen
    narrowed.registered_groups = []
    return narrowed


def main() -> None:
    """Entry point of the ``bench`` script."""
    # Start-up makes a few hundred thousand objects that live as long as the process (modules,
    # classes, the plugins' models) and no garbage cycles: with the default thresholds the
    # collector scans them about 140 times before the first task (~30 ms of a 0.5 s start).
    # `bench run` collects nothing until it freezes them (run_console.prepare_process: ~10 ms
    # less); other commands collect less often.
    if sys.argv[1:2] == ["run"]:
        gc.disable()
    else:
        gc.set_threshold(50_000, 50, 100)
    try:
        try:
            app_for(sys.argv[1:])(prog_name="bench")
        finally:
            sys.stdout.flush()  # output still buffered meets the closed pipe here, not at exit
    except BrokenPipeError:
        raise SystemExit(closed_pipe().exit_code) from None
