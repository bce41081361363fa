"""Secret redaction: the one choke point for everything bench writes or prints.

Secrets are found two ways. By value: the values of environment variables whose names look like
credentials (``*_KEY``, ``*_TOKEN``, ``*_SECRET``, ``*PASSWORD*``, ...) and of every variable bench
sends as a credential whatever its name (``api_key_env: LLM_AUTH``) become
``[REDACTED:NAME]``. By shape: bearer tokens, secret-looking query parameters (``?key=...``) and
passwords in URLs become ``[REDACTED]``. Value replacement is plain ``str.replace`` and the
patterns have no nested repetition, so redaction is linear in the text (RELIABILITY H11).

A value is also known in the escaped forms that quoting it produces (``repr``, JSON, and each of
those inside a JSON line: N14, N32). Text shown shortened goes through :func:`excerpt` or
:func:`quoted`, which redact before they cut: a cut through a secret leaves a piece that no
longer matches it (N13, N31).

One redactor serves a whole command (:func:`current`): result lines, the manifest, reports,
captured files, log records and, through :func:`redacting_output`, every byte printed on
stdout and stderr (progress, summaries, warnings, tracebacks).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal, TextIO

_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)", re.IGNORECASE)
_BEARER = re.compile(r"(?i)\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}")
_QUERY = re.compile(
    r"(?i)([?&](?:api[_-]?key|key|token|access[_-]?token|auth|secret|password|passwd|sig|signature)=)"
    r"[^&\s#'\"<>]+"
)
_URL_PASSWORD = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@'\"]*:)[^/\s@'\"]+(@)")
_API_KEY_ENV = re.compile(r"""\bapi_key_env["']?\s*:\s*["']?([A-Za-z_][A-Za-z0-9_]*)""")
_MIN_LENGTH = 8
# a field that names a credential: `api_key`, `apiKey`, `x-api-key`, `http.request.header.authorization`,
# `access_token`; never `max_tokens` or a task's `key`
_SECRET_FIELD = re.compile(
    r"(?i)(?:^|[._-])(?:x-)?(?:api[_-]?key|apikey|secret(?:[_-]?key)?|client[_-]?secret|password|passwd|"
    r"credentials?|authorization|proxy-authorization|cookie|set-cookie|private[_-]?key|"
    r"(?:access|auth|bearer|refresh|session|id)[_-]?token|token)$"
)
_MARKER = re.compile(r"\[REDACTED(?::[^\]\s]+)?\]")
_MARKER_SPAN = 256  # how far before a cut a marker that it would split may start
ELLIPSIS = "…"


def _forms(value: str) -> set[str]:
    """``value`` as bench may write it: as is or between ``repr``'s quotes (either kind), each of
    those in a JSON string (a JSON quote, a result line), and that again (a quote in a result line)."""

    def in_json(forms: set[str]) -> set[str]:
        return {
            json.dumps(form, ensure_ascii=ascii_only)[1:-1] for form in forms for ascii_only in (True, False)
        }

    forms = {value, repr(value + '"')[1:-2], repr(value)[1:-1]}
    forms |= in_json(forms)
    return forms | in_json(forms)


class Redactor:
    """Replaces known secret values with ``[REDACTED:NAME]`` and secret-shaped text with ``[REDACTED]``."""

    def __init__(self, environ: Mapping[str, str] | None = None, credentials: Iterable[str] = ()) -> None:
        self.environ = os.environ if environ is None else environ
        self.secrets: list[tuple[str, str]] = []
        self._known: dict[str, str] = {}
        self.add(name for name in self.environ if _SECRET_NAME.search(name))
        self.add(credentials)

    def add(self, names: Iterable[str]) -> None:
        """Treat the values of these environment variables as secrets (names that are unset are ignored).

        Each value is also known in the forms quoting writes it in (escaped quotes and
        backslashes, ``\\uXXXX``): result lines and the manifest are redacted as JSON text, and a
        reason may quote a response with ``repr`` or JSON. Surrounding whitespace (a secret read
        from a file ends in a newline) is not part of the secret.
        """
        changed = False
        for name in names:
            value = (self.environ.get(name) or "").strip()
            if len(value) < _MIN_LENGTH or value.isdigit():  # short or numeric: too likely ordinary
                continue
            for form in _forms(value):
                if form not in self._known:
                    self._known[form] = name
                    changed = True
        if changed:
            self.secrets = sorted(self._known.items(), key=lambda item: -len(item[0]))

    def __call__(self, text: str) -> str:
        for value, name in self.secrets:
            if value in text:
                text = text.replace(value, f"[REDACTED:{name}]")
        if "earer" in text or "EARER" in text:
            text = _BEARER.sub(r"\1[REDACTED]", text)
        if "=" in text:
            text = _QUERY.sub(r"\1[REDACTED]", text)
        if "://" in text:
            text = _URL_PASSWORD.sub(r"\1[REDACTED]\2", text)
        return text

    def finds(self, text: str) -> bool:
        """Whether ``text`` holds anything this redactor would replace."""
        return self(text) != text

    def finds_known(self, text: str) -> bool:
        """Whether ``text`` holds the value of a known secret (shapes such as ``Bearer x`` aside)."""
        return any(value in text for value, _ in self.secrets)

    def values(self, data: Any) -> Any:
        """``data`` (JSON-like) with every string redacted."""
        if isinstance(data, str):
            return self(data)
        if isinstance(data, dict):
            return {self(k) if isinstance(k, str) else k: self.values(v) for k, v in data.items()}
        if isinstance(data, (list, tuple)):
            return [self.values(v) for v in data]
        return data


def names_secret(name: str) -> bool:
    """Whether an environment variable's name looks like a credential's (``*_KEY``, ``*_TOKEN``, ...)."""
    return bool(_SECRET_NAME.search(name))


def named(data: Any) -> Any:
    """``data`` (JSON-like) with the text under every field that names a credential (``apiKey``,
    an ``authorization`` header, ``access_token``) replaced by ``[REDACTED]``, whatever its value:
    another tool's file may hold a key bench's environment does not know (RELIABILITY H12)."""
    if isinstance(data, dict):
        return {
            k: "[REDACTED]"
            if isinstance(k, str) and isinstance(v, str) and v and _SECRET_FIELD.search(k)
            else named(v)
            for k, v in data.items()
        }
    if isinstance(data, (list, tuple)):
        return [named(v) for v in data]
    return data


def _cut(text: str, at: int, forward: bool) -> int:
    """``at``, moved off a redaction marker it would split: to the marker's end when the text
    before ``at`` is kept (``forward``), else to its start."""
    for marker in _MARKER.finditer(text, max(0, at - _MARKER_SPAN)):
        if marker.start() >= at:
            break
        if marker.end() > at:
            return marker.end() if forward else marker.start()
    return at


def excerpt(text: str, limit: int, keep: Literal["start", "end"] = "start", ellipsis: str = ELLIPSIS) -> str:
    """``text`` to show in at most about ``limit`` characters: redacted by this command's redactor,
    then, when longer, cut to its start (or its ``end``) with ``ellipsis`` for what was left out.

    Redacting first is the point: a cut through a secret leaves a piece that no longer matches it
    (RELIABILITY N31). A ``[REDACTED:NAME]`` marker is kept whole, never cut through.
    """
    text = current()(text)
    if len(text) <= limit:
        return text
    room = max(0, limit - len(ellipsis))
    if keep == "end":
        return ellipsis + text[_cut(text, len(text) - room, forward=False) :]
    return text[: _cut(text, room, forward=True)] + ellipsis


def quoted(text: str, limit: int = 80) -> str:
    """``text`` quoted for a reason or an error: redacted, then ``repr``'d whole, or, when longer
    than ``limit``, its first and last ``limit // 2`` characters each ``repr``'d around `` … ``.

    The text is redacted before it is quoted and cut, so neither the escapes of ``repr`` nor the
    cut can hide a secret from the redactor (RELIABILITY N31, N32).
    """
    text = current()(text)
    if len(text) <= limit:
        return repr(text)
    half = limit // 2
    head, tail = _cut(text, half, forward=True), _cut(text, len(text) - half, forward=False)
    if head >= tail:  # one marker spans the middle
        return repr(text)
    return repr(text[:head]) + f" {ELLIPSIS} " + repr(text[tail:])


_current: Redactor | None = None


def current() -> Redactor:
    """The redactor of this command (built from the environment on first use)."""
    global _current
    if _current is None:
        _current = Redactor()
    return _current


def refresh(credentials: Iterable[str] = ()) -> Redactor:
    """Start over from the environment as it is now (each command does, as tests change it)."""
    global _current
    _current = Redactor(credentials=credentials)
    return _current


def credential_names(paths: Iterable[Path]) -> set[str]:
    """Variables that suite files name as credentials (``api_key_env: NAME``), whatever their names."""
    names: set[str] = set()
    for path in paths:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            names.update(_API_KEY_ENV.findall(path.read_text(encoding="utf-8")))
    return names


class RedactingFilter(logging.Filter):
    """A logging filter that redacts each record's message (litellm logs request details)."""

    def __init__(self, redactor: Redactor | None = None) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        redact = self.redactor or current()
        record.msg = redact(record.getMessage())
        record.args = None
        if record.exc_info and record.exc_info[1] is not None:
            import traceback

            record.msg += "\n" + redact("".join(traceback.format_exception(*record.exc_info)))
            record.exc_info = None
            record.exc_text = None
        return True


_GUARD = RedactingFilter()


def guard_loggers(names: Iterable[str]) -> None:
    """Redact every record these loggers emit: the filter sits on each logger and on its handlers,
    since a handler made before bench started (litellm's own) writes to the real stderr."""
    for name in names:
        logger = logging.getLogger(name)
        for holder in (logger, *logger.handlers):
            if _GUARD not in holder.filters:
                holder.addFilter(_GUARD)


class _RedactingStream:
    """A text stream that redacts what is written to it and passes everything else through."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(current()(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def redacting_output() -> Iterator[None]:
    """Redact everything printed on stdout and stderr while the block runs."""
    saved = sys.stdout, sys.stderr
    sys.stdout = _RedactingStream(saved[0])
    sys.stderr = _RedactingStream(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
