"""The two ways a turn is answered: one JSON body (``/run``) or an SSE stream (``/run_sse``).

Both run the turn as a registered task and watch the connection while it
runs: a client that disconnects cancels the turn at once (Starlette's own
``StreamingResponse`` only notices a gone client on its next write, which
may be after the model has been paid for).

The SSE stream, after HTTP 200::

    event: event          one per runner event, partial or complete (null fields left out)
    data: {Event JSON}

    event: done           the turn ended normally (always last)
    data: {"invocation_id": "...", "events": 3}

    event: error          the turn failed mid-stream (always last)
    data: {"type": "ModelHTTPError", "message": "...", "status_code": 502,
           "provider_status": 503}

``: ping`` comment lines keep an idle stream open through proxies.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.responses import JSONResponse, Response
from starlette.types import Receive, Scope, Send

from ..events import Event
from ..run_config import RunConfig
from ..runner import Runner
from ..types import Content
from ._errors import error_info, status_for
from ._turns import ClientGoneError, TurnRegistry, run_until_disconnect

__all__ = ["SseTurnResponse", "Turn", "TurnResponse", "sse_frame"]

_SSE_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}


@dataclass(frozen=True)
class Turn:
    """One turn to run: who, where, what (a message, or None: resume), and how."""

    runner: Runner
    registry: TurnRegistry
    user_id: str
    session_id: str
    message: Content | None
    run_config: RunConfig
    invocation_id: str | None = None  # the invocation a resume continues

    def events(self) -> AsyncIterator[Event]:
        """The runner's events for this turn."""
        if self.message is None:
            return self.runner.resume_async(
                user_id=self.user_id,
                session_id=self.session_id,
                invocation_id=self.invocation_id,
                run_config=self.run_config,
            )
        return self.runner.run_async(
            user_id=self.user_id,
            session_id=self.session_id,
            new_message=self.message,
            run_config=self.run_config,
        )

    async def drive(self, sink: Callable[[Event], Awaitable[None]]) -> BaseException | None:
        """Run the turn, passing each event to ``sink``; returns the error that ended it."""
        events = self.events()
        try:
            while True:
                try:
                    event = await anext(events)
                except StopAsyncIteration:
                    return None
                except Exception as error:  # the turn failed; the sink's errors propagate
                    return error
                await sink(event)
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()


def sse_frame(kind: str, data: str) -> bytes:
    """One SSE message (``data`` must be a single line, as JSON is)."""
    return f"event: {kind}\ndata: {data}\n\n".encode()


class TurnResponse(Response):
    """Runs a turn, then answers with all its events (and the error, if any)."""

    def __init__(self, turn: Turn) -> None:
        super().__init__(media_type="application/json")
        self.turn = turn

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the turn, answer when it is over; send nothing to a gone client."""
        events: list[Event] = []

        async def collect(event: Event) -> None:
            events.append(event)

        task = self.turn.registry.start(self.turn.drive(collect))
        try:
            error = await run_until_disconnect(task, receive)
        except ClientGoneError:
            return
        body: dict[str, Any] = {"events": [e.model_dump(mode="json") for e in events]}
        body["error"] = None if error is None else error_info(error)
        status = 200 if error is None else status_for(error)
        await JSONResponse(body, status_code=status)(scope, receive, send)


class SseTurnResponse(Response):
    """Streams a turn's events as Server-Sent Events, ending with ``done`` or ``error``."""

    def __init__(self, turn: Turn, ping_interval: float) -> None:
        super().__init__(media_type="text/event-stream")
        self.turn = turn
        self.ping_interval = ping_interval

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Send the stream; a client that disconnects cancels the turn."""
        lock = asyncio.Lock()
        finished = False

        async def emit(chunk: bytes, more: bool = True) -> None:
            nonlocal finished
            async with lock:
                if finished:  # a ping that lost the race with the terminal message
                    return
                finished = not more
                await send({"type": "http.response.body", "body": chunk, "more_body": more})

        headers = [(b"content-type", b"text/event-stream; charset=utf-8")]
        headers += [(k.encode(), v.encode()) for k, v in _SSE_HEADERS.items()]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        pinger = asyncio.ensure_future(self._ping(emit))
        task = self.turn.registry.start(self._stream(emit))
        try:
            await run_until_disconnect(task, receive)
        except ClientGoneError:
            pass
        finally:
            pinger.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pinger

    async def _ping(self, emit: Callable[[bytes], Awaitable[None]]) -> None:
        while True:
            await asyncio.sleep(self.ping_interval)
            await emit(b": ping\n\n")

    async def _stream(self, emit: Callable[[bytes, bool], Awaitable[None]]) -> None:
        count = 0
        invocation_id = ""

        async def forward(event: Event) -> None:
            nonlocal count, invocation_id
            count += 1
            invocation_id = invocation_id or event.invocation_id
            await emit(sse_frame("event", event.model_dump_json(exclude_none=True)), True)

        error = await self.turn.drive(forward)
        if error is None:
            summary = {"invocation_id": invocation_id, "events": count}
            await emit(sse_frame("done", json.dumps(summary)), False)
        else:
            await emit(sse_frame("error", json.dumps(error_info(error))), False)
