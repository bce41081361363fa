"""Python assertions for the python-assert case (promptfoo calls get_assert by default)."""


def get_assert(output, context):
    topic = context["vars"]["topic"]
    found = topic in output
    return {
        "pass": found,
        "score": 1.0 if found else 0.0,
        "reason": "topic named" if found else "topic missing",
        "named_scores": {"topicality": 1.0 if found else 0.0},
    }


def length_score(output, context):
    return min(len(output) / 100, 1.0)


def graded(output, context):
    print("grading", context["prompt"])
    return {"pass": True, "score": 0.75, "reason": "fair"}


def expected_word(output, context):
    return context["vars"]["topic"].upper()
