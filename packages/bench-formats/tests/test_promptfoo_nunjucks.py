"""Nunjucks' for loops, rendered as promptfoo renders them (nunjucks 3.2.4, promptfoo 0.121.20's).

Each expected text is what nunjucks 3.2.4 renders for the template and context.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from bench_formats.promptfoo.render import render

CASES = [
    # two names over a mapping: its keys and values, in order
    ("{% for k, v in obj %}{{k}}={{v}};{% endfor %}", {"obj": {"a": 1, "b": "x"}}, "a=1;b=x;"),
    # loop variables count the pairs
    (
        "{% for k, v in obj %}{{loop.index}}/{{loop.length}}:{{k}}{% endfor %}",
        {"obj": {"a": 1, "b": 2}},
        "1/2:a2/2:b",
    ),
    # a third name over a mapping is undefined (empty)
    ("{% for a, b, c in obj %}{{a}}|{{b}}|{{c}};{% endfor %}", {"obj": {"a": 1}}, "a|1|;"),
    # one name over a mapping iterates nothing: the else branch
    ("{% for k in obj %}{{k}};{% else %}empty{% endfor %}", {"obj": {"a": 1, "b": "x"}}, "empty"),
    # an empty mapping, and a null, take the else branch
    ("{% for k, v in obj %}{{k}}={{v}};{% else %}E{% endfor %}", {"obj": {}}, "E"),
    ("{% for k, v in obj %}x{% else %}E{% endfor %}", {"obj": None}, "E"),
    # several names over a list unpack each row by position; a short row leaves the rest undefined
    ("{% for a, b in rows %}{{a}}|{{b}};{% endfor %}", {"rows": [[1, 2], [3], "xy"]}, "1|2;3|;x|y;"),
    # a list of pairs from a filter is a list: unpacked by position
    ("{% for k, v in obj | dictsort %}{{k}}={{v}};{% endfor %}", {"obj": {"b": 1, "a": 2}}, "a=2;b=1;"),
    # text is no list to Nunjucks: two names take its indices and characters; a number iterates nothing
    ("{% for k, v in s %}{{k}}={{v}};{% endfor %}", {"s": "xy"}, "0=x;1=y;"),
    ("{% for k in num %}{{k}}{% else %}E{% endfor %}", {"num": 5}, "E"),
    ("{% for k, v in num %}{{k}}{% else %}E{% endfor %}", {"num": 5}, "E"),
    # one name over a list, and loops inside loops
    (
        "{% for row in rows %}{% for k, v in row %}{{k}}:{{v}} {% endfor %}/{% endfor %}",
        {"rows": [{"a": 1}, {"b": 2, "c": 3}]},
        "a:1 /b:2 c:3 /",
    ),
]


@pytest.mark.parametrize(("template", "context", "expected"), CASES, ids=[c[0] for c in CASES])
def test_nunjucks_for_over_a_mapping_with_two_names_renders_its_pairs(
    template: str, context: dict[str, Any], expected: str
):
    assert render(template, context) == expected


def test_nunjucks_for_over_a_mapping_in_a_config_validates(tmp_path: Path):
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(
        textwrap.dedent(
            """\
            prompts: ['{% for k, v in facts %}{{ k }}: {{ v }}. {% endfor %}Answer:']
            providers: [echo]
            tests:
              - vars: {facts: {capital: Paris, river: Seine}}
                assert: [{type: contains, value: 'capital: Paris'}]
            """
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "bench", "validate", str(config)],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "suite 'promptfooconfig' is valid: 1 tasks, target: echo" in done.stdout
