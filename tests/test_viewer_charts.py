"""``bench view``'s charts: a run's SVG charts and a suite's pass rate over its runs."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.report.viewer.server import CSP, ViewServer

HOSTILE = "</svg><script>alert(1)</script>"


def _write_run(runs: Path, run_id: str, suite: str, started: str, statuses: list[str]) -> None:
    folder = runs / run_id
    folder.mkdir(parents=True)
    counts = {
        k: statuses.count(s) for k, s in (("passed", "passed"), ("failed", "failed"), ("errors", "error"))
    }
    manifest = {"suite": suite, "started_at": started, "status": "finished", "summary": counts}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    records = [
        {
            "id": f"t{i}[{HOSTILE}]",
            "status": status,
            "passed": status == "passed",
            "target": {"type": "echo", "label": HOSTILE},
            "duration_ms": 10.0 * i,
            "evaluators": [
                {"name": "expected", "passed": status == "passed", "score": float(status == "passed")}
            ],
        }
        for i, status in enumerate(statuses)
    ]
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ViewServer]:
    runs = tmp_path / "runs"
    _write_run(runs, "r1", HOSTILE, "2026-11-01T10:00:00", ["passed", "failed", "failed", "failed"])
    _write_run(runs, "r2", HOSTILE, "2026-11-02T10:00:00", ["passed", "passed", "passed", "error"])
    server = ViewServer(runs, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _get(server: ViewServer, path: str) -> tuple[int, str, Any]:
    try:
        with urllib.request.urlopen(server.url.rstrip("/") + path, timeout=10) as response:
            return response.status, response.read().decode("utf-8"), response.headers
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode("utf-8"), exc.headers


def test_a_runs_charts_are_listed_and_served_as_svg_under_the_viewers_policy(server):
    status, body, _ = _get(server, "/api/runs/r2/charts")
    assert status == 200
    charts = json.loads(body)
    assert [c["kind"] for c in charts] == ["columns", "evaluators", "scores", "latency"]
    assert charts[0]["url"] == "/charts/runs/r2/columns.svg"
    assert charts[0]["description"].endswith("75.0% [30.1%, 95.4%] (3/4)")
    status, svg, headers = _get(server, charts[0]["url"])
    assert status == 200
    assert headers["Content-Type"] == "image/svg+xml; charset=utf-8"
    assert headers["Content-Security-Policy"] == CSP
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert not [e for e in root.iter() if e.tag.endswith("script")]
    assert HOSTILE in "".join(root.itertext())


def test_a_chart_a_run_cannot_have_is_not_found_with_why(server):
    status, body, _ = _get(server, "/charts/runs/r2/cost.svg")
    assert (status, json.loads(body)) == (404, {"error": "run r2 has nothing to draw in a cost.svg chart"})
    status, body, _ = _get(server, "/charts/runs/r2/pie.svg")
    assert (status, json.loads(body)) == (404, {"error": "no chart at /charts/runs/r2/pie.svg"})
    status, _, _ = _get(server, "/charts/runs/..%2F..%2Fsecret/columns.svg")
    assert status == 404


def test_a_suites_history_lists_its_runs_and_draws_its_trend(server):
    quoted = urllib.request.quote(HOSTILE, safe="")
    status, body, _ = _get(server, f"/api/suites/{quoted}")
    assert status == 200
    data = json.loads(body)
    assert [(r["run_id"], r["passed"], r["runs"]) for r in data["runs"]] == [("r1", 1, 4), ("r2", 3, 4)]
    assert data["chart"] == f"/charts/suites/{quoted}.svg"
    status, svg, _ = _get(server, data["chart"])
    assert status == 200
    root = ET.fromstring(svg)
    assert root.findtext("{http://www.w3.org/2000/svg}title") == f"Pass rate of suite {HOSTILE} over its runs"
    status, page, _ = _get(server, f"/suite/{quoted}")
    assert status == 200
    assert 'id="suite-chart"' in page


def test_an_unknown_suite_is_not_found(server):
    status, body, _ = _get(server, "/api/suites/nothing")
    assert status == 404
    assert json.loads(body) == {"error": "no run of suite 'nothing' in " + str(server.view.runs_dir)}


def test_the_compare_page_draws_both_runs_pass_rates(server):
    status, svg, headers = _get(server, "/charts/compare.svg?a=r1&b=r2")
    assert status == 200
    assert headers["Content-Type"] == "image/svg+xml; charset=utf-8"
    texts = [t.text for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]
    assert "25.0% [4.6%, 69.9%] (1/4)" in texts
    assert "75.0% [30.1%, 95.4%] (3/4)" in texts
    status, body, _ = _get(server, "/charts/compare.svg?a=r1&b=nope")
    assert (status, json.loads(body)) == (404, {"error": f"no run 'nope' in {server.view.runs_dir}"})
