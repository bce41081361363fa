"""docs/formats/conformance.md: each tool's conformance corpus and how many rows' verdicts equal the tool's.

    python packages/bench-formats/tests/conformance/page.py     # rewrite the page

tests/test_conformance_page.py renders the same page and fails when the committed one differs.
bench runs each corpus in-process, compared row by row as the corpus's own test compares it
(test_promptfoo_conformance.py, test_openai_evals_conformance.py), but against the tool's
recorded verdicts as they are. promptfoo's cases that run JavaScript need Node.js.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
ROOT = TESTS.parents[2]
PAGE = ROOT / "docs" / "formats" / "conformance.md"
REFRESH = "python packages/bench-formats/tests/conformance/page.py"


@dataclass(frozen=True)
class Case:
    """One case of a corpus: its rows and how many of them bench gives the tool's verdict."""

    name: str
    rows: int
    equal: int
    note: str = ""


def _module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"conformance_{name}", TESTS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def promptfoo_cases(work: Path) -> list[Case]:
    """promptfoo 0.121.20's rows against bench's: ``--target echo`` where promptfoo ran with
    ``--providers echo``, else the config's own providers."""
    import bench
    from bench import ConfigError

    test = _module("test_promptfoo_conformance")
    cases = []
    for case in test.CASES:
        expected = json.loads((test.CORPUS / case / "expected.json").read_text(encoding="utf-8"))
        config = test.CORPUS / case / "promptfooconfig.yaml"
        if expected.get("config_error"):
            try:
                bench.load(config)
            except ConfigError:
                cases.append(Case(case, 0, 0, "refused, as promptfoo refuses it"))
            else:
                cases.append(Case(case, 0, 0, "promptfoo refuses it; bench does not"))
            continue
        target = {"type": "echo"} if "--providers echo" in expected["command"] else None
        with _quiet(), _cwd(test.CORPUS / case), test.graded(case) as served, contextlib.ExitStack() as stack:
            for name, value in served.items():  # a model-graded case: bench's fake server
                stack.enter_context(_env(name, value))
            outcome = bench.run(config, target=target, runs_dir=work / case)
        rows = expected["rows"]
        lines = test._differences(case, rows, list(outcome.report.tasks()))
        differing = {int(m.group(1)) for line in lines if (m := re.match(r"row (\d+) ", line))}
        cases.append(Case(case, len(rows), len(rows) - len(differing)))
    return cases


def openai_evals_cases(work: Path) -> list[Case]:
    """``oaieval``'s per-sample verdicts against bench's, on the same scripted model."""
    test = _module("test_openai_evals_conformance")
    cases = []
    with _env("FAKE_KEY", "sk-fake"), _quiet():
        for registry_file in test.FILES:
            tasks, _ = test.run_bench(registry_file, work / registry_file.stem)
            for recording in test.evals_of(registry_file):
                samples = recording["samples"]
                equal = sum(
                    1
                    for sample_id, sample in samples.items()
                    if sample_id in tasks
                    and tasks[sample_id]["status"] != "error"
                    and test.verdict(tasks[sample_id]) == test.recorded(sample)
                )
                cases.append(Case(recording["eval"], len(samples), equal))
    return cases


def _table(cases: list[Case]) -> list[str]:
    lines = ["| case | rows | verdicts equal |", "| --- | --- | --- |"]
    for case in cases:
        equal = f"{case.equal}" + (f" ({case.note})" if case.note else "")
        lines.append(f"| {case.name} | {case.rows} | {equal} |")
    return lines


def render(work: Path) -> str:
    """The page's text."""
    tools: list[tuple[str, str, str, list[Case]]] = [
        (
            "promptfoo",
            "0.121.20 (npm)",
            "packages/bench-formats/tests/conformance/promptfoo/",
            promptfoo_cases(work / "promptfoo"),
        ),
        (
            "OpenAI evals (`oaieval`)",
            _evals_version(),
            "packages/bench-formats/tests/conformance/openai_evals/",
            openai_evals_cases(work / "openai_evals"),
        ),
    ]
    out = [
        "# Conformance: bench's verdicts beside the original tools'",
        "",
        "<!-- Generated: " + REFRESH + " (tests/test_conformance_page.py checks it). -->",
        "",
        "Each corpus holds files written for another tool and what that tool itself made of them,",
        "recorded by hand with the tool (each corpus's README says how). bench runs the same files and",
        "the tests compare the verdicts row by row: pass or fail, the score, and the split between a",
        "failure and an error (and, for OpenAI evals, the grader's choice and the prompts sent).",
        "A row counts as equal only when bench gives the tool's verdict as recorded.",
        "",
        "| tool | version | corpus | cases | rows | verdicts equal |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for tool, version, corpus, cases in tools:
        rows = sum(c.rows for c in cases)
        equal = sum(c.equal for c in cases)
        out.append(f"| {tool} | {version} | `{corpus}` | {len(cases)} | {rows} | {equal} |")
    for tool, _, corpus, cases in tools:
        out += ["", f"## {tool}", "", f"`{corpus}`", "", *_table(cases)]
    return "\n".join(out) + "\n"


def _evals_version() -> str:
    versions = {
        json.loads(p.read_text(encoding="utf-8"))["evals_version"]
        for p in (HERE / "openai_evals" / "expected").glob("*.json")
    }
    return ", ".join(sorted(versions)) + " (PyPI `evals`)"


@contextlib.contextmanager
def _cwd(folder: Path) -> Iterator[None]:
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


@contextlib.contextmanager
def _env(name: str, value: str) -> Iterator[None]:
    before = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if before is None:
            del os.environ[name]
        else:
            os.environ[name] = before


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """The loaders' warnings (promptfoo's ignored keys, ...) are expected here."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        text = render(Path(work))
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.path.insert(0, str(TESTS))
    main()
