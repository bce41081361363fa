"""``bench view``: a local web viewer over the run store (standard library ``http.server``).

Pages: ``/`` the runs, ``/run/ID`` one run (the report's views, its tasks fetched a page at a
time, updating while the run is in progress), ``/compare?a=..&b=..`` two runs or two targets
task by task, ``/suite/NAME`` a suite's pass rate over its runs. Data: ``/api/runs``,
``/api/runs/ID?page=N&status=..``, ``/api/runs/ID/tasks/KEY``, ``/api/runs/ID/matrix`` (the
matrix's cells), ``/api/runs/ID/charts``, ``/api/suites/NAME``, ``/api/compare?a=..&b=..``
(``/api/compare/task`` with ``&key=``: one task's two records); charts as SVG under ``/charts/``
(``viewer.charts``); with ``--label``, ``/api/labels`` (the rater's labels) and ``POST
/api/runs/ID/labels`` (one label, accepted as ``_Handler._post`` says). The pages hold no data:
their script fetches JSON and sets every string as text; a Content-Security-Policy admits only the
viewer's own script and style. Only run folders directly inside the runs folder (and resolving
inside it) and the viewer's fixed assets are ever served, and only to requests whose ``Host`` names
the viewer (``names_this_viewer``: a page another site serves on a rebound name is refused).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import secrets
import signal
import sys
import threading
import traceback
import webbrowser
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from types import FrameType
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from bench.report.reporters.html import escape_json, script_text
from bench.report.viewer.charts import chart_svg, run_charts_list, suite_history
from bench.report.viewer.data import BrokenRun, NotFound, RunsView
from bench.report.viewer.labels import BadLabel, Labelling, answer_from_page
from bench.vocabulary import jsonio, redact
from bench.vocabulary.errors import ConfigError

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
#: The most bytes a label's body may have.
BODY_MAX = 8192
READ_ONLY = "labelling is off: start bench view with --label to label tasks"
NOT_HERE = "answering is off: a person answers from a viewer listening on loopback (the default --host)"
_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}


def _assets() -> dict[str, tuple[bytes, str]]:
    """The only files the viewer serves besides JSON: its page, style and script."""
    folder = resources.files("bench.report") / "assets"
    style = (folder / "report.css").read_text(encoding="utf-8") + (folder / "viewer.css").read_text(
        encoding="utf-8"
    )
    return {
        "/assets/viewer.css": (style.encode(), _TYPES[".css"]),
        "/assets/viewer.js": (
            script_text(
                folder, "common.js", "diff.js", "matrix.js", "conversation.js", "charts.js", "viewer.js"
            ).encode(),
            _TYPES[".js"],
        ),
        "page": ((folder / "viewer.html").read_bytes(), "text/html; charset=utf-8"),
    }


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (or ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def names_this_viewer(header: str, bound: str) -> bool:
    """Whether a request's ``Host`` header may reach a viewer listening on ``bound``: an address
    (a page served from an address is the viewer's own origin), ``localhost`` or ``bound`` itself,
    on any port (an SSH tunnel changes it). Any other name may be a DNS-rebinding page's."""
    try:
        parts = urlsplit("//" + header)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        return False
    name = parts.hostname
    if not name or parts.netloc != header or "@" in header:
        return False
    if name in ("localhost", bound.lower().strip("[]")):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def exposure_warning(host: str) -> str | None:
    """What ``bench view`` warns when it listens beyond this machine, or None on loopback."""
    if is_loopback(host):
        return None
    return (
        f"warning: --host {host} is not a loopback address: anyone who can reach this machine "
        "on that port can read every run in the runs folder"
    )


def json_body(value: Any) -> bytes:
    """An answer's JSON, redacted and escaped as in the report (no response can be read as markup
    whatever a browser guesses); the run may have been written before one of today's secrets was
    known."""
    return escape_json(redact.current()(jsonio.dumps(value))).encode("utf-8")


class ViewServer(ThreadingHTTPServer):
    """The HTTP server: the runs view and the assets it serves."""

    daemon_threads = True
    request_queue_size = 64  # a page opens several connections at once; the default 5 resets some

    def __init__(
        self, runs_dir: Path, host: str = "127.0.0.1", port: int = 0, labelling: Labelling | None = None
    ) -> None:
        self.view = RunsView(runs_dir)
        self.assets = _assets()
        self.labelling = labelling
        #: What a page must send back to write (a label, an answer): only this server's pages can.
        self.token = labelling.token if labelling is not None else secrets.token_urlsafe(32)
        #: A person answers a waiting conversation only through a viewer on this machine.
        self.answering = is_loopback(host)
        metas = [("bench-label-token", labelling is not None), ("bench-answer-token", self.answering)]
        for name, on in metas:
            if on:
                body, kind = self.assets["page"]
                meta = f'<meta name="{name}" content="{self.token}">\n</head>'
                self.assets["page"] = (body.replace(b"</head>", meta.encode(), 1), kind)
        self.bound = host
        self._matrix_bodies: dict[str, tuple[dict[str, Any], bytes]] = {}
        super().__init__((host, port), _Handler)

    def matrix_body(self, ref: str) -> bytes:
        """The matrix's cells of run ``ref`` as the JSON answer, encoded once until the run's
        records change (a run of 100,000 cells is tens of megabytes to encode)."""
        value = self.view.matrix(ref)
        kept = self._matrix_bodies.get(ref)
        if kept is None or kept[0] is not value:
            kept = (value, json_body(value))
            self._matrix_bodies[ref] = kept
        return kept[1]

    @property
    def url(self) -> str:
        host, port = str(self.server_address[0]), self.server_address[1]
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}/"


