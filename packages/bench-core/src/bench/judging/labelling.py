"""``bench label``: walk a stored run's tasks in the terminal and write human labels.

Keys (single key presses on a terminal, else one per line read): ``p`` pass, ``f`` fail,
``0``-``9`` a score (digit / 9), ``s`` skip, ``n`` add a note (the next line is the note),
``q`` quit. Tasks the rater already labelled in the labels file are skipped, so a walk can be
stopped and resumed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from bench.report.console import plain, plain_block
from bench.scoring.labels import Label, append_label, locked, read_labels

KEYS = "p=pass f=fail 0-9=score s=skip n=note q=quit"


def _show(row: dict[str, Any], echo: Callable[[str], None]) -> None:
    """A task as the rater sees it; everything from the run is untrusted, printed as plain text."""
    echo(f"== task {_line(row.get('id'))} ({_line(row.get('status', '?'))})")
    if row.get("prompt"):
        echo(f"prompt:\n{plain_block(row['prompt']).plain}")
    echo(f"response:\n{plain_block(row.get('response') or row.get('error') or '').plain}")
    for outcome in row.get("evaluators") or []:
        verdict = "error" if outcome.get("error") else ("pass" if outcome.get("passed") else "fail")
        why = outcome.get("error") or outcome.get("reason") or ""
        echo(f"  {_line(outcome.get('name'))}: {verdict} {_line(' '.join(str(why).split()))}")


def _line(text: Any) -> str:
    return plain(text, 2000).plain


def walk(
    rows: dict[str, dict[str, Any]],
    out: Path,
    rater: str,
    keys: Iterator[str],
    echo: Callable[[str], None],
    notes: Iterator[str] | None = None,
) -> int:
    """Label each task of ``rows`` (one result per task id) not yet labelled by ``rater`` in
    ``out``; the number written. A note is read from ``notes`` (default: ``keys``)."""
    notes = keys if notes is None else notes
    with locked(out):  # a viewer labelling into the same file may be rewriting it
        done = {label.task for label in read_labels(out) if label.rater == rater} if out.exists() else set()
    written = 0
    for key, row in rows.items():
        if key in done:
            continue
        _show(row, echo)
        note = ""
        while True:
            echo(f"[{KEYS}]")
            choice = next(keys, "q").strip().lower()
            if choice == "q":
                return written
            if choice == "s":
                break
            if choice == "n":
                echo("note (one line):")
                note = next(notes, "").strip()
                continue
            label = None
            if choice in ("p", "f"):
                label = Label(key, passed=choice == "p", rater=rater, note=note, response=row.get("response"))
            elif len(choice) == 1 and choice.isdigit():
                label = Label(
                    key, score=round(int(choice) / 9, 4), rater=rater, note=note, response=row.get("response")
                )
            if label is None:
                echo(f"unknown key {choice!r}")
                continue
            append_label(out, label)
            written += 1
            break
    return written
