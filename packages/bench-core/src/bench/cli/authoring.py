"""Commands for writing suites: validate, convert, evaluators, plugins, schema, init."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from bench.cli.errors import handle_errors
from bench.cli.loading import load_registry, print_template_warnings, read_env_files
from bench.cli.options import (
    AllowOutsideRoot,
    EnvFiles,
    NoEnvFile,
    Offline,
    SuiteArg,
    TargetSpec,
    Vars,
    output_option,
)


@handle_errors
def validate(
    suite: SuiteArg,
    allow_outside_root: AllowOutsideRoot = False,
    var: Vars = None,
    env_file: EnvFiles = None,
    no_env_file: NoEnvFile = False,
    target: TargetSpec = None,
    offline: Offline = False,
) -> None:
    """Check a suite without running it (no target needed); list the evaluators the tasks use.

    With ``--offline``: loaded under the offline guard; a target that needs a remote model is
    refused as ``bench run --offline`` refuses it, and the checks it would skip are named."""
    from bench.pipeline.offline import offline_guard, refuse_remote_targets, skipped_models
    from bench.report.overview import TaskCounter, print_plan
    from bench.suite.loader import load_suite
    from bench.suite.target_spec import parse_target
    from bench.suite.variables.command_line import parse_vars

    variables = parse_vars(var or [])
    replacement = None if target is None else parse_target(target)
    read_env_files(suite, env_file, no_env_file)
    registry = load_registry()
    with offline_guard(offline), TaskCounter("validating") as counter:
        plan = load_suite(
            suite,
            registry,
            allow_outside_root=allow_outside_root,
            progress=counter,
            variables=variables,
            target=replacement,
            need_target=False,
        )
    if offline:
        refuse_remote_targets(plan)
    print_template_warnings(plan)
    print_plan(plan)
    remote = skipped_models(plan) if offline else []
    if remote:
        typer.echo(f"offline: the checks that need {', '.join(remote)} are skipped")


@handle_errors
def convert(
    suite: SuiteArg,
    output: Annotated[
        list[Path] | None,
        output_option("Write the native suite here (default: stdout) (repeatable)."),
    ] = None,
    target: TargetSpec = None,
    allow_outside_root: AllowOutsideRoot = False,
) -> None:
    """Write the native bench suite equivalent to another tool's file (promptfoo, youBencha, ...)."""
    from bench.authoring.convert import convert as to_native
    from bench.suite.target_spec import parse_target
    from bench.vocabulary.errors import ConfigError

    for path in output or []:
        if path.exists() and suite.exists() and path.samefile(suite):
            raise ConfigError(
                f"-o {path}: that is {suite}, the file being converted; "
                "write the native suite to another file"
            )
    text, warnings = to_native(
        suite, load_registry(), None if target is None else parse_target(target), allow_outside_root
    )
    for line in warnings:
        typer.echo(f"warning: {line}", err=True)
    if not output:
        typer.echo(text, nl=False)
        return
    for path in output:
        if path.resolve().parent != suite.resolve().parent:
            typer.echo(
                f"warning: {path} is not in {suite.parent}: paths in the suite are relative to that folder",
                err=True,
            )
        path.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {path}", err=True)


@handle_errors
def evaluators(
    markdown: Annotated[
        bool, typer.Option("--markdown", help="Print the evaluator reference as Markdown.")
    ] = False,
) -> None:
    """List every evaluator type with the distribution that provides it."""
    from bench.report.overview import print_evaluators
    from bench.report.reference import evaluator_reference

    registry = load_registry()
    if markdown:
        typer.echo(evaluator_reference(registry), nl=False)
    else:
        print_evaluators(registry)


@handle_errors
def plugins() -> None:
    """List the installed plugins: distribution, version, hooks, what each registered, failures."""
    from bench.plugins.listing import describe
    from bench.plugins.registry import get_registry

    typer.echo(describe(get_registry()), nl=False)


@handle_errors
def schema() -> None:
    """Print the JSON Schema of a suite file, with every installed evaluator type's settings."""
    from bench.authoring.schema import suite_schema

    typer.echo(_schema_text(suite_schema(load_registry())), nl=False)


def _schema_text(schema: dict[str, Any]) -> str:
    import json

    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


@handle_errors
def init(
    path: Annotated[Path, typer.Argument(help="The suite file to write.")] = Path("suite.yaml"),
    example: Annotated[
        str, typer.Option("--example", help="The template: quickstart or echo.")
    ] = "quickstart",
) -> None:
    """Write a runnable offline suite, its files and bench.schema.json (editors' completion).

    quickstart is the README's tour: the suite, assistant.py (a stand-in model) and
    evaluators/polite.yaml (a definition file). echo needs no file besides the suite.
    """
    from bench.authoring.scaffold import scaffold
    from bench.authoring.schema import suite_schema

    for written in scaffold(path, example, _schema_text(suite_schema(load_registry()))):
        typer.echo(f"wrote {written}")
    typer.echo(f"next: bench run {path}")
