"""Test generators for the python-test-generators conformance case."""


def few_tests():
    return [
        {
            "description": "generated: a passing test",
            "vars": {"word": "dog", "language": "French"},
            "assert": [{"type": "contains", "value": "dog"}],
        },
        {
            "vars": {"word": "sun", "language": "Spanish"},
            "assert": [
                {"type": "python", "value": "'moon' in output"},
                {"type": "icontains", "value": "SPANISH"},
            ],
        },
    ]


def generate_tests(config):
    return [
        {
            "description": f"from config: {word}",
            "vars": {"word": word, "language": config["language"]},
            "assert": [{"type": "contains", "value": config["language"]}],
        }
        for word in config["words"]
    ]
