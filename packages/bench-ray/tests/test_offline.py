"""An offline run on a Ray cluster: each worker has the network guard on before it runs a task
(docs/offline.md). Ray starts its workers from its node, not from the driver, so they do not
inherit the driver's guard or its ``BENCH_OFFLINE``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bench
from bench.testing import write_suite

pytestmark = pytest.mark.timeout(900)

#: The target's module. Its safety net, an audit hook added when the worker imports it, stops any
#: connection off loopback that reaches it: bench's guard, when on, was added first and refuses it
#: first; without it the safety net's own refusal shows, and nothing leaves the machine either way.
PROBE = """
import socket
import sys


def _safety_net(event, args):
    if event == "socket.connect" and args[1][0] != "127.0.0.1":
        raise PermissionError("safety net: the worker had no offline guard")


sys.addaudithook(_safety_net)


def reach_out(task):
    try:
        socket.create_connection(("192.0.2.1", 443), timeout=5)
    except OSError as exc:
        return str(exc)
    return "connected"
"""


def test_h17_an_offline_runs_ray_workers_refuse_a_remote_connection(cluster, in_tmp: Path) -> None:
    (in_tmp / "probe.py").write_text(PROBE, encoding="utf-8")
    suite = write_suite(
        in_tmp,
        """
        name: offline-ray
        target: {type: python, function: "probe:reach_out"}
        tasks:
          - {id: t1, prompt: one, evaluate: [{type: contains, value: "offline: refused"}]}
          - {id: t2, prompt: two, evaluate: [{type: contains, value: "offline: refused"}]}
        """,
    )
    result = bench.run(suite, runs_dir="runs", executor="ray", workers=2, chunk=1, offline=True)
    rows = [json.loads(line) for line in (result.folder / "results.jsonl").read_text().splitlines()]
    refused = (
        "offline: refused a connection to 192.0.2.1:443; an offline run connects only to loopback "
        "(127.0.0.1, ::1, localhost) and Unix sockets"
    )
    assert {row["id"]: row["response"] for row in rows} == dict.fromkeys(("t1", "t2"), refused)
