"""A self-contained HTML report: one file that opens from disk, its assets and data inlined.

The run's results are embedded as JSON in ``<script type="application/json">`` blocks, written
task by task from the store; the page's script sets every string from the run as text. A
Content-Security-Policy lets only the page's own script run (by its hash) and loads nothing.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from bench.report.charts.panel import charts_html, run_charts
from bench.report.reporters.formats import replacing
from bench.reporter import Reporter
from bench.vocabulary import jsonio, redact
from bench.vocabulary.models import Usage
from bench.vocabulary.results import EvaluatorOutcome, RunReport, TaskResult

_PLACEHOLDER = re.compile(r"\{(\w+)\}")
# A result field whose value is null, false, {} or [] (the page reads a missing one the same way),
# when it follows a comma: inside a JSON string a quote is always escaped, so `,"` is structure.
_FIELDS = sorted({*TaskResult.model_fields, *EvaluatorOutcome.model_fields, *Usage.model_fields})
_EMPTY_MEMBER = re.compile(rf',"(?:{"|".join(_FIELDS)})":(?:null|false|\{{\}}|\[\])(?=[,}}])')


def _compact(line: str) -> str:
    """A record's JSON text without its empty members: about a third smaller for typical records."""
    return _EMPTY_MEMBER.sub("", line)


def escape_json(text: str) -> str:
    """JSON text made safe inside ``<script>``: ``<``, ``>``, ``&``, U+2028 and U+2029 as ``\\uXXXX``.

    Those characters appear in JSON only inside strings, where the escape means the same.
    """
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def script_text(assets: Any, *names: str) -> str:
    """The page scripts joined in order (``common.js`` first: the others build on it)."""
    return "\n".join((assets / name).read_text(encoding="utf-8") for name in names)


@cache
def cut_page(template: str, script: str | tuple[str, ...], *cuts: str) -> tuple[str, ...]:
    """``assets/<template>`` cut where each of ``cuts`` goes (``{title}``, ...), with the style,
    ``common.js`` + ``script`` (one asset or several, in order) and the script's CSP hash inlined
    in every part."""
    assets = resources.files("bench.report") / "assets"
    text = (assets / template).read_text(encoding="utf-8")
    code = script_text(assets, "common.js", *((script,) if isinstance(script, str) else script))
    # The CSP admits the page script by this hash: it covers exactly the text inside <script>.
    digest = base64.b64encode(hashlib.sha256(code.encode("utf-8")).digest()).decode("ascii")
    values = {
        "style": (assets / "report.css").read_text(encoding="utf-8"),
        "script": code,
        "script_hash": f"sha256-{digest}",
    }
    # Cut the template first, so that nothing in the style or script can be taken for a cut.
    parts = []
    for cut in cuts:
        before, text = text.split("{" + cut + "}")
        parts.append(before)
    parts.append(text)
    return tuple(_PLACEHOLDER.sub(lambda m: values[m[1]], part) for part in parts)


class HtmlReporter(Reporter):
    """The run's summary, statistics and every task, browsable offline in one HTML file."""

    name = "html"
    description = (
        "one self-contained HTML page: summary, statistics, tasks filtered and sorted, each task whole"
    )

    def write(self, report: RunReport, path: Path) -> None:
        before_title, before_charts, before_run, before_tasks, after = cut_page(
            "report.html",
            ("diff.js", "matrix.js", "conversation.js", "report.js"),
            *("title", "charts", "run", "tasks"),
        )
        title = html.escape(redact.current()(f"bench: {report.suite}"))
        run_json = escape_json(redact.current()(jsonio.dumps(report.head())))
        with replacing(path) as out:  # a store that fails while read is a report not written
            charts = redact.current()(charts_html(run_charts(report.tasks())))
            out.write(before_title + title + before_charts + charts + before_run + run_json + before_tasks)
            for i, line in enumerate(report.lines()):
                out.write(("," if i else "") + "\n" + escape_json(_compact(line)))
            out.write(after)
