"""bench's pytest fixtures are named ``bench_*``; the earlier names work for one more release and
warn, naming the fixture that replaces them."""

from __future__ import annotations

import re
import warnings

import pytest

RENAMED = [("suite_file", "bench_suite_file"), ("fake_llm", "bench_fake_llm")]


@pytest.mark.parametrize(("old", "new"), RENAMED)
def test_an_old_fixture_name_warns_and_names_the_new_one(request, old, new):
    message = f"the fixture '{old}' is deprecated and will be removed in the next release: use '{new}'"
    with pytest.warns(DeprecationWarning, match=f"^{re.escape(message)}$") as caught:
        value = request.getfixturevalue(old)
    assert [str(w.message) for w in caught] == [message]
    assert value is request.getfixturevalue(new)


@pytest.mark.parametrize("name", ["bench_cli", "bench_suite_file", "bench_fake_llm"])
def test_the_bench_fixtures_do_not_warn(request, name):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        request.getfixturevalue(name)
    assert [w for w in caught if issubclass(w.category, DeprecationWarning)] == []


def test_the_old_suite_file_still_writes_the_suite(request, tmp_path):
    with pytest.warns(DeprecationWarning, match="'suite_file' is deprecated"):
        make = request.getfixturevalue("suite_file")
    path = make("tasks:\n  - {id: a, response: ok}\n", name="old.yaml")
    assert path == tmp_path / "old.yaml"
    assert path.read_text() == "tasks:\n  - {id: a, response: ok}\n"
