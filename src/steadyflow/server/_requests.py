"""``RequestLog``: the exact ``LlmRequest`` of each step, kept for the viewer.

The stored trace says what each step did, not what the model was sent: a
request repeats the whole transcript, so storing one per step would make a
session grow with the square of its length. Instead the log is a plugin of
the server's runner (``Runner(plugins=[log])``). Its before-model hook runs
first and notes the step's request object; the agent's own before-model
callbacks then edit that same object; once the model was really called (its
response or its error arrived) the request is copied into the log, with
their edits, once per step however many attempts the retry policy made. A
step that a callback answered instead of the model is not recorded.

The log lives in the process that ran the turn and keeps the most recent
invocations only: behind a load balancer, a request is shown by the process
that ran it until it is pushed out. Recording costs one shallow copy per
step; serialization happens when the viewer asks.
"""

from __future__ import annotations

from collections import OrderedDict
from weakref import WeakKeyDictionary

from ..context import CallbackContext
from ..models.llm_request import LlmRequest
from ..models.llm_response import LlmResponse
from ..plugins import BasePlugin

__all__ = ["RequestLog"]


class RequestLog(BasePlugin):
    """Recent invocations' requests by step number (1-based, as in the trace).

    Args:
        max_invocations: how many invocations to remember (oldest dropped).
    """

    def __init__(self, max_invocations: int = 256) -> None:
        super().__init__("request_log")
        if max_invocations < 1:
            raise ValueError(f"max_invocations must be >= 1, got {max_invocations}")
        self._max = max_invocations
        self._log: OrderedDict[str, dict[int, LlmRequest]] = OrderedDict()
        # Requests of steps whose model call has not answered yet (gone with the step).
        self._pending: WeakKeyDictionary[CallbackContext, LlmRequest] = WeakKeyDictionary()

    def __repr__(self) -> str:
        return f"RequestLog({len(self._log)} invocations)"

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Note the step's request; the agent's callbacks may still edit it."""
        self._pending[callback_context] = llm_request
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """The model answered: log the request it was sent."""
        self._commit(callback_context)
        return None

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        """The model call failed: log the request it was sent all the same."""
        self._commit(callback_context)
        return None

    def _commit(self, callback_context: CallbackContext) -> None:
        request = self._pending.pop(callback_context, None)
        if request is not None and callback_context.step is not None:
            self.record(callback_context.invocation_id, callback_context.step, request)

    def record(self, invocation_id: str, step: int, request: LlmRequest) -> None:
        """Remember the request step ``step`` of ``invocation_id`` sent."""
        requests = self._log.get(invocation_id)
        if requests is None:
            requests = self._log[invocation_id] = {}
            if len(self._log) > self._max:
                self._log.popitem(last=False)
        requests[step] = request.model_copy()

    def get(self, invocation_id: str, step: int) -> LlmRequest | None:
        """The request step ``step`` of ``invocation_id`` sent, if this process recorded it."""
        return self._log.get(invocation_id, {}).get(step)
