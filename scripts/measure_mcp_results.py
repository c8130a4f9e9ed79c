"""Measure how long an MCP toolset takes to read one large tool result over stdio.

The server is a few lines of raw JSON-RPC (run with ``python -c``): it
answers ``initialize`` and ``tools/list``, then answers each ``tools/call``
with one text block of the size asked for. The time is that of
``McpToolset.call_tool`` alone (the session is open and listed first), so
it is the reading and parsing of the one result line.

    .venv/bin/python scripts/measure_mcp_results.py [--mib 20 48 100]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time

from steadyflow.tools.mcp import McpToolset

SERVER = """
import json, sys
size = int(sys.argv[1])
for line in sys.stdin:
    request = json.loads(line)
    if "id" not in request:
        continue
    method = request["method"]
    if method == "initialize":
        result = {"protocolVersion": request["params"]["protocolVersion"], "capabilities": {},
                  "serverInfo": {"name": "big", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": "big", "inputSchema": {"type": "object"}}]}
    else:
        result = {"content": [{"type": "text", "text": "x" * size}]}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}) + "\\n")
    sys.stdout.flush()
"""


async def seconds_to_read(mib: int) -> float:
    """Seconds for one call whose result is a text of ``mib`` MiB."""
    size = mib * 1024 * 1024
    toolset = McpToolset(
        command=[sys.executable, "-c", SERVER, str(size)],
        name="big",
        max_result_bytes=size + 1024 * 1024,
        timeout=None,
    )
    try:
        await toolset.get_tools()
        start = time.perf_counter()
        await toolset.call_tool("big", {})
        return time.perf_counter() - start
    finally:
        await toolset.close()


def main() -> None:
    """Print one line per size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, nargs="+", default=[20, 48, 100])
    args = parser.parse_args()
    for mib in args.mib:
        print(f"{mib:>4} MiB: {asyncio.run(seconds_to_read(mib)):.2f} s", flush=True)


if __name__ == "__main__":
    main()
