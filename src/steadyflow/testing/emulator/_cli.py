"""The emulator's command line: serve on loopback until interrupted.

``steadyflow emulate`` calls ``main`` with its own arguments; so does
``python -m steadyflow.testing.emulator``. It prints the base URLs and the
environment variables that point the adapters at it.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..._json import is_array, is_object
from ._faults import Fault, parse_fault
from ._model import Reply, ScriptItem, ToolCall
from ._server import ProviderEmulator

__all__ = ["build_parser", "load_script", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The emulator's argument parser (reused by ``steadyflow emulate``)."""
    parser = argparse.ArgumentParser(
        prog="steadyflow emulate",
        description="Serve Gemini, OpenAI and Anthropic wire formats on loopback, with faults.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port (default: a free one)")
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        metavar="SPEC",
        help="inject a fault, e.g. 429@1,retry_after=2  503@2  reset@3  break@1,after=1  "
        "delay@1,seconds=5  malformed@4  503%%0.2 (repeatable)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of probabilistic faults")
    parser.add_argument("--script", type=Path, help="JSON file: a list of answers")
    parser.add_argument("--api-key", help="require this API key on every request")
    parser.add_argument("--chunk-delay", type=float, default=0.0, help="seconds between SSE events")
    return parser


def _item(raw: Any) -> ScriptItem:
    if isinstance(raw, str):
        return raw
    if is_object(raw):
        calls = tuple(
            ToolCall(c["name"], c.get("args") or {}, c.get("id")) for c in raw.get("tool_calls", [])
        )
        chunks = raw.get("chunks")
        return Reply(
            text=raw.get("text", "".join(chunks or [])),
            tool_calls=calls,
            chunks=tuple(chunks) if chunks else None,
            finish=raw.get("finish", "stop"),
        )
    raise ValueError(f"a script answer must be a string or an object, got {raw!r}")


def load_script(path: Path) -> list[ScriptItem]:
    """Answers from a JSON file: strings, or objects with text, chunks, tool_calls, finish."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if not is_array(data):
        raise ValueError(f"{path}: the script must be a JSON list of answers")
    return [_item(raw) for raw in data]


def main(argv: Sequence[str] | None = None) -> int:
    """Serve until Ctrl-C; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        faults: list[Fault] = [parse_fault(spec) for spec in args.fault]
        script = load_script(args.script) if args.script else None
    except (OSError, ValueError, KeyError) as exc:
        parser.error(str(exc))
    emulator = ProviderEmulator(
        script,
        faults=faults,
        seed=args.seed,
        api_key=args.api_key,
        chunk_delay=args.chunk_delay,
        host=args.host,
        port=args.port,
    )
    with emulator.running_in_thread():
        print(f"provider emulator on {emulator.base_url}", flush=True)
        for name, value in emulator.env().items():
            print(f"export {name}={value}", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            print("stopped", file=sys.stderr)
    return 0
