"""Writing one answer on the wire: whole, streamed, broken, malformed or an error.

The server decides *what* to answer (script, responder, fault); this module
turns that decision into bytes, including the deliberate failures.
"""

from __future__ import annotations

import asyncio
import json

from ._dialect import Dialect
from ._faults import Fault
from ._http import HttpResponder
from ._model import EmulatedRequest, Reply

__all__ = ["respond", "respond_with_fault", "send_error"]

_JSON = {"content-type": "application/json"}
_SSE = {"content-type": "text/event-stream", "cache-control": "no-cache"}


async def respond(
    dialect: Dialect, request: EmulatedRequest, reply: Reply, out: HttpResponder, chunk_delay: float
) -> None:
    """Send ``reply``, applying a ``break`` or ``malformed`` fault of ``request``."""
    fault = request.fault
    if fault is not None and fault.kind == "malformed":
        await _malformed(dialect, request, out)
    elif request.stream:
        await _stream(dialect, reply, request, out, fault, chunk_delay)
    elif fault is not None and fault.kind == "break":
        await out.send_partial(200, json.dumps(dialect.render(reply, request)).encode(), _JSON)
    else:
        await out.send(200, json.dumps(dialect.render(reply, request)).encode(), _JSON)


async def respond_with_fault(dialect: Dialect, fault: Fault, out: HttpResponder) -> None:
    """Answer with an error status (``status`` fault) or reset the connection."""
    if fault.kind == "reset":
        out.reset()
        return
    message = fault.message or f"emulated HTTP {fault.status}"
    body = fault.body
    if body is None:
        body = dialect.error_body(fault.status, message, fault)
    data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    await out.send(
        fault.status, data, {**_JSON, **dialect.error_headers(fault.status), **fault.headers}
    )


async def send_error(out: HttpResponder, dialect: Dialect, status: int, message: str) -> None:
    """The provider's own error shape for ``status``."""
    body = dialect.error_body(status, message, None)
    await out.send(status, json.dumps(body).encode(), {**_JSON, **dialect.error_headers(status)})


async def _stream(
    dialect: Dialect,
    reply: Reply,
    request: EmulatedRequest,
    out: HttpResponder,
    fault: Fault | None,
    chunk_delay: float,
) -> None:
    # A break fault hangs up once ``after_chunks`` content events are out,
    # before whatever comes next (more content, or the closing events).
    breaks_after = fault.after_chunks if fault is not None and fault.kind == "break" else None
    await out.start_chunked(200, {**_SSE, "content-type": dialect.stream_content_type})
    sent = 0
    for event in dialect.render_stream(reply, request):
        if breaks_after == sent:
            out.hang_up()
            return
        if chunk_delay:
            await asyncio.sleep(chunk_delay)
        await out.send_chunk(event.data)
        sent += event.content
    await out.end_chunked()


async def _malformed(dialect: Dialect, request: EmulatedRequest, out: HttpResponder) -> None:
    if request.stream:
        await out.start_chunked(200, _SSE)
        await out.send_chunk(dialect.malformed_event().data)
        await out.end_chunked()
    else:
        # Whole but not JSON (a missing comma): a cut body is a different failure.
        await out.send(200, b'{"id": "broken" "choices": []}', _JSON)
