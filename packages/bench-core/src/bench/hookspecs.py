"""The hooks a bench plugin implements; each docstring is that hook's reference.

A plugin is a module named by an entry point in the ``bench`` group::

    [project.entry-points.bench]
    my_plugin = "my_package.plugin"

and implements any of the hooks below with ``@hookimpl`` (``from bench import hookimpl``). Each
hook receives a ``register`` callback; call it once per class the plugin provides, with the class
or with its name and import path (``register("shouting", "my_package.checks:Shouting")``): the
second form imports the class on first use, so ``bench`` does not import every plugin's every
class at start-up (``Register``). bench calls
every plugin's hook with a ``register`` of its own, so it knows which distribution registered
what: ``bench plugins`` lists it, and a name registered by two distributions is reported with
both when a suite uses it. A function marked ``@hookimpl`` whose name is no hook below is an
error naming the nearest hook. docs/plugins.md has one section per hook, checked against these
signatures by bench's tests.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeAlias, TypeVar

import pluggy

from bench.evaluator import Evaluator
from bench.executor import Executor
from bench.importer import RegisterImporter as RegisterImporter  # the importers hook's, beside the others
from bench.reporter import Reporter
from bench.suite_loader import SuiteLoader
from bench.target import Target
from bench.workspace.sandboxes import RegisterSandbox as RegisterSandbox  # the sandboxes hook's

hookspec = pluggy.HookspecMarker("bench")
hookimpl = pluggy.HookimplMarker("bench")

_Registered = TypeVar("_Registered", contravariant=True)


class Register(Protocol[_Registered]):
    """A hook's ``register``: ``register(cls)``, or ``register(name, "module:Class")``.

    The second form imports the class only when a suite (or command) first looks the name up, so
    a plugin's hook module need not import every class it provides: bench starts faster. The
    class is checked then as ``register(cls)`` checks it, and must answer to ``name`` (its
    ``name`` or one of its ``aliases``; register each alias the same way). A path that cannot be
    imported, or names a class that fails the checks, is recorded as a failure of the plugin
    when it is looked up (``bench plugins`` looks up every name), and the lookup raises it.

    ``infer_from=`` (with a name and path) declares the class's ``infer_from``, so that a mapping
    without ``type:`` need not import the class to learn that it claims none of its keys; the
    declaration is checked when the class is imported.
    """

    def __call__(
        self,
        cls: type[_Registered] | str,
        path: str | None = None,
        /,
        *,
        infer_from: tuple[str, ...] | None = None,
    ) -> None: ...


RegisterEvaluator: TypeAlias = Register[Evaluator[Any]]
"""The ``register`` of ``bench_register_evaluators``: an evaluator class, or a name and its path."""
RegisterTarget: TypeAlias = Register[Target[Any]]
"""The ``register`` of ``bench_register_targets``: a target class, or a name and its path."""
RegisterReporter: TypeAlias = Register[Reporter]
"""The ``register`` of ``bench_register_reporters``: a reporter class, or a name and its path."""
RegisterSuiteLoader: TypeAlias = Register[SuiteLoader]
"""The ``register`` of ``bench_register_suite_loaders``: a suite loader class, or a name and its
path."""
RegisterExecutor: TypeAlias = Register[Executor]
"""The ``register`` of ``bench_register_executors``: an executor class, or a name and its path."""


@hookspec
def bench_register_evaluators(register: RegisterEvaluator) -> None:
    """Register evaluator types: what a suite names in ``evaluate: {type: NAME, ...}``.

    Parameters:
        register (``RegisterEvaluator = Register[Evaluator[Any]]``): call it once
            per class. The class subclasses ``bench.Evaluator``, sets ``name`` (and optionally
            ``aliases``, a tuple of other names), a ``Config`` model (a subclass of
            ``bench.EvaluatorConfig``; its fields are the settings), and implements
            ``evaluate(self, sample) -> bench.Result`` (plain or ``async``).

    ``register("name", "module:Class")`` registers the same class by name and import path,
    imported when a suite first uses the name (``Register``); each alias is registered the same
    way. The plugin must register classes, not instances: bench makes one instance per evaluator
    written in a suite. A name (or alias) is letters, digits and ``_ . : -``, starting with a
    letter. Something that is not a subclass of ``bench.Evaluator``, or a name of another form,
    is skipped and recorded as a failure of the plugin naming the distribution (a warning on
    every command); the plugin's other classes stay registered. A name that another
    distribution registers too is a clash: the suites that use it fail with a ``PluginError``
    naming both distributions, the others run. Any other exception
    raised by the hook is recorded as a failure of the plugin (a warning on every command);
    what it registered before that stays registered.

    Example::

        from bench import Evaluator, Result, Sample, hookimpl


        class Shouting(Evaluator):
            \"\"\"Passes when the output is in upper case.\"\"\"

            name = "shouting"

            def evaluate(self, sample: Sample) -> Result:
                loud = sample.output.isupper()
                return Result(passed=loud, reason="upper case" if loud else "not upper case")


        @hookimpl
        def bench_register_evaluators(register):
            register(Shouting)
    """


@hookspec
def bench_register_targets(register: RegisterTarget) -> None:
    """Register target types (systems under test): what a suite names in ``target: {type: NAME}``.

    Parameters:
        register (``RegisterTarget = Register[Target[Any]]``): call it once per
            class. The class subclasses ``bench.Target``, sets ``name`` and optionally a ``Config``
            model (a subclass of ``bench.TargetConfig``; the suite's other ``target:`` fields;
            subclass ``bench.Target[ThatConfig]`` and ``self.config`` is typed as it), and
            implements ``async respond(self, task: bench.Task) -> bench.Response``; ``open`` and
            ``close`` (both async) run once before the first and after the last task.

    The plugin must register classes: bench makes one instance per run, with the validated
    config and the suite's context. ``respond`` raises ``bench.TargetError`` for a failure the
    user should see as that task's error. Misuse (not a ``bench.Target`` subclass, an invalid
    name, a name clash, an exception in the hook) is reported as for
    ``bench_register_evaluators``.

    Example::

        from bench import Response, Target, Task, hookimpl


        class Reverse(Target):
            \"\"\"Answers each prompt with its text reversed.\"\"\"

            name = "reverse"

            async def respond(self, task: Task) -> Response:
                return Response(output=task.text[::-1])


        @hookimpl
        def bench_register_targets(register):
            register(Reverse)
    """


@hookspec
def bench_register_reporters(register: RegisterReporter) -> None:
    """Register report writers: what the user names in ``bench run SUITE --report NAME=PATH``.

    Parameters:
        register (``RegisterReporter = Register[Reporter]``): call it once per
            class. The class subclasses ``bench.Reporter``, sets ``name`` (and optionally a
            one-line ``description``, and ``extensions``: the file extensions ``bench run -o
            FILE`` picks it for, e.g. ``(".count",)``; bench's own extensions stay its own) and
            implements ``write(self, report: bench.RunReport, path: pathlib.Path) -> None``.

    bench makes the instance (no arguments) and calls ``write`` once, after the run, with the
    finished report; ``write`` replaces what is at ``path``. ``report.tasks()`` streams the
    task results as dicts, so a reporter need not hold a large run in memory. Misuse is
    reported as for ``bench_register_evaluators``; a clash fails the runs that ask for that
    reporter.

    Example::

        from pathlib import Path

        from bench import Reporter, RunReport, hookimpl


        class PassCount(Reporter):
            \"\"\"Writes one line: tasks passed / tasks run.\"\"\"

            name = "pass-count"
            extensions = (".count",)

            def write(self, report: RunReport, path: Path) -> None:
                path.write_text(f"{report.summary.passed}/{report.summary.total}\\n")


        @hookimpl
        def bench_register_reporters(register):
            register(PassCount)
    """


@hookspec
def bench_register_suite_loaders(register: RegisterSuiteLoader) -> None:
    """Register readers of suite files in other formats than bench's YAML.

    Parameters:
        register (``RegisterSuiteLoader = Register[SuiteLoader]``): call it once
            per class. The class subclasses ``bench.SuiteLoader``, sets ``name`` and optionally
            ``priority`` (default 10; bench's own YAML loader has 0), and implements
            ``claims(self, path) -> bool`` and ``load(self, path) -> bench.YamlDocument``.

    For each suite file bench asks the loaders in order of falling ``priority`` and the first
    whose ``claims(path)`` is true reads it. ``load`` returns a ``bench.YamlDocument(path, data,
    root)`` whose ``data`` is a native suite mapping (what bench's YAML would hold); ``root``
    is the YAML node tree when there is one, else ``None`` (errors then name the file and field
    but no line). Raise ``bench.ConfigError(message, file=path)`` for a file that cannot be
    read. Misuse is reported as for ``bench_register_evaluators``; a clash fails the suites
    that any of the clashing loaders claims. Optionally ``declines(self, path)`` returns
    ``(nearness, reason)`` for a file that looks like the format but is not one (nearness in
    0..1, say the share of the format's telltale keys present), else ``None``: when no loader
    reads a file, bench names the loaders it tried and the nearest one's reason.

    A format with a step after each task (a script fed the task's results) sets ``after_task:
    {command: [...], env: {...}, timeout: S}`` in the mapping: bench runs it in the task's
    workspace once the task is decided, with ``BENCH_RESULT`` naming the result's JSON, time-limited
    and killed with bench; it cannot change the result (docs/plugins.md, "A step after each task").

    Example::

        from pathlib import Path

        from bench import SuiteLoader, YamlDocument, hookimpl


        class LinesLoader(SuiteLoader):
            \"\"\"A ``.lines`` file: one prompt per line; each answer must repeat it.\"\"\"

            name = "lines"

            def claims(self, path: Path) -> bool:
                return path.suffix == ".lines"

            def load(self, path: Path) -> YamlDocument:
                lines = [line for line in path.read_text().splitlines() if line.strip()]
                tasks = [
                    {"id": f"line-{i}", "prompt": line, "evaluate": {"expected": line}}
                    for i, line in enumerate(lines, 1)
                ]
                return YamlDocument(path, {"target": {"type": "echo"}, "tasks": tasks}, None)


        @hookimpl
        def bench_register_suite_loaders(register):
            register(LinesLoader)
    """


@hookspec
def bench_register_executors(register: RegisterExecutor) -> None:
    """Register executors: what runs a suite's tasks, named in ``bench run SUITE --executor NAME``.

    An executor exists to run tasks somewhere other than the ``local`` event loop (a cluster of
    worker processes or machines) with the same verdicts. bench-core's session still opens the
    run store, selects what is left to run on ``--resume``, writes the manifest, handles Ctrl-C
    and reports; the executor only runs the tasks it is given.

    Parameters:
        register (``RegisterExecutor = Register[Executor]``): call it once per
            class. The class subclasses ``bench.Executor``, sets ``name`` (and optionally a
            one-line ``description``) and implements ``async run(self, job: bench.Job, sink:
            bench.Sink) -> None``; ``async open(self, job)`` (before the manifest is written:
            start workers, raise ``bench.ConfigError`` for a set-up that cannot run) and ``async
            close(self)`` (always, after the run) are optional.

    bench makes one instance per run with the run's ``bench.ExecutorSettings`` (``--workers``,
    ``--chunk``, ``--address``, ``--executor-option KEY=VALUE``, concurrency, cache settings and
    ``suite_args``, the arguments that load the same plan on a worker). ``run`` must hand every
    finished result to the sink exactly once: ``sink.record(result)`` for a ``bench.TaskResult``
    made in this process, ``sink.land(line, status, stats)`` for one made elsewhere
    (``bench.distributed.serialize_result(result)`` and ``bench.distributed.statistics_row(result,
    repeats)``), never to the store directly. ``job.keys()`` (or ``job.tasks()``) are the runs to
    do, in plan order. ``interrupt()`` is called from a signal handler: stop starting tasks; results
    never landed run again on ``--resume``. Set ``self.stopped`` to say why the run stopped early.
    Import heavy libraries inside ``open``, not at module level: every ``bench`` command loads the
    plugin. Misuse (not a ``bench.Executor`` subclass, an invalid name, a name clash, an exception
    in the hook) is reported as for ``bench_register_evaluators``; a clash fails the runs that ask
    for that executor.

    A new executor usually reuses ``bench.distributed.LocalExecutor`` to run the tasks it is
    handed (bench-ray's workers do, one chunk at a time).

    Example::

        import dataclasses

        from bench import ExecutorSettings, hookimpl
        from bench.distributed import LocalExecutor


        class Serial(LocalExecutor):
            \"\"\"The local executor, one task at a time whatever --concurrency says.\"\"\"

            name = "serial"
            description = "one task at a time, in this process"

            def __init__(self, settings: ExecutorSettings) -> None:
                super().__init__(dataclasses.replace(settings, concurrency=1))


        @hookimpl
        def bench_register_executors(register):
            register(Serial)
    """


@hookspec
def bench_register_importers(register: RegisterImporter) -> None:
    """Register importers: readers of another tool's results that ``bench import FILE`` uses.

    Parameters:
        register (``RegisterImporter``, as ``Register[Importer]``): call it once per
            class. The class subclasses ``bench.importer.Importer``, sets ``name`` (and optionally a
            one-line ``description`` and ``priority``, default 10; bench's own results JSONL
            importer has 0) and implements ``claims(self, source: ImportSource) -> bool``
            and ``read(self, source: ImportSource) -> ImportedRun``; these names, and the
            others below, come from ``bench.importer``.

    bench asks the importers in order of falling ``priority``; the first whose ``claims`` is
    true reads the file. Decide from the content, never from the name alone:
    ``source.document()`` is the file's JSON value (a ``JsonLines`` list for JSON Lines,
    None for neither), ``source.head`` its first bytes and ``source.archive()`` the zip archive
    it is. ``read`` returns the tasks as ``ImportedTask`` (its ``status`` the tool's
    verdict, None when it gave none; its ``imported`` the tool's own fields) and raises
    ``bench.ConfigError(message, file=path)`` for a file it cannot read. bench writes the run
    to the run store, the manifest's ``source`` recording the importer, the file and the
    run's ``source``. Misuse is reported as for ``bench_register_evaluators``; a clash fails
    the imports that the clashing importers claim.

    Example::

        from bench import Response, hookimpl
        from bench.importer import ImportedRun, ImportedTask, Importer, ImportSource


        class AnswersImporter(Importer):
            \"\"\"A JSON object ``{"answers": {"question": "answer", ...}}``, no verdicts.\"\"\"

            name = "answers"

            def claims(self, source: ImportSource) -> bool:
                document = source.document()
                return isinstance(document, dict) and set(document) == {"answers"}

            def read(self, source: ImportSource) -> ImportedRun:
                answers = source.document()["answers"]
                tasks = [
                    ImportedTask(id=f"q{i}", prompt=q, response=Response(output=a))
                    for i, (q, a) in enumerate(answers.items(), 1)
                ]
                return ImportedRun(suite="answers", tasks=tasks, source={"tool": "answers"})


        @hookimpl
        def bench_register_importers(register):
            register(AnswersImporter)
    """


@hookspec
def bench_register_sandboxes(register: RegisterSandbox) -> None:
    """Register sandbox types: where a ``command`` target runs, named in ``sandbox: {type: NAME}``.

    Parameters:
        register (``RegisterSandbox``, as ``Register[Sandbox]``): call it once per class, or
            with a name and the class's import path. The class subclasses
            ``bench.workspace.Sandbox``, sets ``name``, a ``Config`` model (a subclass of
            ``bench.workspace.SandboxConfig``; its fields are the settings beside ``type`` and
            ``timeout``) and implements
            ``command(self, run: SandboxRun) -> list[str]``:
            the host command that runs ``run.argv`` inside, in ``run.workdir``, with
            ``run.env`` as its whole environment and ``run.mounts`` (host folders and where
            they appear inside) as the only host files it sees.

    ``unavailable(self)`` says why the sandbox cannot run on this machine (checked before the
    first task: the run stops with that message); ``async stop(self, run)`` removes what the
    command left (always called); ``workspace_path`` and ``io_path`` say where the task's
    workspace and bench's own files appear inside (None: at their host paths, for a sandbox
    that shares the host's file system); ``offline_refusal(self)`` says why an offline run may
    not use it (by default, unless its ``network`` property is ``none``: the run is refused
    before its first task). bench-core registers ``container`` (Podman or
    Docker); a plugin brings Kubernetes, Modal or E2B the same way. Misuse is reported as for
    ``bench_register_evaluators``; a clash fails the runs that ask for that sandbox.

    Example::

        import shutil

        from bench import hookimpl
        from bench.workspace import Sandbox, SandboxRun


        class Offline(Sandbox):
            \"\"\"The host's files, but no network at all: a new network namespace.\"\"\"

            name = "offline"
            workspace_path = None  # the host's paths, unchanged
            io_path = None

            @property
            def network(self) -> str:
                return "none"  # so an offline run (--offline) may use it

            def unavailable(self) -> str | None:
                return None if shutil.which("unshare") else "sandbox offline needs unshare"

            def command(self, run: SandboxRun) -> list[str]:
                env = [f"{key}={value}" for key, value in run.env.items()]
                offline = ["unshare", "--map-root-user", "--net"]
                return [*offline, "env", "-i", "-C", run.workdir, *env, *run.argv]


        @hookimpl
        def bench_register_sandboxes(register):
            register(Offline)
    """
