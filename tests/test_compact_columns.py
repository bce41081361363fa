"""A17: what a plan holds per run stays small (bench.vocabulary.compact), and reads back unchanged."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from bench.suite.plan import TaskList
from bench.testing import load_suite
from bench.vocabulary.compact import HexColumn, KeyTable, TextColumn, hex_or_text
from bench.vocabulary.errors import InvalidSuite

ODD = ["t1", "", "é", "日本", "lone \ud800 surrogate", "a@1", "x[label]"]


def test_a_text_column_gives_back_what_it_was_given() -> None:
    column = TextColumn(ODD)
    assert list(column) == ODD
    assert column == ODD
    assert ODD == column  # noqa: SIM300 - list.__eq__ gives way to the column's
    assert [column[i] for i in range(len(column))] == ODD
    assert column[-1] == "x[label]"
    assert column[1:3] == ["", "é"]
    assert column != ODD[:-1]
    assert column != [*ODD[:-1], "other"]
    ascii_only = TextColumn(["a", "bc", ""])
    assert list(ascii_only) == ["a", "bc", ""]
    assert ascii_only[2] == ""
    with pytest.raises(IndexError):
        column[len(ODD)]


def test_a_hex_column_holds_digests_as_bytes_and_refuses_anything_else() -> None:
    digests = ["0123456789abcdef", "ffffffffffffffff", "0000000000000000"]
    column = HexColumn(digests)
    assert list(column) == digests
    assert column[1] == digests[1]
    assert column[-1] == digests[2]
    assert len(column) == 3
    assert len(column._data) == 24
    for bad in ("0123456789ABCDEF", "0123", "0123456789abcdeg"):
        with pytest.raises(ValueError, match="lowercase hex digest") as caught:
            column.append(bad)
        assert str(caught.value) == f"not a 16-digit lowercase hex digest: {bad!r}"
    assert isinstance(hex_or_text(["ABC"]), TextColumn)
    assert hex_or_text(["ABC"]) == ["ABC"]


def test_first_seen_answers_as_a_dict_would() -> None:
    seen, plain = KeyTable(), {}
    for row, key in enumerate([f"t{i % 700}" for i in range(1000)] + ODD):
        assert seen.setdefault(key, row) == plain.setdefault(key, row)
    assert len(seen) == len(plain) == 706  # "t1" of ODD was seen already


def test_a_key_table_answers_as_a_dict_would_under_sets_and_pops() -> None:
    # What the store's scan does with it: latest line wins, then resume pops each planned key.
    rng = random.Random(18)
    table, plain = KeyTable(), {}
    for step in range(5000):
        key = rng.choice([*ODD, *(f"k{i}" for i in range(300))])
        if step % 3:
            table[key] = plain[key] = step
        else:
            assert table.pop(key) == plain.pop(key, None)
        assert table.get(key) == plain.get(key)
    assert len(table) == len(plain)
    assert sorted(table.items()) == sorted(plain.items())


def test_a_duplicate_id_names_the_first_row_among_many(tmp_path: Path) -> None:
    rows = [{"id": f"t{i}", "response": "r", "evaluate": {"expected": "r"}} for i in range(3000)]
    rows.append(rows[1234])
    (tmp_path / "tasks.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: dup\ntasks: tasks.jsonl\n")
    with pytest.raises(InvalidSuite) as caught:
        load_suite(suite)
    assert str(caught.value) == (
        f"{tmp_path / 'tasks.jsonl'}:3001:1: tasks[3000].id: duplicate task id 't1234' (first at line 1235)"
    )


def test_a_loaded_suite_holds_its_keys_and_digests_compactly(tmp_path: Path) -> None:
    n = 20_000  # over TaskList.KEEP_LIMIT: the tasks are rebuilt when iterated
    rows = tmp_path / "tasks.jsonl"
    rows.write_text(
        "".join(
            json.dumps({"id": f"task-{i}", "response": "r", "evaluate": {"expected": "r"}}) + "\n"
            for i in range(n)
        )
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: big\ntasks: tasks.jsonl\nrepeat: 2\n")
    tasks = load_suite(suite).tasks
    assert isinstance(tasks.ids, TextColumn)
    assert isinstance(tasks.digests, HexColumn)
    built = list(tasks)
    assert tasks.ids == [p.key for p in built]
    assert tasks.digests == [p.digest for p in built]
    held = sum(sys.getsizeof(b) for b in (tasks.ids._data, tasks.ids._ends, tasks.digests._data))
    assert held / len(tasks) < 30  # bytes a run; a list of str held about 130


def test_a_duplicate_id_is_found_on_either_side_of_the_switch_to_a_compact_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ids are held in a dict while the tasks are kept built, then in a KeyTable: a duplicate of
    an id seen before the switch is found after it."""
    monkeypatch.setattr(TaskList, "KEEP_LIMIT", 5)
    rows = tmp_path / "tasks.jsonl"
    ids = ["a", "b", "c", "d", "e", "f", "g", "b", "g"]
    rows.write_text(
        "".join(json.dumps({"id": i, "response": "r", "evaluate": {"expected": "r"}}) + "\n" for i in ids)
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: ids\ntasks: tasks.jsonl\n")
    with pytest.raises(InvalidSuite) as caught:
        load_suite(suite)
    assert str(caught.value).splitlines() == [
        f"{rows}:8:1: tasks[7].id: duplicate task id 'b' (first at line 2)",
        f"{rows}:9:1: tasks[8].id: duplicate task id 'g' (first at line 7)",
        "(2 errors)",
    ]
