"""How code_execution reads test counts from a test runner's output (AgentClash's formats)."""

from __future__ import annotations

import pytest

from bench_deterministic.code import extract_code, parse_test_counts


@pytest.mark.parametrize(
    ("output", "counts"),
    [
        ('{"passed": 3, "failed": 1}', (3, 1, 0)),
        ('{"passed": 2, "failed": 0, "errors": 1}', (2, 0, 1)),
        ('<testsuite tests="5" failures="1" errors="1"></testsuite>', (3, 1, 1)),
        (
            '<testsuites><testsuite tests="2" failures="0" errors="0"/><testsuite tests="2" failures="2" errors="0"/></testsuites>',
            (2, 2, 0),
        ),
        ("===== 4 passed, 1 failed in 0.12s =====", (4, 1, 0)),
        ("1 passed, 2 errors", (1, 0, 2)),
        ("nothing to see", None),
    ],
)
def test_counts_from_json_junit_and_text(output, counts):
    assert parse_test_counts(output) == counts


def test_extract_code_prefers_the_block_of_the_language():
    text = "Here:\n```bash\necho hi\n```\nand\n```python\nprint(1)\n```\n"
    assert extract_code(text, "python") == "print(1)\n"
    assert extract_code("```\nx = 1\n```", "python") == "x = 1\n"
    assert extract_code("print(2)", "python") == "print(2)"
