"""Benchmark: model calls against a loopback fake OpenAI server answering after 200 ms.

Three runs of N tasks (1,000 by default), each one chat completion against the same server:

- bench at concurrency 64 and at 256 (``--no-cache``: every task is an HTTP call), and, in turn
  after each, promptfoo (``npx promptfoo@0.121.20``, openai provider, ``--no-cache``, ``-j`` the
  same concurrency) on the same prompts and the same check;
- a judge-bound suite: N recorded responses, one ``llm_judge`` each, at concurrency 64.

The server runs in its own process: by default ``loopback_server.py`` (one asyncio loop, so
the server is not what limits the figures); ``--server threads`` uses ``bench.testing.server``
(a thread per request), the server of the first figures. The bound is concurrency / latency
(320 calls/s at 64, 1,280/s at 256). Reported for bench: the run phase (``Runner.run``, after
start-up, loading and the one-time model-client import) in seconds and as a share of the bound,
its CPU per call, and the whole process's wall time, CPU and throughput; for promptfoo its whole
process; and the ratio of the two whole-process throughputs.

    nox -s bench -- --llm           # or: python benchmarks/run_llm.py --tasks 1000

``--ceiling`` first times a bare asyncio client (keep-alive connections, no library) on the same
calls at each concurrency: the share of the bound the server and the machine allow any client.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from loopback_server import SERVERS, server_command
from measure import (
    PROMPTFOO,
    Measured,
    bench_process,
    promptfoo_counts,
    promptfoo_env,
    promptfoo_missing,
    promptfoo_process,
)

KEY = "sk-benchmark-not-a-key"
VERDICT = '{"reason": "names it", "score": 1, "passed": true}'


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _bench(folder: Path, suite: Path, concurrency: int) -> Measured:
    env = {"OPENAI_API_KEY": KEY, "PATH": "/usr/bin:/bin", "HOME": str(folder)}
    if os.environ.get("PYTHONPATH"):  # another bench-core source to measure ("before")
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    args = ["run", suite.name, "-q", "--no-cache", "-j", str(concurrency), "-o", "out.json"]
    measured = bench_process(args, folder, env)
    if measured.returncode != 0 or measured.run_wall is None:
        raise SystemExit(f"bench run failed ({measured.returncode}):\n{measured.output}")
    return measured


def _report_bench(label: str, m: Measured, n: int, bound: float, folder: Path) -> float:
    """Print bench's figures; return its whole-process throughput."""
    assert m.run_wall is not None
    assert m.run_cpu is not None
    summary = json.loads((folder / "out.json").read_text())["summary"]
    rate = n / m.run_wall
    print(
        f"  {label}: run phase {m.run_wall:6.2f} s, {rate:6.0f} calls/s = {rate / bound:4.0%} of the bound, "
        f"{m.run_cpu / n * 1000:.2f} ms CPU per call; whole process {m.wall:6.2f} s, {m.cpu:6.2f} s CPU "
        f"({m.cpu / n * 1000:.1f} ms per task), {n / m.wall:6.0f} tasks/s; "
        f"passed {summary['passed']} of {summary['total']}"
    )
    return n / m.wall


async def _raw_calls(port: int, n: int, concurrency: int) -> float:
    """``n`` chat calls from a bare asyncio client (``concurrency`` keep-alive connections, one
    request at a time on each, the same body bench sends): the seconds they took, connecting
    included. No client can be much faster, so this is the server's and the machine's ceiling."""
    body = json.dumps({"model": "fake", "messages": [{"role": "user", "content": "question 1"}]}).encode()
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    )
    left = [n]

    async def connection() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while left[0] > 0:
            left[0] -= 1
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length")
            )
            await reader.readexactly(length)
        writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(connection() for _ in range(concurrency)))
    return time.perf_counter() - started


