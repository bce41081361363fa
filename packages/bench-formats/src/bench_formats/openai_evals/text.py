"""The text rules of OpenAI's ``evals`` package, as it computes them (MIT; ``evals/elsuite/utils.py``,
``evals/api.py``, ``evals/prompt/base.py``, ``evals/elsuite/basic/json_match.py``).

Both sides are Python, so the same operations give the same results: ``str.format``, ``json.loads``
(``NaN`` included) and ``==`` between decoded values (``1 == 1.0 == True``).
"""

from __future__ import annotations

import copy
import re
import string
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

_PUNCTUATION = frozenset(string.punctuation)


def normalize(text: str) -> str:
    """Lower text and remove punctuation, articles and extra whitespace."""
    text = text.lower()
    text = "".join(char for char in text if char not in _PUNCTUATION)
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def fuzzy_match(sampled: str, ideal: str) -> bool:
    """``FuzzyMatch``: either normalized text contains the other (two empty texts match)."""
    left, right = normalize(sampled), normalize(ideal)
    if left == "" or right == "":
        return left == right
    return left in right or right in left


def f1_score(prediction: str, answers: Sequence[str]) -> float:
    """The best token F1 of ``prediction`` against any answer (``FuzzyMatch``'s ``f1_score``)."""

    def one(answer: str) -> float:
        predicted = normalize(prediction).split()
        truth = normalize(answer).split()
        same = sum((Counter(predicted) & Counter(truth)).values())
        if same == 0:
            return 0.0
        precision = same / len(predicted)
        recall = same / len(truth)
        return (2 * precision * recall) / (precision + recall)

    return max(one(answer) for answer in answers)


def includes(sampled: str, ideal: str, ignore_case: bool) -> bool:
    """``Includes``: ``utils.get_answer`` finds ``ideal`` in ``sampled`` (an empty ideal always does)."""
    if ignore_case:
        return sampled.lower().rfind(ideal.lower()) != -1
    return sampled.rfind(ideal) != -1


def picked_option(sampled: str, options: Sequence[str]) -> str | None:
    """``record_and_check_match``: the first option the sampled text starts with."""
    return next((option for option in options if sampled.startswith(option)), None)


def json_match(sampled: Any, correct: Any) -> bool:
    """``JsonMatch``: decoded JSON equal component by component; a missing value never matches."""
    if sampled is None or correct is None:
        return False
    if isinstance(sampled, dict):
        if not isinstance(correct, dict):
            return False
        keys = set(sampled) | set(correct)
        return all(json_match(sampled.get(key), correct.get(key)) for key in keys)
    if isinstance(sampled, list):
        if not isinstance(correct, list) or len(sampled) != len(correct):
            return False
        return all(json_match(s, c) for s, c in zip(sampled, correct, strict=True))
    return bool(sampled == correct)


def is_chat_prompt(prompt: Any) -> bool:
    """A list of mappings (the empty list included, as ``evals`` counts it)."""
    return isinstance(prompt, list) and all(isinstance(message, dict) for message in prompt)


def chat_as_text(prompt: list[dict[str, Any]]) -> str:
    """``chat_prompt_to_text_prompt(prompt, for_completion=False)``: one message is its content;
    several are lines prefixed by role (``User: ``; a system message, none; a ``name`` wins)."""
    prefixes = {"system": "", "example_user": "User: ", "example_assistant": "Assistant: "}
    if len(prompt) == 1:
        return str(prompt[0]["content"])
    text = ""
    for message in prompt:
        role = message["name"] if "name" in message else message["role"]
        prefix = prefixes.get(role, str(role).capitalize() + ": ")
        text += f"{prefix}{message['content']}\n"
    return text.lstrip()


def scrub_braces(prompt: Any) -> Any:
    """``scrub_formatting_from_prompt``: braces doubled in a text or each message's content."""
    if is_chat_prompt(prompt):
        scrubbed = copy.deepcopy(prompt)
        for message in scrubbed:
            if "content" in message:
                message["content"] = message["content"].replace("{", "{{").replace("}", "}}")
        return scrubbed
    return prompt.replace("{", "{{").replace("}", "}}")


class MissingField(Exception):
    """A template names a field the values do not hold (``format_necessary``'s assertion)."""


def format_necessary(template: str, values: Mapping[str, Any]) -> str:
    """``str.format`` with only the fields the template names; a missing one is ``MissingField``."""
    keys = [field[1] for field in string.Formatter().parse(template) if field[1]]
    missing = [key for key in keys if key not in values]
    if missing:
        raise MissingField(f"Required: {keys}, got: {sorted(values)}.")
    return template.format(**{key: values[key] for key in keys})


def template_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """``PromptFn``'s values: a chat prompt among them becomes its text."""
    return {key: chat_as_text(value) if is_chat_prompt(value) else value for key, value in values.items()}
