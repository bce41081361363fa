"""The Porter stemmer of the ``natural`` npm package (8.1.1, ``lib/natural/stemmers/porter_stemmer.js``,
MIT, Copyright (c) 2011 Chris Umbel), which promptfoo's ``meteor`` uses, ported line by line: it is
not quite the published algorithm (nltk's stems differ), so its quirks are kept."""

from __future__ import annotations

import re
from collections.abc import Callable

Rule = tuple[str, str, str]


def _groups(token: str) -> str:
    token = re.sub(r"[^aeiouy]+y", "CV", token)
    return re.sub(r"[^V]+", "C", re.sub(r"[aeiou]+", "V", token))


def _chars(token: str) -> str:
    token = re.sub(r"[^aeiouy]y", "CV", token)
    return re.sub(r"[^V]", "C", re.sub(r"[aeiou]", "V", token))


def _measure(token: str | None) -> float:
    if not token:
        return -1
    return len(re.sub(r"V$", "", re.sub(r"^C", "", _groups(token)), count=1)) / 2


def _replace(token: str, suffix: str, replacement: str) -> str | None:
    """``attemptReplace`` with a string pattern: the suffix replaced, else None."""
    if token.endswith(suffix):
        return token[: len(token) - len(suffix)] + replacement
    return None


def _patterns(token: str, rules: list[Rule], threshold: float | None) -> str:
    """``attemptReplacePatterns``: the measure is taken on the original token, the replacement
    made on the token as the earlier rules left it."""
    replacement = token
    for suffix, stripped, new in rules:
        if threshold is None or _measure(_replace(token, suffix, stripped)) > threshold:
            replacement = _replace(replacement, suffix, new) or replacement
    return replacement


def _regex(token: str, pattern: str, parts: list[int], minimum: float) -> str | None:
    found = re.match(pattern, token)
    result = "".join(found.group(i) for i in parts) if found else ""
    return result if _measure(result) > minimum else None


def _step1a(token: str) -> str:
    if re.search(r"(ss|i)es$", token):
        return re.sub(r"(ss|i)es$", r"\1", token, count=1)
    if token[-1:] == "s" and token[-2:-1] != "s" and len(token) > 2:
        return re.sub(r"s?$", "", token, count=1)
    return token


def _step1b(token: str) -> str:
    if token[-3:] == "eed":
        if _measure(token[:-3]) > 0:
            return re.sub(r"eed$", "ee", token, count=1)
        return token
    if not re.search(r"(ed|ing)$", token):
        return token
    stem = re.sub(r"(ed|ing)$", "", token, count=1)
    if not stem or "V" not in _groups(stem):
        return token
    result = _patterns(stem, [("at", "", "ate"), ("bl", "", "ble"), ("iz", "", "ize")], None)
    if result != stem:
        return result
    if re.search(r"([^aeiou])\1$", stem) and re.search(r"[^lsz]$", stem):
        return re.sub(r"([^aeiou])\1$", r"\1", stem, count=1)
    if _measure(stem) == 1 and _chars(stem)[-3:] == "CVC" and re.search(r"[^wxy]$", stem):
        return stem + "e"
    return stem


def _step1c(token: str) -> str:
    groups = _groups(token)
    if token[-1:] == "y" and "V" in groups[:-1]:
        return re.sub(r"y$", "i", token, count=1)
    return token


_STEP2: list[Rule] = [
    (suffix, "", new)
    for suffix, new in [
        ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"),
        ("abli", "able"), ("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"),
        ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"), ("ator", "ate"), ("alism", "al"),
        ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"), ("aliti", "al"), ("iviti", "ive"),
        ("biliti", "ble"), ("logi", "log"),
    ]
]  # fmt: skip
_STEP3: list[Rule] = [
    ("icate", "", "ic"), ("ative", "", ""), ("alize", "", "al"), ("iciti", "", "ic"), ("ical", "", "ic"),
    ("ful", "", ""), ("ness", "", ""),
]  # fmt: skip
_STEP4 = r"^(.+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)$"


def _step4(token: str) -> str:
    return _regex(token, _STEP4, [1], 1) or _regex(token, r"^(.+?)(s|t)(ion)$", [1, 2], 1) or token


def _step5a(token: str) -> str:
    m = _measure(re.sub(r"e$", "", token, count=1))
    cvc = _chars(token)[-4:][:3] == "CVC" and re.search(r"[^wxy].$", token) is not None
    if m > 1 or (m == 1 and not cvc):
        token = re.sub(r"e$", "", token, count=1)
    return token


def _step5b(token: str) -> str:
    return re.sub(r"ll$", "l", token, count=1) if _measure(token) > 1 else token


_STEPS: list[Callable[[str], str]] = [
    _step1a,
    _step1b,
    _step1c,
    lambda t: _patterns(t, _STEP2, 0),
    lambda t: _patterns(t, _STEP3, 0),
    _step4,
    _step5a,
    _step5b,
]


def stem(token: str) -> str:
    """``PorterStemmer.stem``: a word of fewer than 3 characters stays as it is."""
    if len(token) < 3:
        return token
    token = token.lower()
    for step in _STEPS:
        token = step(token)
    return token
