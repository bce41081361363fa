"""A run's key (``id@N``) and its results file are written in one place each: ``RunKey``
(bench/vocabulary/run_key.py) and the run store (bench/vocabulary/store.py). This check reads
the sources of bench and of every plugin in the repository and fails where either is spelt out
again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted([*(ROOT / "packages").glob("*/src/**/*.py"), *(ROOT / "examples").glob("*/src/**/*.py")])
RUN_KEY = Path("packages/bench-core/src/bench/vocabulary/run_key.py")
STORE = Path("packages/bench-core/src/bench/vocabulary/store.py")

#: What spells a run key or the results file out, and the one module allowed to.
INLINE = [
    (re.compile(r"""@\{[^}]*repeat[^}]*\}"""), "a run key built inline (use RunKey(...).key())", RUN_KEY),
    (
        re.compile(r"""\.r?(?:split|partition)\(\s*["']@["']"""),
        "a run key split inline (use RunKey.parse)",
        RUN_KEY,
    ),
    (
        re.compile(r"""["']results\.jsonl["']|\bRESULTS\b"""),
        "the results file named (use results_path)",
        STORE,
    ),
]
#: Splits on ``@`` that are no run key: (module, the line's text).
NOT_RUN_KEYS = {
    (Path("packages/bench-core/src/bench/llm/failures.py"), "host.rpartition('@')"),  # a URL's user@host
    (Path("packages/bench-formats/src/bench_formats/youbencha/posteval.py"), 'parts.netloc.rpartition("@")'),
}


def inline_forms(path: Path, text: str) -> list[str]:
    """``path:line: what`` for each line of ``text`` that spells out a run key or the results file."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if any(path == module and snippet in line for module, snippet in NOT_RUN_KEYS):
            continue
        found += [
            f"{path}:{number}: {what}: {line.strip()}"
            for pattern, what, owner in INLINE
            if path != owner and pattern.search(line)
        ]
    return found


@pytest.mark.parametrize(
    "line",
    [
        'key = f"{result.id}@{result.repeat}"',
        "key = result['id'] if not repeat else f\"{result['id']}@{repeat}\"",
        'base = key.split("@")[0]',
        "distinct = {key.split('@', 1)[0] for key in ids}",
        'base, _, repeat = task_id.rpartition("@")',
        'path = folder / "results.jsonl"',
        "path = folder / RESULTS",
    ],
)
def test_the_check_sees_each_inline_form(line: str) -> None:
    assert inline_forms(Path("bench/somewhere.py"), line)


def test_the_check_passes_what_is_no_run_key() -> None:
    lines = 'label = f"pass@{k}"\nwhere = f"{name}@{public_url(base)}"\n"""Reads ``results.jsonl``."""\n'
    assert inline_forms(Path("bench/somewhere.py"), lines) == []


def test_the_sources_are_all_found() -> None:
    assert RUN_KEY in {p.relative_to(ROOT) for p in SOURCES}
    assert {p.relative_to(ROOT).parts[1] for p in SOURCES} >= {
        "bench-core",
        "bench-agent",
        "bench-formats",
        "bench-ray",
        "plugin-example",
    }


def test_no_run_key_or_results_file_is_spelt_out_outside_its_module() -> None:
    found = [hit for path in SOURCES for hit in inline_forms(path.relative_to(ROOT), path.read_text())]
    assert found == []
