"""``code_execution``: run the model's program (and its tests) in bench's sandbox."""

from __future__ import annotations

import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from bench import Evaluator, EvaluatorConfig, EvaluatorError, Result, Sample
from bench.vocabulary import excerpt, loads_strict

# the module running a program as a child with limits (a Config's own field is named sandbox)
from bench.workspace import OfflineRefused, Sandbox, open_sandbox, scratch_folder
from bench.workspace import sandbox as limited

TAIL = 2000


@dataclass(frozen=True)
class Language:
    """How to run a program: the file it is written to and the interpreter (``None``: bench's Python)."""

    suffix: str
    interpreter: str | None


LANGUAGES = {
    "python": Language(".py", None),
    "javascript": Language(".js", "node"),
    "node": Language(".js", "node"),
    "bash": Language(".sh", "bash"),
    "sh": Language(".sh", "sh"),
    "ruby": Language(".rb", "ruby"),
    "perl": Language(".pl", "perl"),
}
_FENCE = re.compile(r"```([\w+-]*)[^\n]*\n(.*?)```", re.DOTALL)


def extract_code(text: str, language: str) -> str:
    """The first fenced block tagged with the language, else the first fenced block, else the text."""
    blocks = _FENCE.findall(text)
    for tag, body in blocks:
        if tag.lower() in (language, {"python": "py", "javascript": "js"}.get(language, language)):
            return str(body)
    return str(blocks[0][1]) if blocks else text


class CodeConfig(EvaluatorConfig):
    """Settings of code_execution (AgentClash's keys plus the sandbox's limits)."""

    language: str = "python"
    """python, javascript (node), bash, sh, ruby or perl."""
    test_code: str | None = None
    """Code appended after the program (asserts, HumanEval-style ``check(...)``)."""
    test_command: str | list[str] | None = None
    """A command to run instead (e.g. ``python -m pytest -q``); the program is in ``main.<ext>`` and
    ``test_code`` in ``test_main.<ext>``. Never run through a shell."""
    extract_code: bool = True
    """Take the first fenced code block of the response (the whole response when there is none)."""
    scoring: Literal["fraction_passed", "all_or_nothing", "pass_at_k"] = "fraction_passed"
    """``fraction_passed``: passed/total tests when the output reports counts (pytest, JSON, JUnit),
    else exit status; ``all_or_nothing``: 1 only when no test failed."""
    pass_threshold: float = Field(default=1.0, ge=0, le=1)
    """Lowest passing score."""
    timeout_ms: int = Field(default=30_000, gt=0)
    """Wall-clock limit for the whole program."""
    cpu_seconds: int = Field(default=10, gt=0)
    """CPU time limit (SIGXCPU)."""
    memory_mb: int = Field(default=512, gt=0)
    """Address-space limit."""
    max_processes: int = Field(default=64, gt=0)
    """Processes the program may run at once (enforced under the namespaces sandbox)."""
    max_file_mb: int = Field(default=16, gt=0)
    """Largest file the program may write."""
    max_output_bytes: int = Field(default=1024 * 1024, gt=0)
    """Captured output cap; the program is stopped when it prints more."""
    require_isolation: bool = False
    """Refuse to run (evaluator error) where only resource limits are available."""
    sandbox: dict[str, Any] | None = None
    """Run in this sandbox instead (``{type: container, image: python:3.12-slim, network: none}``):
    the interpreter and ``test_command`` are looked up in the image, and the container's own
    ``cpus``/``memory`` replace the limits above but ``timeout_ms``."""

    @model_validator(mode="after")
    def _runnable(self) -> CodeConfig:
        if self.scoring == "pass_at_k":
            raise ValueError("scoring pass_at_k needs several samples per task; use repeats instead")
        language = LANGUAGES.get(self.language)
        if language is None:
            raise ValueError(f"unsupported language '{self.language}'; choose from {', '.join(LANGUAGES)}")
        if self.sandbox is not None:
            return self  # the interpreter and the command are the image's
        if language.interpreter and not shutil.which(language.interpreter):
            raise ValueError(f"{language.interpreter} not found: install it to run {self.language} code")
        command = self.argv()
        if command and not shutil.which(command[0]) and command[0] not in ("python", "python3"):
            raise ValueError(f"test_command: {command[0]} not found")
        return self

    def argv(self) -> list[str]:
        if self.test_command is None:
            return []
        return (
            shlex.split(self.test_command) if isinstance(self.test_command, str) else list(self.test_command)
        )

    def limits(self) -> limited.Limits:
        return limited.Limits(
            timeout_s=self.timeout_ms / 1000,
            cpu_s=self.cpu_seconds,
            memory_mb=self.memory_mb,
            processes=self.max_processes,
            file_size_mb=self.max_file_mb,
            output_bytes=self.max_output_bytes,
        )


