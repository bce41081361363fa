"""promptfoo tests from CSV (docs/formats/promptfoo.md): special columns, the ``__expected`` grammar, quoting."""

from __future__ import annotations

import csv
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from bench import ConfigError
from bench_formats.promptfoo.csv_tests import assertion_from_string, case_from_row
from bench_formats.promptfoo.loader import PromptfooLoader


def _load(folder: Path, csv_text: str, prompt: str = "{{q}}") -> tuple[dict[str, Any], list[str]]:
    (folder / "tests.csv").write_text(csv_text, encoding="utf-8")
    config = folder / "promptfooconfig.yaml"
    config.write_text(
        f"prompts: ['{prompt}']\nproviders: [echo]\ntests: file://tests.csv\n", encoding="utf-8"
    )
    loader = PromptfooLoader()
    loader.options = dataclasses.replace(loader.options)
    return loader.load(config).data, loader.warnings


@pytest.mark.parametrize(
    ("cell", "assertion"),
    [
        ("contains: algorithm", {"type": "contains", "value": "algorithm"}),
        ("not-icontains:Bad", {"type": "not-icontains", "value": "Bad"}),
        ("contains-any: a, b ,c", {"type": "contains-any", "value": ["a", "b", "c"]}),
        ("icontains-all:x,y", {"type": "icontains-all", "value": ["x", "y"]}),
        ('is-json:{"type": "object"}', {"type": "is-json", "value": '{"type": "object"}'}),
        ("is-json", {"type": "is-json", "value": ""}),
        ("similar(0.9):hello", {"type": "similar", "value": "hello", "threshold": 0.9}),
        ("similar:hello", {"type": "similar", "value": "hello", "threshold": 0.8}),
        ("levenshtein(2):abc", {"type": "levenshtein", "value": "abc", "threshold": 2.0}),
        ("levenshtein: abc", {"type": "levenshtein", "value": "abc", "threshold": 0.75}),
        ("starts-with:Yes", {"type": "starts-with", "value": "Yes", "threshold": 0.75}),
        ("regex:^\\d+$", {"type": "regex", "value": "^\\d+$"}),
        ("fn:output.length > 3", {"type": "javascript", "value": "output.length > 3"}),
        ("javascript: 1", {"type": "javascript", "value": "1"}),
        ("eval:x", {"type": "javascript", "value": "x"}),
        ("file://check.js", {"type": "javascript", "value": "check.js"}),
        ("grade: is polite", {"type": "llm-rubric", "value": " is polite"}),
        ("llm-rubric:is kind", {"type": "llm-rubric", "value": "is kind"}),
        ("python: output == 'x'", {"type": "python", "value": "output == 'x'"}),
        ("file://check.py:fn", {"type": "python", "value": "check.py:fn"}),
        ("Paris", {"type": "equals", "value": "Paris"}),
        ("contains-most: x", {"type": "equals", "value": "contains-most: x"}),
    ],
)
def test_expected_cells_follow_promptfoos_grammar(cell: str, assertion: dict[str, Any]):
    assert assertion_from_string(cell) == assertion


def test_special_columns_of_a_row():
    warnings: list[str] = []
    row = {
        "q": "question",
        "__expected": "contains: a",
        "__expected1": "",
        "__expected2": "llm-rubric: good",
        "__description": "first",
        "__prefix": "P:",
        "__suffix": ":S",
        "__providerOutput": "canned",
        "__metric": "quality",
        "__threshold": "0.75",
        "__metadata:owner": "me",
        "__metadata:tags[]": "a, b\\,c,",
        "__config:__expected:threshold": "0.9",
        "__config:__expected2:threshold": "0.8",
        "_expected": "oops",
    }
    test = case_from_row(row, warnings.append)
    assert test == {
        "description": "first",
        "providerOutput": "canned",
        "threshold": 0.75,
        "vars": {"q": "question", "_expected": "oops"},
        "assert": [
            {"type": "contains", "value": "a", "metric": "quality", "threshold": 0.9},
            {"type": "llm-rubric", "value": " good", "metric": "quality", "threshold": 0.8},
        ],
        "options": {"prefix": "P:", "suffix": ":S"},
        # promptfoo copies each __config value into the metadata too (the last one wins), and
        # keeps the empty item after a trailing comma
        "metadata": {"owner": "me", "tags": ["a", "b,c", ""], "threshold": 0.8},
    }
    assert warnings == [
        'You used a single underscore for the key "_expected". Did you mean to use "__expected" instead?'
    ]