class _Handler(BaseHTTPRequestHandler):
    server: ViewServer
    server_version = "bench-view"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged: the terminal shows the URL and the stop message only."""

    def do_GET(self) -> None:
        self._answer(self._get, labels="cannot read the labels", other="cannot read the runs")

    def do_POST(self) -> None:
        if urlsplit(self.path).path.endswith("/answers"):
            self._answer(self._post, labels="cannot save the answer", other="cannot save the answer")
        else:
            self._answer(self._post, labels="cannot write the labels", other="cannot write the labels")

    def _answer(self, handle: Callable[[], None], labels: str, other: str) -> None:
        """Run ``handle`` for a request whose Host names this viewer; every failure is answered,
        alone, with its status and message (``labels``/``other`` begin the message of a labels
        file or a run that cannot be read or written)."""
        try:
            host = self.headers.get("Host", "")
            if not names_this_viewer(host, self.server.bound):
                raise _Refused(HTTPStatus.FORBIDDEN, f"refused: Host {host!r} is not this viewer's")
            handle()
        except _Refused as exc:
            self._json(exc.status, {"error": exc.message})
        except BadLabel as exc:
            self._json(HTTPStatus.BAD_REQUEST, {"error": str(exc)})
        except NotFound as exc:
            self._json(HTTPStatus.NOT_FOUND, {"error": str(exc)})
        except ConfigError as exc:
            self._json(HTTPStatus.CONFLICT, {"error": f"{labels}: {exc}"})
        except (BrokenRun, OSError, ValueError) as exc:
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"{other}: {exc}"})
        except Exception as exc:  # a bug: answered and shown, never a dropped connection
            traceback.print_exc(file=sys.stderr)
            error = f"internal error: {type(exc).__name__}: {exc}"
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": error})

    def _get(self) -> None:
        url = urlsplit(self.path)
        query = dict(parse_qsl(url.query))
        path = url.path
        if path in ("/", "/compare") or path.startswith(("/run/", "/suite/")):
            if path.startswith("/run/"):
                self.server.view.folder(unquote(path[len("/run/") :]))
            body, kind = self.server.assets["page"]
            self._send(HTTPStatus.OK, body, kind)
        elif path in self.server.assets and path.startswith("/assets/"):
            body, kind = self.server.assets[path]
            self._send(HTTPStatus.OK, body, kind)
        elif path.startswith("/api/runs/") and path.endswith("/matrix") and path.count("/") == 4:
            body = self.server.matrix_body(unquote(path.split("/")[3]))
            self._send(HTTPStatus.OK, body, "application/json; charset=utf-8")
        elif path.startswith("/api/"):
            self._json(HTTPStatus.OK, self._api(path[len("/api/") :], query))
        elif path.startswith("/charts/"):
            parts = [unquote(p) for p in path[len("/charts/") :].split("/")]
            svg = chart_svg(self.server.view, parts, query)
            self._send(HTTPStatus.OK, svg.encode("utf-8"), "image/svg+xml; charset=utf-8")
        else:
            raise NotFound(f"no page {path}")

    def _api(self, path: str, query: dict[str, str]) -> Any:
        view = self.server.view
        parts = [unquote(part) for part in path.split("/")]
        if parts == ["runs"]:
            return {"runs_dir": str(view.runs_dir), "runs": view.runs()}
        if len(parts) == 2 and parts[0] == "runs":
            return view.run_page(parts[1], query)
        if len(parts) == 4 and parts[0] == "runs" and parts[2] == "tasks":
            return view.task(parts[1], parts[3])
        if len(parts) == 3 and parts[0] == "runs" and parts[2] == "charts":
            return run_charts_list(view, parts[1])
        if len(parts) == 2 and parts[0] == "suites":
            return suite_history(view, parts[1])
        if parts == ["compare", "task"] and query.get("a") and query.get("b") and query.get("key"):
            return view.compare_task(query["a"], query["b"], query["key"])
        if parts == ["compare"] and query.get("a") and query.get("b"):
            return view.compare(query["a"], query["b"], query)
        if parts == ["labels"]:
            labelling = self.server.labelling
            if labelling is None:
                raise _Refused(HTTPStatus.FORBIDDEN, READ_ONLY)
            return {"rater": labelling.rater, "file": str(labelling.out), "labels": labelling.labels()}
        raise NotFound(f"no data at /api/{path}")

    def _post(self) -> None:
        """One label, refused unless it comes from this server's page: the Host names this viewer
        (DNS rebinding, checked for every request), the page's token is in ``X-Bench-Token`` (a
        header a cross-origin page cannot send without a CORS preflight, which is never granted),
        the body is JSON and small."""
        parts = [unquote(part) for part in urlsplit(self.path).path.split("/")]
        if len(parts) != 5 or parts[:3] != ["", "api", "runs"] or parts[4] not in ("labels", "answers"):
            raise NotFound(f"no data at {urlsplit(self.path).path}")
        if parts[4] == "answers":
            if not self.server.answering:
                raise _Refused(HTTPStatus.FORBIDDEN, NOT_HERE)
            saved = answer_from_page(self.server.view, parts[3], self._checked_body("an answer"))
            self._json(HTTPStatus.OK, saved)
            return
        labelling = self.server.labelling
        if labelling is None:
            raise _Refused(HTTPStatus.FORBIDDEN, READ_ONLY)
        written = labelling.write(self.server.view, parts[3], self._checked_body("a label"))
        self._json(HTTPStatus.OK, {"label": written, "file": str(labelling.out)})

    def _checked_body(self, what: str) -> Any:
        """The request's JSON body, once the request has shown it comes from this server's page."""
        if not hmac.compare_digest(
            self.headers.get("X-Bench-Token", "").encode(), self.server.token.encode()
        ):
            raise _Refused(HTTPStatus.FORBIDDEN, "refused: missing or wrong X-Bench-Token (reload the page)")
        kind = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            raise _Refused(
                HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "refused: Content-Type must be application/json"
            )
        try:
            size = int(self.headers.get("Content-Length", ""))
        except ValueError:
            raise _Refused(HTTPStatus.LENGTH_REQUIRED, "refused: Content-Length is required") from None
        if not 0 <= size <= BODY_MAX:
            raise _Refused(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"refused: {what} is at most {BODY_MAX} bytes"
            )
        try:
            body = json.loads(self.rfile.read(size))
        except RecursionError:
            raise BadLabel("the body is nested too deeply") from None
        except ValueError:
            raise BadLabel("the body is not JSON") from None
        if _deeper_than(body, LABEL_DEPTH):  # Python 3.13's json reads any depth: say the same
            raise BadLabel("the body is nested too deeply")
        return body

    def _json(self, status: HTTPStatus, value: Any) -> None:
        self._send(status, json_body(value), "application/json; charset=utf-8")

    def _send(self, status: HTTPStatus, body: bytes, kind: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)


class _Refused(Exception):
    """A request the server refuses, with its status and the message shown to the user."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


