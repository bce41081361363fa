"""Every ``bench.x.y`` the docs, READMEs and examples name exists where they say."""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEXTS = sorted(
    [
        *ROOT.glob("docs/*.md"),
        *ROOT.glob("*.md"),
        *ROOT.glob("packages/*/README.md"),
        *ROOT.glob("examples/**/*.md"),
    ]
    + [p for p in ROOT.glob("examples/**/*.py") if ".bench" not in p.parts]
)
REFERENCE = re.compile(r"(?<![\w./-])bench(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?![\w/-])")
#: Dotted names that are files, not Python: a run's cache and lock files.
NOT_PYTHON = re.compile(r"\.(yaml|yml|json|jsonl|sqlite3|lock|toml|md|txt|html)$")


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` names something; a name kept for one release with a deprecation resolves."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return _resolves(dotted)


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for name in parts[cut:]:
                value = getattr(value, name)
        except AttributeError:
            return False
        return True
    return False


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_dotted_bench_name_resolves(path):
    names = {m.group(0).rstrip(".") for m in REFERENCE.finditer(path.read_text())}
    missing = sorted(n for n in names if not NOT_PYTHON.search(n) and not resolves(n))
    assert missing == []


def test_the_check_fails_on_a_moved_name():
    assert resolves("bench.llm.client.LLMClient")
    assert resolves("bench.Evaluator")
    assert not resolves("bench.loader.load_suite")
    assert not resolves("bench.llm.LLMJudgeClient")
    assert resolves("bench.Judge")  # moved to bench.llm, kept for one release


#: What code, tests and docs may not point at: a tracker's issue numbers (they are not in the
#: repository) and planning files that live outside it. Cite a docs/ page or a catalogue ID.
OUTSIDE = re.compile(r"\b(?:[Ii]ssue \d+|(?:SCALE|FORMATS|RELIABILITY|DESIGN|STYLE)\.md)\b")
CITING = (
    sorted(
        p
        for pattern in (
            "packages/*/src/**/*.py",
            "packages/*/tests/**/*.py",
            "tests/**/*.py",
            "benchmarks/**/*.py",
        )
        for p in ROOT.glob(pattern)
        if p != Path(__file__)
    )
    + [p for p in TEXTS if p.name != "CHANGELOG.md"]
    + sorted(ROOT.glob("benchmarks/*.md"))
)


def test_no_code_or_doc_points_outside_the_repository():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in CITING
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if OUTSIDE.search(line)
    ]
    assert found == []
