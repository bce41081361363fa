"""A promptfoo Python assertion: promptfoo calls get_assert(output, context) for file://assert.py."""


def get_assert(output, context):
    words = len(output.split())
    score = min(1.0, 8 / words)
    return {"pass": words <= 8, "score": score, "reason": f"{words} words (at most 8)"}
