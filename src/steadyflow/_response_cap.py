"""``ResponseMeter``: the bound on one model response's size, checked as it streams.

A provider that keeps sending (a runaway generation, a hostile endpoint)
would otherwise grow one answer without limit: in memory while it streams,
then in the session and in every later request. The runner measures each
model response as its events pass (the partial chunks of a stream add up;
the complete event is measured whole) and, past ``max_response_bytes``,
raises ``ModelResponseTooLargeError``: the caller's loop ends, every
generator under the runner is closed (the provider stream too), and nothing
of the answer is stored.

Sizes count what a response carries: text (UTF-8 length approximated by
characters), inline bytes, and function-call arguments as text. Tool
results are not model responses; the store's ``max_event_bytes`` bounds
them.
"""

from __future__ import annotations

from .errors import ModelResponseTooLargeError
from .events import Event

__all__ = ["DEFAULT_MAX_RESPONSE_BYTES", "ResponseMeter", "checked_limit"]

DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024
"""The runner's default bound on one model response: 8 MiB."""


def checked_limit(limit: int | None) -> int | None:
    """``limit`` if it is None or an int >= 1; else ``ValueError`` naming the setting."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise ValueError(f"max_response_bytes must be an int >= 1 or None, got {limit!r}")
    return limit


class ResponseMeter:
    """Measures the model responses of one invocation against ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._streamed = 0

    def check(self, event: Event) -> None:
        """Count ``event``; raise ``ModelResponseTooLargeError`` once a response is too big.

        A response's size is about how many bytes it carries: text, inline
        bytes, call arguments. Tool results are not a model's answer: not
        counted. Measured here, in one pass and one frame: the runner asks for
        every event, each streamed chunk included.
        """
        content = event.content
        if content is None:
            return
        size = 0
        for part in content.parts:
            if part.function_response is not None:
                return
            if part.text is not None:
                size += len(part.text)
            if part.inline_data is not None:
                size += len(part.inline_data.data or b"")
            if part.function_call is not None:
                size += len(str(part.function_call.args))
        if event.partial:
            self._streamed += size
            size = self._streamed
        else:
            self._streamed = 0
        if size > self.limit:
            raise ModelResponseTooLargeError(event.author, size, self.limit)
