"""promptfoo's ``levenshtein`` distance: UTF-16 code units, as ``fastest-levenshtein`` counts them.

The distance is rapidfuzz's; each case is compared with the dynamic programme bench used before
(kept here as the reference). That 3,000-character inputs take microseconds, not seconds, is
measured by ``benchmarks/run_promptfoo_levenshtein.py``.
"""

from __future__ import annotations

import random

import pytest

from bench_formats.promptfoo.checks.text import edit_distance


def reference_distance(a: str, b: str) -> int:
    """The Wagner-Fischer programme over UTF-16 code units."""
    a16 = list(memoryview(a.encode("utf-16-le")).cast("H"))
    b16 = list(memoryview(b.encode("utf-16-le")).cast("H"))
    previous = list(range(len(b16) + 1))
    for i, ca in enumerate(a16, 1):
        current = [i]
        for j, cb in enumerate(b16, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


PAIRS = [
    ("", ""),
    ("", "abc"),
    ("hallo werld", "hello world"),
    ("kitten", "sitting"),
    ("café", "cafe"),  # one BMP character differs
    ("cafe\u0301", "café"),  # combining accent: two code units against one
    ("日本語のテキスト", "日本のテキスト"),
    ("😀", ""),  # an astral character is two UTF-16 code units
    ("a😀b", "a😃b"),  # the same high surrogate: one unit differs
    ("𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "Unicode"),
]


@pytest.mark.parametrize(("a", "b"), PAIRS, ids=[f"{a!r}-{b!r}" for a, b in PAIRS])
def test_levenshtein_uses_rapidfuzz_with_the_old_results(a: str, b: str):
    assert edit_distance(a, b) == reference_distance(a, b) == edit_distance(b, a)


def test_levenshtein_matches_the_old_results_on_random_text():
    rng = random.Random(20261128)
    alphabet = "ab c\u00e9\u4e2d\U0001f600\U0001f603"
    for _ in range(200):
        a = "".join(rng.choice(alphabet) for _ in range(rng.randrange(30)))
        b = "".join(rng.choice(alphabet) for _ in range(rng.randrange(30)))
        assert edit_distance(a, b) == reference_distance(a, b), (a, b)


def test_astral_characters_count_two_units_and_a_lone_surrogate_one():
    assert (edit_distance("😀", ""), edit_distance("a😀b", "a😃b"), edit_distance("\ud800", "")) == (2, 1, 1)
