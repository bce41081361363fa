"""``bench view``: a local web viewer over the run store (standard library ``http.server``).

Pages: ``/`` the runs, ``/run/ID`` one run (the report's views, its tasks fetched a page at a
time, updating while the run is in progress), ``/compare?a=..&b=..`` two runs or two targets
task by task. Data: ``/api/runs``, ``/api/runs/ID?page=N&status=..``, ``/api/runs/ID/tasks/KEY``,
``/api/compare?a=..&b=..``. The pages hold no data: their script fetches JSON and sets every
string as text; a Content-Security-Policy admits only the viewer's own script and style. Only
run folders directly inside the runs folder and the viewer's fixed assets are ever served.
"""

from __future__ import annotations

import ipaddress
import sys
import threading
import webbrowser
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from bench import jsonio
from bench.report.html import escape_json, script_text
from bench.report.view_data import NotFound, RunsView

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}


def _assets() -> dict[str, tuple[bytes, str]]:
    """The only files the viewer serves besides JSON: its page, style and script."""
    folder = resources.files("bench.report") / "assets"
    style = (folder / "report.css").read_text(encoding="utf-8") + (folder / "viewer.css").read_text(
        encoding="utf-8"
    )
    return {
        "/assets/viewer.css": (style.encode(), _TYPES[".css"]),
        "/assets/viewer.js": (script_text(folder, "common.js", "viewer.js").encode(), _TYPES[".js"]),
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


def exposure_warning(host: str) -> str | None:
    """What ``bench view`` warns when it listens beyond this machine, or None on loopback."""
    if is_loopback(host):
        return None
    return (
        f"warning: --host {host} is not a loopback address: anyone who can reach this machine "
        "on that port can read every run in the runs folder"
    )


class ViewServer(ThreadingHTTPServer):
    """The HTTP server: the runs view and the assets it serves."""

    daemon_threads = True

    def __init__(self, runs_dir: Path, host: str = "127.0.0.1", port: int = 0) -> None:
        self.view = RunsView(runs_dir)
        self.assets = _assets()
        super().__init__((host, port), _Handler)

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
        url = urlsplit(self.path)
        query = dict(parse_qsl(url.query))
        path = url.path
        try:
            if path in ("/", "/compare") or path.startswith("/run/"):
                if path.startswith("/run/"):
                    self.server.view.folder(unquote(path[len("/run/") :]))
                body, kind = self.server.assets["page"]
                self._send(HTTPStatus.OK, body, kind)
            elif path in self.server.assets and path.startswith("/assets/"):
                body, kind = self.server.assets[path]
                self._send(HTTPStatus.OK, body, kind)
            elif path.startswith("/api/"):
                self._json(HTTPStatus.OK, self._api(path[len("/api/") :], query))
            else:
                raise NotFound(f"no page {path}")
        except NotFound as exc:
            self._json(HTTPStatus.NOT_FOUND, {"error": str(exc)})
        except (OSError, ValueError) as exc:
            self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"cannot read the runs: {exc}"})

    def _api(self, path: str, query: dict[str, str]) -> Any:
        view = self.server.view
        parts = [unquote(part) for part in path.split("/")]
        if parts == ["runs"]:
            return {"runs_dir": str(view.runs_dir), "runs": view.runs()}
        if len(parts) == 2 and parts[0] == "runs":
            return view.run_page(parts[1], query)
        if len(parts) == 4 and parts[0] == "runs" and parts[2] == "tasks":
            return view.task(parts[1], parts[3])
        if parts == ["compare"] and query.get("a") and query.get("b"):
            return view.compare(query["a"], query["b"], query)
        raise NotFound(f"no data at /api/{path}")

    def _json(self, status: HTTPStatus, value: Any) -> None:
        # Escaped as in the report, so no response can be read as markup whatever a browser guesses.
        body = escape_json(jsonio.dumps(value)).encode("utf-8")
        self._send(status, body, "application/json; charset=utf-8")

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


def serve(runs_dir: Path, host: str, port: int, run_id: str | None, open_browser: bool) -> None:
    """Serve until Ctrl-C, then stop cleanly; prints the URL (the port when ``port`` is 0)."""
    warning = exposure_warning(host)
    if warning:
        print(warning, file=sys.stderr)
    view = RunsView(runs_dir)
    first = view.folder(run_id).name if run_id is not None else None  # an unknown run: before listening
    server = ViewServer(runs_dir, host, port)
    url = server.url + ("" if first is None else "run/" + quote(first))
    print(f"bench view: serving {runs_dir} at {url} (Ctrl-C to stop)", flush=True)
    if open_browser:
        threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    print("bench view: stopped", flush=True)
