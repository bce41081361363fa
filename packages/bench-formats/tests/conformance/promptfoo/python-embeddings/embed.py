"""Embedding functions for the python-embeddings conformance case: letter counts, unit length."""

import math
import string


def _letters(text, scale=1):
    counts = [text.lower().count(letter) * scale for letter in string.ascii_lowercase]
    norm = math.sqrt(sum(c * c for c in counts)) or 1.0
    return [c / norm for c in counts]


def call_embedding_api(prompt, options):
    return {"embedding": _letters(prompt)}


def scaled(prompt, options):
    assert options["config"]["basePath"]
    return {"embedding": _letters(prompt, options["config"]["scale"])}


def refusing(prompt, options):
    return {"error": "embedding service unavailable"}


def malformed(prompt, options):
    return {"vector": [1, 2, 3]}
