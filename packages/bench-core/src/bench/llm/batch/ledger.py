"""A run's batches, kept durable in the run's folder so a killed run loses none and pays none twice.

``batches/ledger.jsonl`` is appended and synced at each step: the *intent* (a token, the
provider, which requests) before the submit request is sent, the batch *id* right after it is
answered, *collected* once its results are on disk (``batches/TOKEN.jsonl``, written whole and
renamed into place, so a download killed half-way leaves nothing to trust). A run that resumes
reads it back: an intent with no id is looked up at the provider by its token before anything is
submitted again; an id not collected is polled; collected results are answers already.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.vocabulary import redact

LEDGER = "ledger.jsonl"


@dataclass
class Entry:
    """One batch as the ledger knows it."""

    token: str
    provider: str
    #: The request ids it holds (each a request's content key).
    ids: list[str]
    #: Unix time of the intent: a provider without metadata is searched from it on.
    at: float
    batch_id: str | None = None
    collected: bool = False
    #: Who the batch is for: the model and the key's environment variable (for its route).
    route: dict[str, Any] = field(default_factory=dict)


def _whole_lines(path: Path) -> list[str]:
    """The ledger's lines, a last line cut by a kill mid-append cut off the file (dropping it is
    safe: an intent is synced before its submit request, a lost id is looked up by its token, a
    lost ``collected`` downloads the batch again)."""
    data = path.read_bytes()
    whole = data[: data.rfind(b"\n") + 1]
    if len(whole) < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(len(whole))
            os.fsync(fh.fileno())
    return whole.decode("utf-8").splitlines()


class Ledger:
    """The ledger of one run's batches, in ``folder``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.entries: dict[str, Entry] = {}
        path = folder / LEDGER
        if path.exists():
            for line in _whole_lines(path):
                if line.strip():
                    self._apply(json.loads(line))

    def _apply(self, event: dict[str, Any]) -> None:
        kind, token = event["event"], event["token"]
        if kind == "intent":
            self.entries[token] = Entry(
                token, event["provider"], event["ids"], event["at"], route=event["route"]
            )
        elif token in self.entries and kind == "submitted":
            self.entries[token].batch_id = event["batch_id"]
        elif token in self.entries and kind == "collected":
            self.entries[token].collected = True

    def _append(self, event: dict[str, Any]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / LEDGER, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(event, sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self._apply(event)

    def intent(self, token: str, provider: str, ids: list[str], route: dict[str, Any]) -> Entry:
        """Write that a batch of ``ids`` is about to be submitted (before the request is sent)."""
        event = {"event": "intent", "token": token, "provider": provider, "ids": ids, "at": time.time()}
        self._append({**event, "route": route})
        return self.entries[token]

    def submitted(self, token: str, batch_id: str) -> None:
        """Write the provider's id of the batch ``token`` (right after the submit answered)."""
        self._append({"event": "submitted", "token": token, "batch_id": batch_id})

    def collect(self, token: str, rows: list[dict[str, Any]]) -> None:
        """Keep a batch's results (one row per request: ``id`` and its outcome), then say so.

        The file holds them redacted (RELIABILITY H15): an answer that repeats a known secret is
        kept with the secret replaced, as the run's results hold it.
        """
        scrub = redact.current()
        path = self.folder / f"{token}.jsonl"
        partial = path.with_suffix(".part")
        with open(partial, "w", encoding="utf-8") as fh:
            fh.writelines(scrub(json.dumps(row, sort_keys=True)) + "\n" for row in rows)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(partial, path)
        self._append({"event": "collected", "token": token})

    def results(self, token: str) -> dict[str, dict[str, Any]]:
        """A collected batch's outcomes by request id."""
        text = (self.folder / f"{token}.jsonl").read_text(encoding="utf-8")
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        return {row["id"]: row for row in rows}

    def waiting(self) -> list[Entry]:
        """Batches submitted (or only intended) and not collected yet."""
        return [e for e in self.entries.values() if not e.collected]
