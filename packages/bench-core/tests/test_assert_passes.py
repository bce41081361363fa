"""``bench.testing.assert_passes``: evaluators as a pytest assertion, with a message
naming each evaluator that did not pass, its score and its reason."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys

import pytest

from bench import ConfigError, Task
from bench.testing import assert_passes


def test_all_passing_returns_every_outcome():
    outcomes = assert_passes(
        "Paris is the capital.", [{"type": "regex", "value": "^Paris"}, {"expected": "capital"}]
    )
    assert [(o.name, o.passed) for o in outcomes] == [("regex", True), ("expected", True)]


def test_expected_is_the_reference_of_each_check_that_has_none():
    outcomes = assert_passes("Paris is the capital of France.", [{"type": "contains"}], expected="France")
    assert outcomes[0].reason == "found 'France'"
    with pytest.raises(AssertionError) as caught:
        assert_passes(
            "Paris",
            [{"type": "contains", "name": "city"}, {"type": "contains", "expected_from": "literal:Paris"}],
            expected="Lyon",
        )
    assert (
        str(caught.value)
        == "1 of 2 evaluators did not pass:\n  city (contains) failed (score 0.00): not found: 'Lyon'"
    )


def test_a_failing_evaluator_is_an_assertion_error_with_its_reason():
    with pytest.raises(AssertionError) as caught:
        assert_passes("Lyon", [{"type": "regex", "value": "^Paris", "name": "starts"}, {"expected": "Lyon"}])
    assert str(caught.value) == (
        "1 of 2 evaluators did not pass:\n  starts (regex) failed (score 0.00): no match for '^Paris'"
    )


def test_an_unknown_type_is_a_config_error():
    with pytest.raises(ConfigError) as caught:
        assert_passes("x", {"type": "nope"})
    assert str(caught.value) == "<test>: type: unknown evaluator type 'nope'"


def test_no_check_and_two_tasks_are_type_errors():
    with pytest.raises(TypeError) as nothing:
        assert_passes("x", [])
    assert str(nothing.value) == "assert_passes: the list of evaluator configs is empty"
    with pytest.raises(TypeError) as both:
        assert_passes("x", {"expected": "x"}, task=Task(id="t"), vars={"a": 1})
    assert str(both.value) == "assert_passes: give either task= or vars=/prompt=, not both"


def test_it_works_inside_a_running_event_loop():
    async def test_body() -> None:
        assert_passes("42", {"type": "contains"}, expected="42")
        with pytest.raises(AssertionError, match="contains failed"):
            assert_passes("41", {"type": "contains"}, expected="42")

    asyncio.run(test_body())


def test_a_failure_shows_the_test_and_the_reasons_not_benchs_frames(tmp_path):
    # As pytest's own helpers do (__tracebackhide__): the frame is the user's call, then the message.
    (tmp_path / "test_capital.py").write_text(
        "from bench.testing import assert_passes\n\n\n"
        "def test_capital():\n"
        '    assert_passes("Lyon", {"type": "regex", "value": "^Paris"})\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "test_capital.py", "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=tmp_path,
        # the inner session's report alone: options given to the outer one (--durations) stay out
        env={k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    start = done.stdout.index("_ test_capital _")
    failure = done.stdout[start : done.stdout.index("short test summary info")].splitlines()[1:-1]
    assert failure == [
        "",
        "    def test_capital():",
        '>       assert_passes("Lyon", {"type": "regex", "value": "^Paris"})',
        "E       AssertionError: 1 of 1 evaluators did not pass:",
        "E         regex failed (score 0.00): no match for '^Paris'",
        "",
        "test_capital.py:5: AssertionError",
    ]