_COUNTS = re.compile(r"(?i)(\d+)\s+(passed|failed|errors?)\b")


def parse_test_counts(output: str) -> tuple[int, int, int] | None:
    """(passed, failed, errors) reported by a test runner: JSON, JUnit XML, or "N passed" text."""
    text = output.strip()
    if text.startswith("{"):
        try:
            data = loads_strict(text)
        except ValueError:
            data = None
        if isinstance(data, dict) and any(k in data for k in ("passed", "failed", "errors", "error")):
            numbers = [data.get(k, 0) for k in ("passed", "failed")] + [
                data.get("errors", data.get("error", 0))
            ]
            if all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
                return numbers[0], numbers[1], numbers[2]
    if text.startswith("<"):
        import xml.etree.ElementTree as ElementTree

        try:
            root = ElementTree.fromstring(text)
        except ElementTree.ParseError:
            root = None
        if root is not None:
            suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
            total = sum(int(s.get("tests", 0)) for s in suites)
            failed = sum(int(s.get("failures", 0)) for s in suites)
            errors = sum(int(s.get("errors", 0)) for s in suites)
            if total:
                return total - failed - errors, failed, errors
    counts = {"passed": 0, "failed": 0, "errors": 0}
    for number, word in _COUNTS.findall(output):
        counts["errors" if word.lower().startswith("error") else word.lower()] += int(number)
    if sum(counts.values()):
        return counts["passed"], counts["failed"], counts["errors"]
    return None


