"""``LiveRequestQueue``: what a caller sends into a live (BIDI) invocation."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from .types import Blob, Content

__all__ = ["LiveRequest", "LiveRequestQueue"]


@dataclass(frozen=True)
class LiveRequest:
    """One item for the live model: a turn, a realtime chunk, or close."""

    content: Content | None = None
    blob: Blob | None = None
    close: bool = False


class LiveRequestQueue:
    """An asyncio queue of ``LiveRequest`` items, consumed by ``Runner.run_live``."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[LiveRequest] = asyncio.Queue()

    def send_content(self, content: Content) -> None:
        """Send a complete user turn."""
        self._queue.put_nowait(LiveRequest(content=content))

    def send_realtime(self, blob: Blob) -> None:
        """Send a chunk of realtime input (audio, video)."""
        self._queue.put_nowait(LiveRequest(blob=blob))

    def close(self) -> None:
        """End the live invocation once queued items are sent."""
        self._queue.put_nowait(LiveRequest(close=True))

    async def get(self) -> LiveRequest:
        """The next item (waits)."""
        return await self._queue.get()
