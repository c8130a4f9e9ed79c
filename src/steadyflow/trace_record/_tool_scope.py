"""``ToolCallScope``: one tool call's span and trace record, around its dispatch.

The flow wraps each tool call in one (``InvocationRecorder.tool_call``); its
exit stamps the record's end and status, and ends the span.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .. import telemetry
from ._schema import ToolTrace

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from ._recorder import InvocationRecorder

__all__ = ["ToolCallScope"]


class ToolCallScope(AbstractContextManager["ToolCallScope"]):
    """One tool call's span (current inside the ``with``) and trace record.

    Without an SDK the span is a no-op: then nothing is made current, ended
    or offered content (known once, from the span's context).
    """

    __slots__ = ("_activation", "_recorder", "record", "span")

    def __init__(
        self, recorder: InvocationRecorder, record: ToolTrace, span: Span, *, traced: bool
    ) -> None:
        self._recorder, self.record, self.span = recorder, record, span
        self._activation = telemetry.activate(span) if traced else None

    def __enter__(self) -> ToolCallScope:
        if self._activation is not None:
            self._activation.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        record = self.record
        record.end = self._recorder.now()
        if exc is not None:
            self.failed(exc)
        elif record.status == "running":
            record.status = "ok"
        if self._activation is not None:
            self._activation.__exit__(exc_type, exc, traceback)
            self.span.end()

    def short_circuit(self, kind: str) -> None:
        """A callback answered instead of the tool."""
        self.record.short_circuit = kind
        if self.span.is_recording():
            self.span.set_attribute(telemetry.ATTR_SHORT_CIRCUIT, kind)

    def failed(self, error: BaseException | str) -> None:
        """The call failed: an exception, or the name of what went wrong."""
        self.record.status = "error"
        self.record.error_type = error if isinstance(error, str) else type(error).__qualname__
        if isinstance(error, BaseException):
            telemetry.record_error(self.span, error)
        elif self.span.is_recording():
            self.span.set_attribute(telemetry.ATTR_ERROR_TYPE, error)

    def content(self, key: str, value: Any) -> None:
        """Record arguments or a result on the span, if the user opted in."""
        if self._activation is not None:
            telemetry.record_content(self.span, key, value)