def serve(
    runs_dir: Path,
    host: str,
    port: int,
    run_id: str | None,
    open_browser: bool,
    labelling: Labelling | None = None,
) -> None:
    """Serve until Ctrl-C, then stop cleanly; prints the URL (the port when ``port`` is 0)."""
    if labelling is not None and not is_loopback(host):
        raise ConfigError(
            f"bench view: --label writes labels from this machine only; --host {host} is not loopback"
        )
    warning = exposure_warning(host)
    if warning:
        print(warning, file=sys.stderr)
    view = RunsView(runs_dir)
    first = view.folder(run_id).name if run_id is not None else None  # an unknown run: before listening
    server = ViewServer(runs_dir, host, port, labelling)
    url = server.url + ("" if first is None else "run/" + quote(first))
    print(f"bench view: serving {runs_dir} at {url} (Ctrl-C to stop)", flush=True)
    if labelling is not None:
        print(f"bench view: labels by {labelling.rater} go to {labelling.out}", flush=True)
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    # Ctrl-C and SIGTERM stop it even where the shell started it with SIGINT ignored (a
    # non-interactive shell's background job, a CI runner), where Python installs no handler.
    previous = {sig: signal.signal(sig, _stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.server_close()
    print("bench view: stopped", flush=True)


def _stop(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


#: How deep a label body may nest (a label is a flat object; its note a string).
LABEL_DEPTH = 32


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists and objects more than ``limit`` deep (walked without recursion)."""
    level: list[tuple[Any, int]] = [(value, 1)]
    while level:
        item, depth = level.pop()
        if isinstance(item, (list, dict)):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            level.extend((child, depth + 1) for child in children)
    return False
