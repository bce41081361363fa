"""sacrebleu's ``13a`` tokenizer with its regular-expression pass done in fewer Python steps.

``TokenizerRegexp`` applies four substitutions with templates such as ``r' \\1 '``; before Python
3.12 ``re`` expands a template with Python code for every match, and the first rule matches every
space (0.19 s of the 0.55 s BLEU took for 10,000 one-line pairs). Here the first rule, which
puts spaces around each character of an ASCII class, is one ``str.translate``, and the others
expand their groups in one f-string each: the same text out (``test_sentence_stats.py`` compares
them). A sacrebleu whose rules differ from these keeps its own pass.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, cast

#: sacrebleu's ``TokenizerRegexp`` rules (pattern, template), as this module knows them.
RULES = (
    (r"([\{-\~\[-\` -\&\(-\+\:-\@\/])", r" \1 "),
    (r"([^0-9])([\.,])", r"\1 \2 "),
    (r"([\.,])([^0-9])", r" \1 \2"),
    (r"([0-9])(-)", r"\1 \2 "),
)
#: Each later rule's template as a function of the match (both groups always take part).
_EXPANDED: dict[str, Callable[[re.Match[str]], str]] = {
    r"\1 \2 ": lambda m: f"{m[1]} {m[2]} ",
    r" \1 \2": lambda m: f" {m[1]} {m[2]}",
}


class _RegexpPass:
    """``TokenizerRegexp.__call__`` for ``RULES``."""

    def __init__(self, rules: list[tuple[re.Pattern[str], str]]) -> None:
        spaced = rules[0][0]
        self._spaced = {c: f" {chr(c)} " for c in range(128) if spaced.fullmatch(chr(c))}
        self._subs = [(pattern.sub, _EXPANDED[template]) for pattern, template in rules[1:]]

    def __call__(self, line: str) -> str:
        line = line.translate(self._spaced)
        for sub, expand in self._subs:
            line = sub(expand, line)
        return " ".join(line.split())


def speed_up(tokenizer: Any) -> bool:
    """Give a sacrebleu ``Tokenizer13a`` (one a metric object owns) the faster regexp pass; False,
    and nothing changed, for another tokenizer or rules other than ``RULES``."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_re import TokenizerRegexp

    post = getattr(tokenizer, "_post_tokenizer", None)
    if type(tokenizer) is not Tokenizer13a or type(post) is not TokenizerRegexp:
        return False
    rules = list(post._re)
    known = [(pattern.pattern, pattern.flags, template) for pattern, template in rules]
    if known != [(pattern, re.UNICODE, template) for pattern, template in RULES]:
        return False
    cast(Any, tokenizer)._post_tokenizer = _RegexpPass(rules)  # this tokenizer's own attribute
    return True
