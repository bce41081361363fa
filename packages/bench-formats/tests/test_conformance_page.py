"""docs/formats/conformance.md is what the conformance corpora give today (conformance/page.py)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

PAGE_SCRIPT = Path(__file__).parent / "conformance" / "page.py"


def test_the_conformance_page_is_up_to_date(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    if shutil.which("node") is None:
        pytest.skip(
            "promptfoo's JavaScript cases need Node.js ('node' is not on PATH): the page cannot be checked"
        )
    spec = importlib.util.spec_from_file_location("conformance_page", PAGE_SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    page = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, page)  # its dataclass looks its module up
    spec.loader.exec_module(page)
    monkeypatch.chdir(tmp_path)
    written = page.PAGE.read_text(encoding="utf-8")
    assert written == page.render(tmp_path), f"docs/formats/conformance.md is stale: run {page.REFRESH}"