def _report_ceiling(port: int, n: int, concurrency: int, bound: float) -> None:
    wall = asyncio.run(_raw_calls(port, n, concurrency))
    rounds = -(-n // concurrency)  # whole rounds of answers: the best any client can do
    share = n / wall / bound
    print(
        f"  bare asyncio client: {wall:6.2f} s, {n / wall:6.0f} calls/s = {share:4.0%} of the bound "
        f"(whole rounds allow {n / (rounds * concurrency):.1%})"
    )


def _target_suite(folder: Path, n: int, port: int) -> Path:
    rows = "".join(
        f"  - {{id: t{i}, prompt: 'question {i}', evaluate: {{expected: echo}}}}\n" for i in range(n)
    )
    suite = folder / "suite.yaml"
    suite.write_text(
        "name: llm-throughput\n"
        f"target: {{type: litellm, model: openai/fake, api_base: 'http://127.0.0.1:{port}/v1'}}\n"
        f"tasks:\n{rows}"
    )
    return suite


def _judge_suite(folder: Path, n: int, port: int) -> Path:
    rows = "".join(
        f"  - {{id: t{i}, prompt: 'capital of country {i}?', response: 'City {i}.', evaluate: judge}}\n"
        for i in range(n)
    )
    suite = folder / "judged.yaml"
    suite.write_text(
        "name: judge-throughput\n"
        "evaluators:\n"
        "  judge: {type: llm_judge, criteria: 'Names a city', model: openai/fake,"
        f" api_base: 'http://127.0.0.1:{port}/v1'}}\n"
        f"tasks:\n{rows}"
    )
    return suite


def _promptfoo_config(folder: Path, n: int, port: int) -> Path:
    config = folder / "promptfooconfig.yaml"
    with open(config, "w") as out:
        out.write(
            "description: llm-throughput\nprompts:\n  - '{{q}}'\nproviders:\n"
            f"  - {{id: 'openai:chat:fake',"
            f" config: {{apiBaseUrl: 'http://127.0.0.1:{port}/v1', apiKey: {KEY}}}}}\n"
            "tests:\n"
        )
        for i in range(n):
            out.write(f"  - {{vars: {{q: 'question {i}'}}, assert: [{{type: contains, value: echo}}]}}\n")
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--skip-promptfoo", action="store_true")
    parser.add_argument("--skip-judge", action="store_true")
    parser.add_argument(
        "--ceiling",
        action="store_true",
        help="also time a bare asyncio client on the same calls: the server's and the machine's ceiling",
    )
    parser.add_argument(
        "--server",
        choices=SERVERS,
        default="loopback",
        help="loopback: one asyncio loop (benchmarks/loopback_server.py); threads: bench.testing.server",
    )
    args = parser.parse_args()
    n = args.tasks
    port = _free_port()
    script = Path(tempfile.mkdtemp()) / "rules.json"
    script.write_text(json.dumps([{"match": "<response-", "reply": VERDICT}]))  # the judge's prompt
    command = [*server_command(args.server), "--port", str(port), "--latency", str(args.latency)]
    server = subprocess.Popen(
        [*command, "--script", str(script)],
        stdout=subprocess.PIPE,
        text=True,
    )
    missing = "skipped (--skip-promptfoo)" if args.skip_promptfoo else promptfoo_missing()
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
        f"{n} tasks, server latency {args.latency * 1000:.0f} ms ({args.server} server)"
    )
    try:
        assert server.stdout is not None
        server.stdout.readline()  # "fake LLM server on ..."
        for concurrency in args.concurrency:
            bound = concurrency / args.latency
            print(f"concurrency {concurrency}: bound {bound:.0f} calls/s ({n / bound:.2f} s)")
            if args.ceiling:
                _report_ceiling(port, n, concurrency, bound)
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                suite = _target_suite(folder, n, port)
                ours = _report_bench("bench    ", _bench(folder, suite, concurrency), n, bound, folder)
                if missing is not None:
                    print(f"  promptfoo: not run: {missing}")
                    continue
                config = _promptfoo_config(folder, n, port)
                pf = promptfoo_process(config, concurrency, promptfoo_env(folder, OPENAI_API_KEY=KEY))
                if not (folder / "out.json").exists():
                    raise SystemExit(f"promptfoo failed ({pf.returncode}):\n{pf.output[-3000:]}")
                counts = promptfoo_counts(folder, pf)
                print(
                    f"  {PROMPTFOO}: whole process {pf.wall:6.2f} s, {pf.cpu:6.2f} s CPU "
                    f"({pf.cpu / n * 1000:.1f} ms per task), {n / pf.wall:6.0f} tasks/s; "
                    f"{counts}"
                )
                ratio = ours / (n / pf.wall)
                print(f"  ratio: bench's whole-process throughput is {ratio:.1f}x promptfoo's")
        if not args.skip_judge:
            concurrency = args.concurrency[0]
            bound = concurrency / args.latency
            print(f"judge-bound: {n} recorded responses, one llm_judge each, concurrency {concurrency}")
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                suite = _judge_suite(folder, n, port)
                _report_bench("bench    ", _bench(folder, suite, concurrency), n, bound, folder)
    finally:
        server.terminate()
        server.wait()
        script.unlink()
        script.parent.rmdir()


if __name__ == "__main__":
    main()
