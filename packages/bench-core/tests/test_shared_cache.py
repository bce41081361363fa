"""The response cache's writes are first-writer-wins, in SQLite (L1) and on an fsspec URL (L2)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import uuid

import pytest

from bench.errors import ConfigError
from bench.llm.cache import ResponseCache, cache_key
from bench.llm.cache_layers import CacheLayers
from bench.llm.shared_cache import SharedCache

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
from bench.llm.shared_cache import SharedCache
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