def test_config_columns_apply_by_expected_number_not_by_position():
    # __expected1 is empty, so asserts = [__expected2's]; __config:__expected2 names index 1: none
    row = {"__expected1": "", "__expected2": "contains: a", "__config:__expected2:threshold": "0.5"}
    test = case_from_row(row, [].append)
    assert test["assert"] == [{"type": "contains", "value": "a"}]
    assert "metadata" not in test


@pytest.mark.parametrize(
    ("column", "cell", "message"),
    [
        # the cell of row 2 (line 3) is bad
        ("__config:__expected:threshold", "", "3: Invalid numeric value for threshold"),
        ("__config:__expected:threshold", "0.9x", "3: Invalid numeric value for threshold"),
        # the column is bad: the first row (line 2) is refused
        ("__config:__expected0:threshold", "1", '2: Invalid expected key "__expected0" in __config column'),
        ("__config:__expected:weight", "1", '2: Invalid config key "weight" in __config column'),
    ],
)
def test_a_bad_config_cell_refuses_the_file(tmp_path: Path, column: str, cell: str, message: str):
    with pytest.raises(ConfigError) as info:
        _load(tmp_path, f"q,__expected,{column}\nhi,contains: h,1\nyo,contains: y,{cell}\n")
    assert str(info.value) == f"{tmp_path / 'tests.csv'}:{message}"


def test_a_config_column_of_another_shape_warns(tmp_path: Path):
    data, warnings = _load(tmp_path, "q,__config:threshold\nhi,1\n")
    assert warnings == [
        'Invalid __config column format: "__config:threshold". Expected format: '
        "__config:__expected:threshold or __config:__expected<N>:threshold"
    ]
    assert data["tasks"][0]["metadata"]["vars"] == {"q": "hi"}


def test_csv_rows_become_tasks_described_row_n(tmp_path: Path):
    data, warnings = _load(
        tmp_path,
        'q,__expected,__providerOutput\nhello,contains: hel,\n"a, quoted",icontains:A,recorded\n',
    )
    assert warnings == []
    assert [t["id"] for t in data["tasks"]] == ["Row #1", "Row #2"]
    assert [t["prompt"] for t in data["tasks"]] == ["hello", "a, quoted"]
    assert "response" not in data["tasks"][0]
    assert data["tasks"][1]["response"] == "recorded"
    assert data["tasks"][1]["evaluators"][0]["assert"] == [{"type": "icontains", "value": "A"}]
    assert data["tasks"][1]["metadata"]["description"] == "Row #2"


def test_a_row_with_stray_quotes_is_read_relaxed(tmp_path: Path):
    # strict quoting fails on 'say "hi" now' inside an unquoted field; promptfoo retries relaxed
    data, _ = _load(tmp_path, 'q,__expected\nsay "hi" now,contains:hi\n"x"y,equals:z\n')
    assert [t["prompt"] for t in data["tasks"]] == ['say "hi" now', "xy"]


def test_a_single_underscore_column_warns_once(tmp_path: Path):
    _, warnings = _load(tmp_path, "q,_expected\na,x\nb,y\n")
    assert warnings == [
        'You used a single underscore for the key "_expected". Did you mean to use "__expected" instead?'
    ]


def test_the_load_filter_reads_a_json_cell(tmp_path: Path):
    # simple-csv: {{ (style_config | load).tone }}
    data, _ = _load(
        tmp_path, 'q,style\nhi,"{""tone"": ""warm""}"\n', prompt="{{q}} {{ (style | load).tone }}"
    )
    assert data["tasks"][0]["prompt"] == "hi warm"


@pytest.fixture
def default_cell_limit():
    """Python's own csv cell limit during the test (the loader raises it process-wide), restored after."""
    before = csv.field_size_limit(131_072)
    yield
    csv.field_size_limit(before)


@pytest.mark.usefixtures("default_cell_limit")
def test_a_csv_cell_over_128_kib_is_read_as_promptfoo_reads_it(tmp_path: Path):
    # Python's csv refuses a field over 131,072 characters by default; promptfoo's parser has no limit
    big = "word " * (200 * 1024 // 5)
    data, _ = _load(tmp_path, f'q,__expected\n"{big}",contains:word\nshort,contains:short\n')
    assert [len(task["prompt"]) for task in data["tasks"]] == [len(big), 5]


@pytest.mark.usefixtures("default_cell_limit")
def test_a_csv_prompt_over_128_kib_is_read(tmp_path: Path):
    big = "word " * (200 * 1024 // 5)
    (tmp_path / "prompts.csv").write_text(f'prompt,label\n"{big}",big\n', encoding="utf-8")
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text("prompts: [file://prompts.csv]\nproviders: [echo]\n", encoding="utf-8")
    data = PromptfooLoader().load(config).data
    assert [len(task["prompt"]) for task in data["tasks"]] == [len(big.strip())]
