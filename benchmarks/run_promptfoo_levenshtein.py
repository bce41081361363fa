"""promptfoo's ``levenshtein`` assertion on long outputs: the time of one distance, bench's
(rapidfuzz over UTF-16 code units) next to the pure-Python dynamic programme bench used before.

    python benchmarks/run_promptfoo_levenshtein.py [--chars 3000] [--repeat 5]

Two texts of ``--chars`` characters that differ in about one character in ten; best of
``--repeat`` for each. Needs bench-formats.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from bench_formats.promptfoo.checks.text import edit_distance


def python_distance(a: str, b: str) -> int:
    """The dynamic programme bench used before rapidfuzz (UTF-16 code units)."""
    a16 = list(memoryview(a.encode("utf-16-le")).cast("H"))
    b16 = list(memoryview(b.encode("utf-16-le")).cast("H"))
    previous = list(range(len(b16) + 1))
    for i, ca in enumerate(a16, 1):
        current = [i]
        for j, cb in enumerate(b16, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def best(function: Callable[[str, str], int], a: str, b: str, repeat: int) -> tuple[float, int]:
    times, result = [], 0
    for _ in range(repeat):
        start = time.perf_counter()
        result = function(a, b)
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(1)
    a = "".join(rng.choice("abcdefghij é中😀") for _ in range(args.chars))
    b = "".join(c if rng.random() > 0.1 else rng.choice("xyz") for c in a)
    fast, d1 = best(edit_distance, a, b, args.repeat)
    slow, d2 = best(python_distance, a, b, max(1, args.repeat // 5))
    assert d1 == d2, (d1, d2)
    print(f"{args.chars:,} characters each, distance {d1}")
    print(f"rapidfuzz (bench now): {fast * 1e3:9.3f} ms")
    print(f"pure Python (before):  {slow * 1e3:9.3f} ms  ({slow / fast:,.0f}x)")


if __name__ == "__main__":
    main()
