"""The agent the multi-process tests serve with ``steadyflow serve``.

It echoes the message with the serving process's id, so a test sees which
process ran a turn. A message ``hold:PORT`` makes the model connect to
``127.0.0.1:PORT`` and wait for one byte before answering: the test decides
when a turn in another process may go on, without sleeping.
"""

from __future__ import annotations

import asyncio
import os

from steadyflow import LlmAgent
from steadyflow.models import LlmRequest
from steadyflow.testing import FunctionLlm


async def answer(request: LlmRequest) -> str:
    text = request.contents[-1].text
    if text.startswith("hold:"):
        reader, writer = await asyncio.open_connection("127.0.0.1", int(text[5:]))
        await reader.readexactly(1)
        writer.close()
        await writer.wait_closed()
    return f"pid {os.getpid()} echoes {text}"


root_agent = LlmAgent(name="shop", model=FunctionLlm(answer))
