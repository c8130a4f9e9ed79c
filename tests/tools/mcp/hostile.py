"""A hostile MCP server over stdio, speaking raw JSON-RPC lines (no SDK, so it can misbehave).

Run as ``python hostile.py MODE``. Modes:

- ``silent``: never answers anything (stuck in ``initialize``);
- ``no-list``: initializes, never answers ``tools/list``;
- ``endless-pages``: every ``tools/list`` page has one tool and a ``nextCursor``;
- ``odd-tools``: lists ``lookup``, a tool whose ``inputSchema`` the SDK refuses
  and tools with names the runtime reserves; ``lookup`` answers ``found``;
- ``no-call``: lists ``lookup`` and never answers a call;
- ``non-utf8``: ``lookup`` answers a text holding a byte that is not UTF-8;
- ``big``: ``lookup`` answers a text of ``MCP_TEST_BYTES`` bytes;
- ``once``: lists ``lookup`` and ``crash`` (which kills the server); started a
  second time, the server exits at once;
- ``misfits``: ``tools/list`` answers as it should, ``lookup`` with a
  ``content`` that is not a list; with ``MCP_TEST_BAD_LIST`` set, ``tools/list``
  answers with a ``nextCursor`` that is not a string.

When ``MCP_TEST_LOG`` names a file, the server writes its pid there first.
"""

import json
import os
import sys

MODE = sys.argv[1]
LOOKUP = {
    "name": "lookup",
    "description": "Look an order up.",
    "inputSchema": {"type": "object", "properties": {"order": {"type": "integer"}}},
}
ODD_TOOLS = [
    LOOKUP,
    {"name": "broken", "inputSchema": {"type": 12}},
    {
        "name": "broken_deeper",
        "inputSchema": {"type": "object", "properties": {"order": {"type": 12}}},
    },
    {"name": "steadyflow_request_confirmation", "inputSchema": {"type": "object"}},
    {"name": "transfer_to_agent", "inputSchema": {"type": "object"}},
]


def send(message: dict) -> None:
    sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
    sys.stdout.buffer.flush()


def answer(request: dict, result: dict) -> None:
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def text_result(request_id: object, text: bytes) -> bytes:
    """A tools/call result line holding ``text`` as raw bytes (they may not be UTF-8)."""
    head = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {"content": []}})
    before, after = head.split('"content": []', 1)
    block = b'"content": [{"type": "text", "text": "' + text + b'"}]'
    return before.encode() + block + after.encode() + b"\n"


def on_call(request: dict) -> None:
    if MODE == "no-call":
        return
    if MODE == "once" and request["params"]["name"] == "crash":
        os._exit(3)
    if MODE == "non-utf8":
        sys.stdout.buffer.write(text_result(request["id"], b"caf\xe9 au lait"))
    elif MODE == "misfits":
        answer(request, {"content": "not a list"})
    elif MODE == "big":
        size = int(os.environ["MCP_TEST_BYTES"])
        sys.stdout.buffer.write(text_result(request["id"], b"x" * size))
    else:
        answer(request, {"content": [{"type": "text", "text": "found"}]})
    sys.stdout.buffer.flush()


def on_list(request: dict) -> None:
    if MODE == "no-list":
        return
    if MODE == "endless-pages":
        page = int((request.get("params") or {}).get("cursor") or 0)
        tool = {"name": f"tool_{page}", "inputSchema": {"type": "object"}}
        answer(request, {"tools": [tool], "nextCursor": str(page + 1)})
    elif MODE == "misfits" and os.environ.get("MCP_TEST_BAD_LIST"):
        answer(request, {"tools": [LOOKUP], "nextCursor": 7})
    elif MODE == "odd-tools":
        answer(request, {"tools": ODD_TOOLS})
    elif MODE == "once":
        answer(request, {"tools": [LOOKUP, {"name": "crash", "inputSchema": {"type": "object"}}]})
    else:
        answer(request, {"tools": [LOOKUP]})


def main() -> None:
    log = os.environ.get("MCP_TEST_LOG")
    if log:
        if MODE == "once" and os.path.exists(log):
            sys.exit(1)  # the second start
        with open(log, "w") as out:
            out.write(str(os.getpid()))
    for line in sys.stdin:
        request = json.loads(line)
        method = request.get("method")
        if "id" not in request or MODE == "silent":
            continue
        if method == "initialize":
            version = request["params"]["protocolVersion"]
            answer(
                request,
                {
                    "protocolVersion": version,
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "hostile", "version": "1"},
                },
            )
        elif method == "tools/list":
            on_list(request)
        elif method == "tools/call":
            on_call(request)
        else:
            answer(request, {})


if __name__ == "__main__":
    main()
