"""A promptfoo row's assertions rendered again with the vars of its call (``_conversation`` and the
stored outputs): promptfoo's verdicts on them are the conformance case ``assertion-state``."""

from __future__ import annotations

from bench_formats.promptfoo.check_vars import rerender, templated


def test_assertion_values_were_rendered_at_load_without_the_calls_vars() -> None:
    written = [
        {"type": "contains", "value": "{{ first }}"},
        {"type": "assert-set", "assert": [{"type": "icontains-any", "value": ["{{ first }}", "x"]}]},
        {"type": "contains", "value": "file://{{ first }}.txt"},
        "plain {{ first }}",
    ]
    prepared = [
        {"type": "contains", "value": ""},
        {"type": "assert-set", "assert": [{"type": "icontains-any", "value": ["", "x"]}]},
        {"type": "contains", "value": "read"},
        {"type": "equals", "value": "plain ", "error": "at load"},
    ]
    assert templated(written)
    assert rerender(prepared, written, {"first": "alpha"}) == [
        {"type": "contains", "value": "alpha"},
        {"type": "assert-set", "assert": [{"type": "icontains-any", "value": ["alpha", "x"]}]},
        {"type": "contains", "value": "read"},  # a file reference was read at load, as written
        {"type": "equals", "value": "plain alpha"},
    ]
