"""Measure /run_sse latency: from the model yielding a chunk to the client reading it.

The server runs in a child process (``steadyflow.server.serve`` with uvicorn,
as ``steadyflow serve`` runs it); its model stamps each streamed chunk with
``time.monotonic_ns()`` (a clock shared by every process on the machine), and
the client subtracts that stamp from its own reading when the SSE line
arrives. Chunks are spaced apart so each is measured on its own rather than
batched with the next.

    .venv/bin/python scripts/measure_sse_latency.py [--turns 20] [--chunks 25]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]

SERVER = """
import asyncio, sys, time
from steadyflow import Content, LlmAgent
from steadyflow.models import BaseLlm, LlmResponse
from steadyflow.server import serve

CHUNKS, GAP = int(sys.argv[1]), float(sys.argv[2])

class StampingLlm(BaseLlm):
    async def generate_content_async(self, request, stream=False):
        for _ in range(CHUNKS):
            await asyncio.sleep(GAP)
            stamp = str(time.monotonic_ns())
            yield LlmResponse(content=Content.from_text(stamp + " ", role="model"), partial=True)
        yield LlmResponse(content=Content.from_text("done", role="model"))

agent = LlmAgent(name="bench", model=StampingLlm("stamping"))
serve(agent, session_url="memory://", port=0, log_level="info")
"""

LISTENING = re.compile(rb"Uvicorn running on (http://127\.0\.0\.1:\d+)")


async def start_server(chunks: int, gap: float) -> tuple[asyncio.subprocess.Process, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    argv = [sys.executable, "-c", SERVER, str(chunks), str(gap)]
    process = await asyncio.create_subprocess_exec(
        *argv, env=env, stderr=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.DEVNULL
    )
    assert process.stderr is not None
    while line := await process.stderr.readline():
        if match := LISTENING.search(line):
            return process, match.group(1).decode()
    raise SystemExit("the server did not start")


async def drain(stream: asyncio.StreamReader) -> None:
    while await stream.readline():  # the access log: a full pipe would block the server
        pass


async def one_turn(client: httpx.AsyncClient, session_id: str) -> list[float]:
    body = {"app_name": "bench", "user_id": "u", "session_id": session_id, "new_message": "go"}
    latencies = []
    async with client.stream("POST", "/run_sse", json=body) as response:
        async for line in response.aiter_lines():
            if not line.startswith("data:"):
                continue
            arrived = time.monotonic_ns()
            event = json.loads(line[5:])
            if event.get("partial"):
                stamp = int(event["content"]["parts"][0]["text"])
                latencies.append((arrived - stamp) / 1e6)
    return latencies


async def main(turns: int, chunks: int, gap: float) -> None:
    process, url = await start_server(chunks, gap)
    assert process.stderr is not None
    draining = asyncio.create_task(drain(process.stderr))
    try:
        async with httpx.AsyncClient(base_url=url, timeout=60) as client:
            created = await client.post("/apps/bench/users/u/sessions")
            session_id = created.json()["id"]
            await one_turn(client, session_id)  # warm-up, not counted
            samples: list[float] = []
            for _ in range(turns):
                samples += await one_turn(client, session_id)
    finally:
        process.terminate()
        await process.wait()
        await draining
    samples.sort()
    quantiles = statistics.quantiles(samples, n=100)
    print(f"{len(samples)} chunks over {turns} turns, {gap * 1000:.0f} ms apart")
    print(
        f"model chunk -> client, ms: p50 {quantiles[49]:.2f}  p95 {quantiles[94]:.2f}  "
        f"p99 {quantiles[98]:.2f}  max {samples[-1]:.2f}  mean {statistics.fmean(samples):.2f}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--chunks", type=int, default=25)
    parser.add_argument("--gap", type=float, default=0.01, help="seconds between chunks")
    args = parser.parse_args()
    asyncio.run(main(args.turns, args.chunks, args.gap))
