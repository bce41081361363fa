"""Classification functions for the classifier conformance case: word-count sentiment."""

POSITIVE = {"love", "great", "good"}
NEGATIVE = {"hate", "awful", "bad"}


def _scores(text, scale=1.0):
    words = text.lower().split()
    good = sum(w in POSITIVE for w in words)
    bad = sum(w in NEGATIVE for w in words)
    total = good + bad or 1
    return {"positive": scale * good / total, "negative": scale * bad / total}


def call_classification_api(prompt, options):
    return {"classification": _scores(prompt)}


def scaled(prompt, options):
    assert options["config"]["basePath"]
    return {"classification": _scores(prompt, options["config"]["scale"])}


def refusing(prompt, options):
    return {"error": "classification service unavailable"}


def empty(prompt, options):
    return {"classification": {}}


def malformed(prompt, options):
    return {"labels": ["positive"]}
