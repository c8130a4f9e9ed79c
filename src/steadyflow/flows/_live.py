"""Live (BIDI) runs: one connection, requests pumped in, events streamed out.

The connection counts as one attempt against ``max_llm_calls``. Function
calls the model makes are run as in ``run_async`` and their responses sent
back over the same connection. Live connections are not retried: a live
session has already emitted output by the time most failures happen.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from ..context import InvocationContext
from ..events import Event
from ..live_request_queue import LiveRequestQueue
from ..models.base import BaseLlmConnection
from ._call_ids import prepare_calls
from ._functions import execute_function_calls
from ._response_to_event import response_to_event

if TYPE_CHECKING:
    from ._agent import FlowAgent
    from ._base_flow import BaseLlmFlow

__all__ = ["run_live"]


async def _pump(queue: LiveRequestQueue, connection: BaseLlmConnection) -> None:
    while True:
        item = await queue.get()
        if item.close:
            await connection.close()
            return
        if item.content is not None:
            await connection.send_content(item.content)
        if item.blob is not None:
            await connection.send_realtime(item.blob.data, item.blob.mime_type)


async def run_live(
    flow: BaseLlmFlow, agent: FlowAgent, ctx: InvocationContext
) -> AsyncIterator[Event]:
    """Events of a live invocation until the queue is closed or the model ends."""
    queue = ctx.live_request_queue
    if not isinstance(queue, LiveRequestQueue):
        raise ValueError("run_live needs a LiveRequestQueue on the invocation context")
    request = await flow.preprocess(agent, ctx)
    ctx.increment_llm_call_count()
    llm = agent.canonical_model
    connection = llm.connect(request)
    sender = asyncio.create_task(_pump(queue, connection))
    tools = flow.tools_for(agent)
    try:
        async for response in connection.receive():
            event = response_to_event(agent, ctx, response, None)
            if event is None:
                continue
            calls = [] if event.partial else event.get_function_calls()
            prepare_calls(event, calls, tools)
            yield event
            if not calls:
                continue
            response_event = await execute_function_calls(agent, ctx, calls, tools)
            if response_event is not None:
                yield response_event
                assert response_event.content is not None
                await connection.send_content(response_event.content)
    finally:
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sender
        await connection.close()
