"""A self-contained HTML page of one JSON document, shown by a page script (``bench calibrate``'s
and ``bench compare --judge``'s ``-o FILE.html``).

The same approach as the run report (``bench.report.html``): the document is embedded as JSON in a
``<script type="application/json">`` block, every string from it is set as text by the script, and
a Content-Security-Policy lets only that script run (by its hash) and loads nothing.
"""

from __future__ import annotations

import base64
import hashlib
import html
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from bench import jsonio, redact
from bench.report.formats import replacing
from bench.report.html import escape_json, script_text


@cache
def _page(script_name: str) -> tuple[str, str, str]:
    """The page cut where the title and the document go, its style and script inlined."""
    assets = resources.files("bench.report") / "assets"
    template = (assets / "page.html").read_text(encoding="utf-8")
    script = script_text(assets, "common.js", script_name)
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    values = {
        "{style}": (assets / "report.css").read_text(encoding="utf-8"),
        "{script}": script,
        "{script_hash}": f"sha256-{digest}",
    }
    # Cut first, so that nothing in the style or script can be taken for a cut.
    before_title, rest = template.split("{title}")
    before_data, after = rest.split("{data}")
    parts = []
    for part in (before_title, before_data, after):
        for key, value in values.items():
            part = part.replace(key, value)
        parts.append(part)
    return parts[0], parts[1], parts[2]


def write_page(path: Path, title: str, document: dict[str, Any], script_name: str) -> None:
    """Write ``document`` as a page that ``assets/<script_name>`` renders (redacted, as every report)."""
    before_title, before_data, after = _page(script_name)
    scrub = redact.current()
    with replacing(path) as out:
        out.write(before_title + html.escape(scrub(title)) + before_data)
        out.write(escape_json(scrub(jsonio.dumps(document))) + after)
