"""The response cache's writes are first-writer-wins, in SQLite (L1) and on an fsspec URL (L2)."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import tempfile
import threading
import uuid

import pytest

from bench.llm.cache.layers import CacheLayers
from bench.llm.cache.local import ResponseCache, cache_key
from bench.llm.cache.shared import SharedCache
from bench.vocabulary.errors import ConfigError

KEY = "ab" + "0" * 62


def _memory_url() -> str:
    return f"memory://bench-cache-{uuid.uuid4().hex}"  # the memory filesystem is one per process


def test_a_second_put_of_another_value_returns_the_first(tmp_path):
    cache = ResponseCache(tmp_path / "llm.sqlite3")
    first, second = {"text": "first"}, {"text": "second"}
    assert cache.put(KEY, first) is first
    assert cache.put(KEY, second) == first
    assert cache.get(KEY) == first
    cache.close()


def test_the_cache_key_is_unchanged():
    # The key a cached chat call had before the shared cache: an existing L1 cache still hits.
    material = {
        "model": "openai/gpt-4o-mini",
        "api_base": "",
        "messages": [{"role": "user", "content": "hi"}],
        "params": {"temperature": 0},
        "index": 0,
    }
    assert cache_key(material) == "5968023ccc57a1bb7316a88327e45a47d11d7f18df3e67aad882eda20cda0d5a"


@pytest.mark.parametrize("kind", ["file", "memory"])
def test_shared_put_is_create_only_and_the_loser_gets_the_winner(tmp_path, kind):
    url = (tmp_path / "l2").as_uri() if kind == "file" else _memory_url()
    shared = SharedCache(url)
    first, second = {"text": "first"}, {"text": "second"}
    assert shared.get(KEY) is None
    assert shared.put(KEY, first) is first
    assert shared.put(KEY, second) == first
    assert SharedCache(url).get(KEY) == first
    if kind == "file":
        stored = tmp_path / "l2" / "ab" / f"{KEY}.json"
        assert json.loads(stored.read_text()) == first
        assert [p.name for p in stored.parent.iterdir()] == [stored.name]  # no temporary left


def test_a_plain_folder_is_a_file_url(tmp_path):
    SharedCache(str(tmp_path / "l2")).put(KEY, {"text": "x"})
    assert SharedCache((tmp_path / "l2").as_uri()).get(KEY) == {"text": "x"}


def test_g09_a_corrupt_shared_object_is_a_miss_with_one_warning(tmp_path, capsys):
    shared = SharedCache(str(tmp_path))
    stored = tmp_path / "ab" / f"{KEY}.json"
    stored.parent.mkdir()
    stored.write_text('{"text": "cut sho')
    assert shared.get(KEY) is None
    assert shared.get(KEY) is None
    assert capsys.readouterr().err == (
        f"warning: shared cache object {stored} is not a whole JSON object; treated as a miss\n"
    )
    # A writer keeps its own answer (the object is never replaced: create-only).
    assert shared.put(KEY, {"text": "fresh"}) == {"text": "fresh"}


def test_an_unreadable_shared_cache_warns_once_and_is_turned_off(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    shared = SharedCache(str(blocker / "l2"))  # a folder inside a file: every write fails
    assert shared.put(KEY, {"text": "x"}) == {"text": "x"}
    assert shared.put(KEY, {"text": "y"}) == {"text": "y"}
    assert shared.get(KEY) is None
    err = capsys.readouterr().err
    assert err.startswith(f"warning: shared cache {blocker / 'l2'} is unusable (")
    assert err.endswith("); running without it\n")
    assert err.count("\n") == 1


def test_an_unknown_protocol_is_a_config_error():
    with pytest.raises(ConfigError) as raised:
        SharedCache("nosuch://bucket/cache")
    assert str(raised.value) == "--shared-cache nosuch://bucket/cache: Protocol not known: nosuch"


def test_racing_threads_on_memory_converge():
    url = _memory_url()
    got: list[dict] = []
    start = threading.Barrier(8)

    def write(i: int) -> None:
        shared = SharedCache(url)
        start.wait()
        got.append(shared.put(KEY, {"text": f"writer {i}"}))

    threads = [threading.Thread(target=write, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8
    assert all(g == got[0] for g in got)
    assert SharedCache(url).get(KEY) == got[0]


RACER = """
import json, sys
from bench.llm.cache.shared import SharedCache
shared = SharedCache(sys.argv[1])
name = sys.argv[2]
sys.stdin.readline()  # both start together
used = [shared.put(f"{i:02x}" + "1" * 62, {"text": name})["text"] for i in range(200)]
print(json.dumps(used))
"""


def test_g07_two_processes_racing_on_one_folder_end_with_the_same_answers(tmp_path):
    url = (tmp_path / "l2").as_uri()
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, url, name], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for name in ("one", "two")
    ]
    for racer in racers:
        assert racer.stdin is not None
        racer.stdin.write("go\n")
        racer.stdin.flush()
    used = [json.loads(racer.communicate(timeout=60)[0]) for racer in racers]
    assert used[0] == used[1]
    shared = SharedCache(url)
    assert [shared.get(f"{i:02x}" + "1" * 62)["text"] for i in range(200)] == used[0]  # type: ignore[index]


def test_an_l2_hit_fills_l1_and_a_put_reaches_both(tmp_path):
    import asyncio

    url = _memory_url()
    SharedCache(url).put(KEY, {"text": "from l2"})
    local = ResponseCache(tmp_path / "llm.sqlite3")
    layers = CacheLayers(local, SharedCache(url))
    assert asyncio.run(layers.get(KEY)) == {"text": "from l2"}
    assert local.get(KEY) == {"text": "from l2"}

    other = "cd" + "0" * 62
    mine = {"text": "mine"}
    assert asyncio.run(layers.put(other, mine)) is mine
    assert local.get(other) == mine
    assert SharedCache(url).get(other) == mine
    # L2 had an answer already: the local cache stores and returns that one.
    SharedCache(url).put("ef" + "0" * 62, {"text": "theirs"})
    assert asyncio.run(layers.put("ef" + "0" * 62, {"text": "mine"})) == {"text": "theirs"}
    assert local.get("ef" + "0" * 62) == {"text": "theirs"}
    layers.close()


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.mark.parametrize(
    ("folder_mode", "entry_mode"),
    [(0o700, 0o600), (0o750, 0o640), (0o755, 0o644), (0o2775, 0o644), (0o2770, 0o640)],
    ids=oct,
)
def test_n38_entries_and_their_folders_take_the_cache_folders_permissions(tmp_path, folder_mode, entry_mode):
    root = tmp_path / "team"
    root.mkdir()
    os.chmod(root, folder_mode)
    before = os.umask(0o077)  # even a private umask: the folder's owner chose who may read
    try:
        SharedCache(str(root)).put(KEY, {"text": "x"})
    finally:
        os.umask(before)
    assert _mode(root / "ab") == folder_mode
    assert _mode(root / "ab" / f"{KEY}.json") == entry_mode


def test_n38_an_entry_you_may_only_read_is_a_hit(tmp_path, capsys):
    # As another member of the group sees one: read bits only, in a folder it may not write.
    SharedCache(str(tmp_path)).put(KEY, {"text": "theirs"})
    os.chmod(tmp_path / "ab" / f"{KEY}.json", 0o440)
    os.chmod(tmp_path / "ab", 0o550)
    try:
        shared = SharedCache(str(tmp_path))
        assert shared.get(KEY) == {"text": "theirs"}
        assert shared.put(KEY, {"text": "mine"}) == {"text": "theirs"}
    finally:
        os.chmod(tmp_path / "ab", 0o750)
    assert capsys.readouterr().err == ""


def test_n38_an_entry_you_cannot_read_is_a_miss_and_the_level_stays_on(tmp_path, capsys, monkeypatch):
    # One owner-only entry (as an older bench wrote them) must not turn the level off for everyone
    # else. Injected: the tests may run as root, which reads any file whatever its mode.
    shared = SharedCache(str(tmp_path))
    shared.put(KEY, {"text": "owner only"})
    hidden = shared.path(KEY)
    cat_file = shared._fs.cat_file

    def refusing(path, *args, **kwargs):
        if path == hidden:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        return cat_file(path, *args, **kwargs)

    monkeypatch.setattr(shared._fs, "cat_file", refusing)
    assert shared.get(KEY) is None
    assert shared.get(KEY) is None
    other = "cd" + "0" * 62
    assert shared.put(other, {"text": "fresh"}) == {"text": "fresh"}
    assert shared.get(other) == {"text": "fresh"}
    assert capsys.readouterr().err == (
        f"warning: shared cache object {hidden} is not readable (Permission denied); "
        "treated as a miss, as is any other you cannot read\n"
    )


ANSWER = {"text": "x", "tool_calls": [], "finish_reason": "stop", "usage": {}, "raw_message": {}}


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ({}, "text: Field required"),
        ({**ANSWER, "text": 5}, "text: Input should be a valid string"),
        ({**ANSWER, "tool_calls": "none"}, "tool_calls: Input should be a valid list"),
        (
            {**ANSWER, "usage": {"input_tokens": "many"}},
            "usage.input_tokens: Input should be a valid integer, unable to parse string as an integer",
        ),
    ],
)
def test_n43_g09_a_shared_entry_that_is_not_an_answer_is_a_miss_with_one_warning(
    tmp_path, capsys, value, why
):
    from bench.llm.request import CachedAnswer

    stored = tmp_path / "ab" / f"{KEY}.json"
    stored.parent.mkdir()
    stored.write_text(json.dumps(value))
    shared = SharedCache(str(tmp_path), schema=CachedAnswer)
    assert shared.get(KEY) is None
    assert shared.get(KEY) is None
    assert shared.put(KEY, ANSWER) == ANSWER  # the writer keeps its own answer
    assert capsys.readouterr().err == (
        f"warning: shared cache object {stored} is not a cached answer ({why}); treated as a miss\n"
    )
    stored.write_text(json.dumps(ANSWER))
    assert SharedCache(str(tmp_path), schema=CachedAnswer).get(KEY) == ANSWER


def test_n38_a_cache_you_may_only_read_is_read_and_never_written(tmp_path, capsys, monkeypatch):
    SharedCache(str(tmp_path)).put(KEY, {"text": "theirs"})
    shared = SharedCache(str(tmp_path))

    def refusing(*args, **kwargs):
        # Injected: a folder's write bits do not stop root, and the tests may run as root.
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    monkeypatch.setattr(tempfile, "mkstemp", refusing)
    other = "cd" + "0" * 62
    assert shared.put(other, {"text": "mine"}) == {"text": "mine"}
    assert shared.put("ef" + "0" * 62, {"text": "mine"}) == {"text": "mine"}
    assert shared.get(KEY) == {"text": "theirs"}  # still read
    assert shared.get(other) is None
    assert capsys.readouterr().err == (
        f"warning: shared cache {tmp_path} is read-only for you (Permission denied); "
        "reading it, storing nothing in it\n"
    )
