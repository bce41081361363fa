"""How ``ModelBasedClassify`` asks for a choice and reads it.

As ``evals/elsuite/modelgraded/classify_utils.py`` does.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence

#: What ``get_choice`` returns when no line of the grader's answer names a choice.
INVALID = "__invalid__"

#: The instruction appended to the grading prompt for the eval's ``eval_type`` argument.
ANSWER_PROMPTS = {
    "classify": (
        "Answer the question by printing only a single choice from {choices} (without quotes or "
        "punctuation) corresponding to the correct answer with no other text."
    ),
    "classify_cot": (
        "First, answer by printing a single choice from {choices} (without quotes or punctuation) "
        "corresponding to the correct answer. Then, from the next line, explain your reasonings "
        "step by step."
    ),
    "cot_classify": (
        "First, write out in a step by step manner your reasoning to be sure that your conclusion "
        "is correct. Avoid simply stating the correct answer at the outset. Then print only a "
        "single choice from {choices} (without quotes or punctuation) on its own line "
        "corresponding to the correct answer. At the end, repeat just the answer by itself on a "
        "new line.\n\nReasoning:"
    ),
    "cot_classify_jp": (
        "まず、一歩一歩あなたの推論を書き出してください。単に正しい答えを最初に述べることを避けてください。"
        "次に、{choices}（引用符や句読点なし）から正しい答えに対応する1つの選択肢を単独の行に書きだしてください。"
        "最後に、答えだけを新しい行に繰り返してください。\n\n推論："
    ),
}

#: ``match_fn``: (a line of the answer, a choice) -> whether the line names the choice.
MATCH_FNS: dict[str, Callable[[str, str], bool]] = {
    "include": lambda line, choice: line in choice,
    "exact": lambda line, choice: line == choice,
    "endswith": lambda line, choice: line.endswith(choice),
    "starts_or_endswith": lambda line, choice: line.startswith(choice) or line.endswith(choice),
}
DEFAULT_MATCH_FN = "starts_or_endswith"


class BadChoices(ValueError):
    """``choice_strings`` or ``choice_scores`` that ``evals`` refuses."""


def choice_strings(written: str | Sequence[str], n: int = 1) -> list[str]:
    """The choices: a list, a string of one-character choices, or ``from_n``/``from_n_abc``/``from_n_ABC``."""
    if written == "from_n":
        choices = [str(i + 1) for i in range(n)]
    elif written == "from_n_abc":
        choices = [string.ascii_lowercase[i % 26] for i in range(n)]
    elif written == "from_n_ABC":
        choices = [string.ascii_uppercase[i % 26] for i in range(n)]
    else:
        choices = [str(choice) for choice in written]
    for choice in choices:
        if any(char in choice for char in string.punctuation):
            raise BadChoices(f"{choice} contains punctuation")
    return choices


def choice_scores(
    written: Mapping[str, float] | str | None, choices: Sequence[str]
) -> dict[str, float] | None:
    """Each choice's score (``from_strings``: the choice read as a number), or None without scores."""
    if written is None:
        return None
    if written == "from_strings":
        try:
            return {choice: float(choice) for choice in choices}
        except ValueError as exc:
            raise BadChoices(f"choice_scores: from_strings: {exc}") from None
    if not isinstance(written, Mapping):
        raise BadChoices(f"choice_scores must be a mapping or 'from_strings', not {written!r}")
    return {str(choice): float(score) for choice, score in written.items()}


def choice_list(choices: Sequence[str]) -> str:
    """``"Yes" or "No"``."""
    return " or ".join(f'"{choice}"' for choice in choices)


def answer_prompt(eval_type: str, choices: Sequence[str]) -> str:
    """The instruction appended (after a blank line) to the grading prompt's last message."""
    return ANSWER_PROMPTS[eval_type].replace("{choices}", choice_list(choices))


def get_choice(text: str, eval_type: str, match_fn: str, choices: Sequence[str]) -> str:
    """The choice the grader's answer names: its lines top down (``cot_classify*``: bottom up),
    each stripped of whitespace and punctuation; ``INVALID`` when none names one."""
    matches = MATCH_FNS[match_fn]
    lines = text.strip().split("\n")
    if eval_type.startswith("cot_classify"):
        lines = lines[::-1]
    for raw in lines:
        line = "".join(char for char in raw.strip() if char not in string.punctuation)
        if not line:
            continue
        for choice in choices:
            if matches(line, choice):
                return choice
    return INVALID


def score_of(choice: str, scores: Mapping[str, float] | None) -> float | None:
    """The choice's score; an invalid choice scores the lowest."""
    if scores is None:
        return None
    if choice == INVALID:
        return min(scores.values())
    return scores[choice]
