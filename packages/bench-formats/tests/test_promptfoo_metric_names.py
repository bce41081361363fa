"""Assertion ``metric`` names rendered over the row's vars, as promptfoo's ``renderMetricName``
(its verdicts and named scores against promptfoo's own are in the conformance case
``metric-templates``); here the names a row answered through promptfoo's state renders again."""

from __future__ import annotations

from bench_formats.promptfoo.check_vars import rerender, templated


def test_a_metric_template_is_rendered_again_with_a_stored_output() -> None:
    written = [
        {"type": "contains", "value": "x", "metric": "named_{{ name }}"},
        {
            "type": "assert-set",
            "metric": "set_{{ name }}",
            "assert": [{"type": "contains", "value": "y", "metric": "{{ name }}"}],
        },
    ]
    prepared = [
        {"type": "contains", "value": "x", "metric": "named_"},
        {
            "type": "assert-set",
            "metric": "set_",
            "assert": [{"type": "contains", "value": "y", "metric": ""}],
        },
    ]
    assert templated(written)
    again = rerender(prepared, written, {"name": "Ada"})
    assert [again[0]["metric"], again[1]["metric"], again[1]["assert"][0]["metric"]] == [
        "named_Ada",
        "set_Ada",
        "Ada",
    ]
