"""RunKey: the one place that writes and reads a run's key (``id``, then ``id@N``)."""

from __future__ import annotations

import pytest

from bench.vocabulary.run_key import RunKey


def test_a_first_run_is_keyed_by_its_id_and_a_repeat_gains_at_n() -> None:
    assert RunKey("greet").key() == "greet"
    assert RunKey("greet", 0).key() == "greet"
    assert RunKey("greet", 2).key() == "greet@2"
    assert RunKey("user@example.com", 1).key() == "user@example.com@1"


def test_a_result_record_names_its_run() -> None:
    assert RunKey.of({"id": "greet", "repeat": 3}) == RunKey("greet", 3)
    assert RunKey.of({"id": "greet"}) == RunKey("greet", 0)
    assert RunKey.of({"id": "greet", "repeat": None}).key() == "greet"


@pytest.mark.parametrize(
    ("key", "run"),
    [
        ("greet", RunKey("greet", 0)),
        ("greet@2", RunKey("greet", 2)),
        ("greet@0", RunKey("greet", 0)),
        ("user@example.com", RunKey("user@example.com", 0)),
        ("user@example.com@4", RunKey("user@example.com", 4)),
        ("greet@", RunKey("greet@", 0)),
        ("greet@02", RunKey("greet@02", 0)),
        ("greet@-1", RunKey("greet@-1", 0)),
        ("greet@\u0663", RunKey("greet@\u0663", 0)),  # an Arabic-Indic three: not a repeat bench writes
    ],
)
def test_parse_reads_only_a_final_at_and_number_as_the_repeat(key: str, run: RunKey) -> None:
    assert RunKey.parse(key) == run


@pytest.mark.parametrize("run", [RunKey("a"), RunKey("a", 7), RunKey("x@y", 12), RunKey("x@1", 3)])
def test_parse_reads_back_what_key_wrote(run: RunKey) -> None:
    assert RunKey.parse(run.key()) == run
