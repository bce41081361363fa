"""scripts/screenshots.py, the generation part (Chromium not run): the pages it photographs are
still made, and the views it clicks through still have what it clicks."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("screenshots", ROOT / "scripts" / "screenshots.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["screenshots"] = module
    spec.loader.exec_module(module)
    return module


def test_the_screenshot_script_makes_every_page_it_photographs(tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("BENCH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("BENCH_SCREENSHOTS_KEY", "sk-fake")
    script = _script()
    shots = script.generate(tmp_path)
    names = [shot.name for shot in shots]
    assert names == [
        *(f"chart-{kind}.png" for kind in ("columns", "evaluators", "scores", "cost", "latency", "trend")),
        "report-matrix-disagree.png",
        "report-diff-cells.png",
        "report-charts.png",
        "view-suite.png",
        "view-run-charts.png",
    ]
    report = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert report.count("<figure class='chart'") == 5
    trend = (tmp_path / "chart-trend.svg").read_text(encoding="utf-8")
    assert trend.count("<circle") == 3  # three runs of the suite
    # The ids the framing pages click must still be in the report's page script.
    ids = set(re.findall(r'getElementById\("([\w-]+)"\)', script.MATRIX + script.DIFF + script.CHARTS))
    assert ids == {"matrix-disagree", "matrix", "matrix-diff", "charts"}
    for name in ids:
        assert f'"{name}"' in report or f'id="{name}"' in report, name
    # Every picture it writes is one docs/reports.md shows.
    page = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    for name in names:
        assert f"images/{name}" in page, name
        picture = ROOT / "docs" / "images" / name
        assert picture.stat().st_size < 200_000, name
