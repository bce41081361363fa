"""Every case of the fault catalogue (docs/reliability.md) has a test named after its ID."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROW = re.compile(r"^\| ([A-Z]\d\d) \|(.*)$", re.MULTILINE)
TEST = re.compile(r"^\s*(?:async )?def test_((?:[a-z]\d\d_)+)", re.MULTILINE)


def _catalogue(pending: bool = True) -> list[str]:
    rows = ROW.findall((ROOT / "docs" / "reliability.md").read_text(encoding="utf-8"))
    return [case for case, rest in rows if pending or "**Pending**" not in rest]


def _named_in_tests() -> set[str]:
    files = [*(ROOT / "tests").rglob("test_*.py"), *(ROOT / "packages").glob("*/tests/**/test_*.py")]
    names = (m for path in files for m in TEST.findall(path.read_text(encoding="utf-8")))
    return {case.upper() for name in names for case in name.split("_") if case}


def test_the_catalogue_lists_each_id_once():
    ids = _catalogue()
    assert len(ids) > 109
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def test_only_cases_waiting_for_a_missing_feature_are_pending():
    assert [i for i in _catalogue() if i not in _catalogue(pending=False)] == ["H07"]


def test_every_catalogue_case_has_a_test_named_by_its_id():
    named = _named_in_tests()  # once: it reads every test file
    missing = [i for i in _catalogue(pending=False) if i not in named]
    assert not missing, f"no test_<id>_... for: {' '.join(missing)}"
