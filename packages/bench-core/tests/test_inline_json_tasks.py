"""Inline tasks written as JSON objects (``  - {"id": ...}``) are read with ``json``: the data,
the errors and their positions are those of reading the suite as YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.document import load_yaml
from bench.suite import yamlstream
from bench.suite.loader import load_suite
from bench.suite.yamlstream import load_suite_yaml
from bench.vocabulary.errors import ConfigError, InvalidSuite

SAME_AS_YAML = [
    r'{"id": "t1", "prompt": "caf\u00e9 \/ \"q\" \t\n", "response": "é 😀"}',
    r'{"n": [1, -0, 1.5, 1e5, -2E-3, 1E400, 123456789012345678901234567890], "b": [true, false, null]}',
    r'{"deep": {"a": [{"b": {}}, []], "<<": "merge?", "": "empty key", "NaN": "NaN"}}',
]

#: Rows whose JSON reading could differ from YAML's: the whole list is then read as YAML.
READ_AS_YAML = [
    '{"nan": NaN, "inf": -Infinity}',  # strings to YAML
    '{"a": 1,}',  # YAML's trailing comma
    '{"a": 1, # a comment\n     "b": 2}',
    "{a: 1}",  # plain keys
    '{"home": "${BENCH_TEST_HOME}"}',  # substituted
]


def _rows(path: Path) -> tuple[list[Any], bool]:
    doc = load_suite_yaml(path)
    return list(doc.tasks.rows()), doc.tasks.spans is not None


def _suite(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text("name: s\ntasks:\n" + "".join(f"  - {row}\n" for row in rows))
    return path


def test_tasks_written_as_json_are_read_with_json_as_yaml_reads_them(tmp_path):
    path = _suite(tmp_path, *SAME_AS_YAML)
    rows, as_json = _rows(path)
    assert as_json
    assert rows == load_yaml(path).data["tasks"]
    assert rows[1]["n"][:2] == [1, 0]
    assert isinstance(rows[1]["n"][2], float)


@pytest.mark.parametrize(
    "row", READ_AS_YAML, ids=["nan", "trailing-comma", "comment", "plain-keys", "variable"]
)
def test_a_row_json_would_read_otherwise_makes_the_list_read_as_yaml(tmp_path, monkeypatch, row):
    monkeypatch.setenv("BENCH_TEST_HOME", "/home/x")
    path = _suite(tmp_path, SAME_AS_YAML[0], row)
    rows, as_json = _rows(path)
    assert not as_json
    assert rows == load_yaml(path, interpolate=True).data["tasks"]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ('{"a": 1, "a": 2}', "duplicate key 'a' (first at line 4)"),
        (r'{"a": "\ud83d\ude00"}', "found invalid Unicode character escape code"),
    ],
    ids=["duplicate-key", "surrogate-escape"],
)
def test_a_json_row_yaml_refuses_is_refused_as_yaml_refuses_it(tmp_path, row, message):
    path = _suite(tmp_path, SAME_AS_YAML[0], row)
    with pytest.raises(ConfigError) as whole:
        load_yaml(path)
    assert message in str(whole.value)
    with pytest.raises(ConfigError) as streamed:
        _rows(path)
    assert str(streamed.value) == str(whole.value)


def test_an_error_in_a_json_row_names_the_place_yaml_would(tmp_path):
    bad = '{"id": "b", "response": "x", "evaluate": [{"nope": 1}]}'
    messages = []
    for row in (bad, bad[:-1] + ",}"):  # the second is read as YAML (a trailing comma)
        with pytest.raises(InvalidSuite) as raised:
            load_suite(_suite(tmp_path, '{"id": "a", "response": "x", "evaluate": [{"expected": "x"}]}', row))
        messages.append(str(raised.value))
    column = 4 + bad.index('{"nope"') + 1
    where = f"suite.yaml:4:{column}: tasks[1].evaluate[0]: cannot tell the evaluator type; add 'type:'"
    assert messages[0].endswith(where)
    assert messages[0] == messages[1]


def test_an_evaluator_of_a_json_row_names_the_line_yaml_would(tmp_path):
    one_line = '{"id": "a", "response": "x", "evaluate": [{"expected": "x"}]}'
    two_lines = '{"id": "b", "response": "x",\n     "evaluate": ["contains-x", {"expected": "x"}]}'
    head = "name: s\nevaluators:\n  contains-x: {type: contains, value: x}\ntasks:\n"
    origins = []
    for last in (two_lines, two_lines[:-1] + ",}"):  # the second is read as YAML (a trailing comma)
        path = tmp_path / "suite.yaml"
        path.write_text(head + f"  - {one_line}\n  - {last}\n")
        assert load_suite_yaml(path).tasks.spans is not None or last.endswith(",}")
        plan = load_suite(path)
        origins.append([e.origin.rsplit("/", 1)[1] for task in plan.tasks for e in task.evaluators])
    assert origins[0] == ["suite.yaml:5", "suite.yaml:3", "suite.yaml:7"]
    assert origins[0] == origins[1]


ROW = '{"id": "t%d", "response": "x", "evaluate": [{"expected": "x"}]}'
#: Suites whose JSON rows one a line could be read without the parser's events: each must read,
#: or fail, exactly as when every event of the list is read.
LISTS = {
    "plain": "name: s\ntasks:\n  - R0\n  - R1\n",
    "keys-after": "name: &n s\ntasks:\n  - R0\n  -   R1   \n\n# done\ndescription: *n\n",
    "deeper": "tasks:\n    # first\n    - R0\n    - R1\nname: s\n",
    "column-0": "tasks:\n- R0\n- R1\n",
    "comment-between": "tasks:\n  - R0\n  # gap\n  - R1\n",
    "blank-between": "tasks:\n  - R0\n\n  - R1\n",
    "trailing-comment": "tasks:\n  - R0 # note\n  - R1\n",
    "crlf": "tasks:\r\n  - R0\r\n  - R1\r\n",
    "line-separator": 'tasks:\n  - R0\n  - {"id": "t1", "response": "a\u2028b", "evaluate": "contains"}\n',
    "continued": "tasks:\n  - R0\n  - R1\n    more\n",
    "bad-after": "tasks:\n  - R0\n  - R1\nname: [s\n",
    "duplicate-after": "name: s\ntasks:\n  - R0\n  - R1\nname: t\n",
    "second-document": "tasks:\n  - R0\n  - R1\n---\nname: t\n",
    "tab-after": "tasks:\n  - R0\n  - R1\n\tname: t\n",
    "yaml-row": "tasks:\n  - R0\n  - {id: t1}\n",
    "nested-list": "tasks:\n  - R0\n  - R1\n  -\n    - R0\n",
    "compact": "tasks:\n  - R0\n  -R1\n",
}


def _read(path: Path) -> tuple[Any, ...]:
    """What a streamed read gives: the suite's data, the rows with the place of each, or the error."""
    try:
        doc = load_suite_yaml(path)
        rows = list(doc.tasks.rows())
        places = [doc.tasks.mark(("tasks", i, "id")) for i in range(len(rows))]
        lines = [doc.tasks.line(("tasks", i)) for i in range(len(rows))]
        return doc.data, rows, places, lines, doc.tasks.spans
    except ConfigError as exc:
        return (str(exc),)


@pytest.mark.parametrize("name", list(LISTS))
def test_json_rows_read_without_their_events_read_as_with_them(tmp_path, monkeypatch, name):
    path = tmp_path / "suite.yaml"
    path.write_bytes(LISTS[name].replace("R0", ROW % 0).replace("R1", ROW % 1).encode())
    quick = _read(path)
    monkeypatch.setattr(yamlstream, "_json_block", lambda *_: None)  # every event read
    assert quick == _read(path)


def test_a_list_of_json_rows_is_parsed_without_an_event_for_each(tmp_path, monkeypatch):
    path = tmp_path / "suite.yaml"
    path.write_text("name: s\ntasks:\n" + "".join(f"  - {ROW % i}\n" for i in range(500)) + "repeat: 2\n")
    events = []
    get_event = yamlstream._Streamer.get_event
    monkeypatch.setattr(yamlstream._Streamer, "get_event", lambda self: events.append(1) or get_event(self))
    doc = load_suite_yaml(path)
    assert len(events) < 50
    assert doc.data["repeat"] == 2
    assert [row["id"] for row in doc.tasks.rows()] == [f"t{i}" for i in range(500)]