class CodeExecution(Evaluator[CodeConfig]):
    """Runs the response's code, with optional tests, in a sandbox; passes when it succeeds.

    Each run gets a fresh temporary folder, a separate process group with a wall-clock timeout
    and CPU, memory, process-count and file-size limits, an empty environment and ``stdin`` from
    ``/dev/null``. Run as root where ``unshare`` works, the code also has no network, a private
    ``/tmp`` and an unprivileged user (``isolation: namespaces``); elsewhere only the limits apply
    (``isolation: rlimits-only``), and the result says so. The details keep the exit status and
    the tail of stdout and stderr. At most one program per CPU core runs at a time.
    """

    name = "code_execution"
    aliases = ("code",)
    Config = CodeConfig
    example = """
    name: code-execution-example
    tasks:
      - id: add
        prompt: "Write add(a, b) in Python."
        response: |
          ```python
          def add(a, b):
              return a + b
          ```
        evaluate:
          type: code_execution
          test_code: |
            assert add(2, 3) == 5
            assert add(-1, 1) == 0
          timeout_ms: 10000
    """

    def __init__(self, config: CodeConfig) -> None:
        super().__init__(config)
        #: Where the program runs instead of bench's own sandbox (``sandbox:``).
        self.container: Sandbox | None = None
        if config.sandbox is not None:
            self.container = open_sandbox(config.sandbox, field=("sandbox",))

    def resource_needs(self) -> frozenset[str]:
        """A program run in a sandbox needs what the sandbox needs where it runs (``container``)."""
        return self.needs | (self.container.needs if self.container is not None else frozenset())

    async def evaluate(self, sample: Sample) -> Result:
        config = self.config
        if self.container is not None:
            return await self._evaluate_inside(self.container, sample)
        if config.require_isolation and limited.isolation_level() == "rlimits-only":
            raise EvaluatorError("require_isolation: no namespace sandbox here (needs root and unshare)")
        language = LANGUAGES[config.language]
        code = extract_code(sample.output, config.language) if config.extract_code else sample.output
        with scratch_folder("bench-code-") as workdir:
            try:
                argv, python = self._prepare(workdir, code, language)
                execution = await limited.run(argv, workdir, config.limits(), python=python)
            except OfflineRefused as exc:  # an offline run that cannot keep the program off the network
                raise EvaluatorError(f"{exc}; the program was not run") from None
        return self._score(execution)

    async def _evaluate_inside(self, box: Sandbox, sample: Sample) -> Result:
        """The program in ``box``, its interpreter (``python3`` for Python) and test command the
        image's."""
        config = self.config
        language = LANGUAGES[config.language]
        code = extract_code(sample.output, config.language) if config.extract_code else sample.output
        interpreter = language.interpreter or "python3"
        with scratch_folder("bench-code-") as workdir:
            try:
                argv, _ = self._prepare(workdir, code, language, interpreter=interpreter)
                execution = await limited.run_inside(box, argv, workdir, config.timeout_ms / 1000)
            except OfflineRefused as exc:
                raise EvaluatorError(f"{exc}; the program was not run") from None
        return self._score(execution)

    def _prepare(
        self, workdir: Path, code: str, language: Language, interpreter: str | None = None
    ) -> tuple[list[str], str | None]:
        config = self.config
        main = workdir / f"main{language.suffix}"
        python = limited.python_executable() if language.interpreter is None and not interpreter else None
        if interpreter is None:
            interpreter = limited.interpreter_prefix(python)[1] if python else str(language.interpreter)
        if config.test_command is not None:
            main.write_text(code, encoding="utf-8")
            if config.test_code:
                (workdir / f"test_main{language.suffix}").write_text(config.test_code, encoding="utf-8")
            command = config.argv()
            if language.interpreter is None and command[0] in ("python", "python3"):
                command[0] = interpreter
            return command, python
        program = code if not config.test_code else f"{code.rstrip()}\n\n\n{config.test_code}"
        main.write_text(program, encoding="utf-8")
        return [interpreter, main.name], python

    def _score(self, run: limited.Execution) -> Result:
        config = self.config
        details: dict[str, Any] = {
            "exit_code": run.exit_code,
            "isolation": run.isolation,
            "network": run.network,
            "duration_ms": round(run.duration_ms, 1),
            "stdout": run.stdout[-TAIL:],
            "stderr": run.stderr[-TAIL:],
        }
        if run.signal:
            details["signal"] = run.signal
        if run.timed_out:
            details["timed_out"] = True
        if run.output_truncated:
            details["output_truncated"] = True
        if run.notes:
            details["notes"] = run.notes
        how = run.describe(config.limits())
        if run.notes:
            how += f" ({'; '.join(run.notes)})"
        if run.timed_out or run.signal or run.exit_code is None:
            return Result(False, 0.0, how, details)
        # Test counts are read only from a test runner's output, never from the program's own.
        counts = (
            parse_test_counts(run.stdout + "\n" + run.stderr) if config.test_command is not None else None
        )
        if counts is not None and counts[0] + counts[1] + counts[2]:
            passed, failed, errors = counts
            total = passed + failed + errors
            details.update(passed_tests=passed, failed_tests=failed, error_tests=errors, total_tests=total)
            score = (
                passed / total if config.scoring == "fraction_passed" else float(not failed and not errors)
            )
            reason = f"{passed} of {total} tests passed; {how}"
        else:
            score = 1.0 if run.exit_code == 0 else 0.0
            tail = run.stderr.strip().splitlines()[-1:] if run.exit_code else []
            reason = how + (f": {excerpt(tail[0], 200)}" if tail else "")
        return Result(score >= config.pass_threshold, score, reason, details)
