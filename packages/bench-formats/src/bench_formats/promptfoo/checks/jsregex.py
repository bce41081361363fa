"""JavaScript RegExp sources (no flags) compiled with Python's ``re``.

The differences that matter for ``new RegExp(v).test(output)``: named groups are written
``(?<name>…)``/``\\k<name>``, ``\\d``/``\\w``/``\\b`` are ASCII-only, ``$`` matches only at the very
end (Python's also before a final newline) and ``[^]`` matches any character.
"""

from __future__ import annotations

import functools
import re


@functools.lru_cache(maxsize=256)
def compile_js(source: str) -> re.Pattern[str]:
    """Compile a JavaScript pattern; raises ``re.error`` for one JavaScript rejects too."""
    return re.compile(_translate(source), re.ASCII)


def _translate(source: str) -> str:
    out: list[str] = []
    i, n, in_class = 0, len(source), False
    while i < n:
        ch = source[i]
        if ch == "\\" and i + 1 < n:
            nxt = source[i + 1]
            if nxt == "k" and source.startswith("<", i + 2) and not in_class:
                end = source.index(">", i)
                out.append(f"(?P={source[i + 3 : end]})")
                i = end + 1
                continue
            if nxt == "/":
                out.append("/")
            elif nxt == "d" and not in_class:
                out.append("[0-9]")
            else:
                out.append(source[i : i + 2])
            i += 2
            continue
        if in_class:
            if ch == "]":
                in_class = False
            out.append("\\[" if ch == "[" else ch)
        elif ch == "[":
            if source.startswith("[^]", i):
                out.append("[\\s\\S]")
                i += 3
                continue
            in_class = True
            out.append(ch)
            if source.startswith("]", i + 1):  # JavaScript: [] matches nothing
                out[-1] = "(?!)"
                i, in_class = i + 2, False
                continue
        elif ch == "(" and source.startswith("(?<", i) and source[i + 3 : i + 4] not in ("=", "!"):
            out.append("(?P<")
            i += 3
            continue
        elif ch == "$":
            out.append("(?!(?s:.))")
        else:
            out.append(ch)
        i += 1
    return "".join(out)
