"""A self-contained HTML page of one JSON document, shown by a page script (``bench calibrate``'s
and ``bench compare --judge``'s ``-o FILE.html``).

The same approach as the run report (``bench.report.reporters.html``): the document is embedded as JSON in a
``<script type="application/json">`` block, every string from it is set as text by the script, and
a Content-Security-Policy lets only that script run (by its hash) and loads nothing.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from bench.report.reporters.formats import replacing
from bench.report.reporters.html import cut_page, escape_json
from bench.vocabulary import jsonio, redact


def write_page(path: Path, title: str, document: dict[str, Any], script_name: str | tuple[str, ...]) -> None:
    """Write ``document`` as a page that ``assets/<script_name>`` renders (several scripts: in
    order), redacted as every report."""
    before_title, before_data, after = cut_page("page.html", script_name, "title", "data")
    scrub = redact.current()
    with replacing(path) as out:
        out.write(before_title + html.escape(scrub(title)) + before_data)
        out.write(escape_json(scrub(jsonio.dumps(document))) + after)
