"""CPU per model call through bench's LLMClient: N chat calls at concurrency C against
a loopback OpenAI-compatible server (benchmarks/loopback_server.py), run in a separate process
so only the client's CPU is counted.

    python benchmarks/llm_request_path.py [--calls 1000] [--concurrency 64] [--transport litellm]
    python benchmarks/llm_request_path.py --profile 25   # also the top 25 functions by own time

The machine may be shared and noisy: compare CPU ms per call, not wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import socket
import subprocess
import sys
import time

from loopback_server import SERVERS, server_command


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _calls(url: str, calls: int, concurrency: int) -> None:
    from bench.llm.client import LLMClient
    from bench.llm.request import LLMRequest
    from bench.llm.settings import LLMSettings

    client = LLMClient(LLMSettings(cache=False, concurrency=concurrency))
    if client.needs_litellm(["openai/fake"]):
        await client.warm_up()  # import and prime litellm outside the measured calls
    await client.complete(LLMRequest("openai/fake", [{"role": "user", "content": "warm"}], api_base=url))
    gate = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with gate:
            await client.complete(
                LLMRequest(
                    "openai/fake", [{"role": "user", "content": f"q {i}"}], {"max_tokens": 16}, api_base=url
                )
            )

    started, cpu = time.perf_counter(), time.process_time()
    await asyncio.gather(*(one(i) for i in range(calls)))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    await client.aclose()
    print(
        f"{calls} calls at concurrency {concurrency} ({os.environ.get('BENCH_LLM_TRANSPORT') or 'auto'}): "
        f"litellm imported: {'litellm' in sys.modules}; {wall:.2f} s wall, {calls / wall:.0f} calls/s, "
        f"{cpu:.2f} s CPU, {cpu / calls * 1000:.2f} ms CPU per call"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--transport", choices=("auto", "litellm"), default=None)
    parser.add_argument("--server", choices=SERVERS, default="loopback", help="see run_llm.py --server")
    parser.add_argument("--profile", type=int, default=0, help="print the top N functions by own time")
    args = parser.parse_args()
    if args.transport:
        os.environ["BENCH_LLM_TRANSPORT"] = args.transport
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench")
    port = _free_port()
    server = subprocess.Popen(
        [*server_command(args.server), "--port", str(port), "--latency", str(args.latency)],
        stdout=subprocess.PIPE,
    )
    try:
        assert server.stdout is not None
        server.stdout.readline()  # "fake LLM server on ..." once it listens
        url = f"http://127.0.0.1:{port}/v1"
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(asyncio.run, _calls(url, args.calls, args.concurrency))
            pstats.Stats(profile).sort_stats("tottime").print_stats(args.profile)
        else:
            asyncio.run(_calls(url, args.calls, args.concurrency))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
