"""Run the app on a real socket inside the test's event loop, and read SSE streams.

The server is uvicorn on a pre-bound loopback socket, so the test's httpx
client talks real HTTP (streaming and disconnects included) while gates
such as ``asyncio.Event`` still work between the test and the model.
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import uvicorn
from starlette.applications import Starlette

from steadyflow import Content, LlmAgent
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.testing import FunctionLlm, Stream

APP = "shop"
USER = "u1"


@dataclass
class SseMessage:
    """One SSE message: its ``event`` name and decoded ``data`` (None for comments)."""

    event: str
    data: Any


def bound_socket() -> socket.socket:
    """A listening loopback socket on a free port (connections queue until served).

    ``IPPROTO_TCP`` matters: asyncio sets ``TCP_NODELAY`` only on sockets whose
    protocol says TCP; without it Nagle's algorithm meets delayed ACKs and
    every response waits ~40 ms.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


def server_for(app: Starlette, sock: socket.socket) -> uvicorn.Server:
    """A uvicorn server for ``app`` that logs through the root logger (caplog sees it)."""
    config = uvicorn.Config(
        app, log_config=None, ws="none", http="auto", lifespan="on", timeout_graceful_shutdown=5
    )
    return uvicorn.Server(config)


@asynccontextmanager
async def running(app: Starlette) -> AsyncIterator[httpx.AsyncClient]:
    """``app`` served on loopback; yields a client with its base URL."""
    sock = bound_socket()
    server = server_for(app, sock)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    port = sock.getsockname()[1]
    try:
        base_url = f"http://127.0.0.1:{port}"
        async with httpx.AsyncClient(base_url=base_url, timeout=30, verify=False) as client:
            yield client
    finally:
        server.should_exit = True
        await task
        sock.close()


async def read_sse(response: httpx.Response) -> AsyncIterator[SseMessage]:
    """The messages of an SSE response, comments (``: ping``) as event ``comment``."""
    event, data = "message", []
    async for line in response.aiter_lines():
        if line.startswith(":"):
            yield SseMessage("comment", None)
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif line == "" and data:
            yield SseMessage(event, json.loads("\n".join(data)))
            event, data = "message", []


def run_body(session_id: str, text: str = "hi", **run_config: Any) -> dict[str, Any]:
    """A ``/run`` body for the test app and user."""
    body: dict[str, Any] = {
        "app_name": APP,
        "user_id": USER,
        "session_id": session_id,
        "new_message": text,
    }
    if run_config:
        body["run_config"] = run_config
    return body


def lookup_order(order_id: str) -> dict[str, Any]:
    """Look up an order.

    Args:
        order_id: the order number.
    """
    return {"order_id": order_id, "status": "shipped"}


def echo_agent(name: str = APP) -> LlmAgent:
    """An agent that streams back "echo: <message>" in two chunks, forever."""

    def answer(request: LlmRequest) -> Stream:
        return Stream(["echo: ", request.contents[-1].text])

    return LlmAgent(name=name, model=FunctionLlm(answer))


async def create_session(client: httpx.AsyncClient, **body: Any) -> str:
    """Create a session for the test user; returns its id."""
    response = await client.post(f"/apps/{APP}/users/{USER}/sessions", json=body)
    assert response.status_code == 201, response.text
    session_id: str = response.json()["id"]
    return session_id


class Gate:
    """An ``asyncio.Event`` pair for a model that must wait for the test."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def hold(self) -> None:
        """Signal entry, then wait to be released; records a cancellation."""
        self.entered.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


def gated_agent(gate: Gate, name: str = APP) -> LlmAgent:
    """An agent whose model waits at ``gate``, then answers "late answer"."""

    async def answer(request: LlmRequest) -> str:
        await gate.hold()
        return "late answer"

    return LlmAgent(name=name, model=FunctionLlm(answer))


class HoldingLlm(BaseLlm):
    """Streams ``first`` as a partial, then waits at ``gate``, then finishes the answer.

    Later calls answer "fresh answer" at once. ``closed`` is set when a call's
    generator is closed or cancelled before it finished.
    """

    def __init__(self, gate: Gate, first: str = "thinking") -> None:
        super().__init__("holding-model")
        self.gate = gate
        self.first = first
        self.calls = 0
        self.finished_calls = 0

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """See the class docstring."""
        self.calls += 1
        if self.calls > 1:
            yield LlmResponse(content=Content.from_text("fresh answer", role="model"))
            return
        if stream:
            yield LlmResponse(content=Content.from_text(self.first, role="model"), partial=True)
        await self.gate.hold()
        yield LlmResponse(content=Content.from_text(f"{self.first} done", role="model"))
        self.finished_calls += 1
