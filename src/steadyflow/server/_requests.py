"""``RequestLog``: the exact ``LlmRequest`` of each step, kept for the viewer.

The stored trace says what each step did, not what the model was sent: a
request repeats the whole transcript, so storing one per step would make a
session grow with the square of its length. Instead the server's runner
calls this log through ``Runner(on_model_request=...)``: after the agent's
before-model callbacks (so it sees their edits), only when the model is
really called, and once per step however many attempts the retry policy
makes.

The log lives in the process that ran the turn and keeps the most recent
invocations only: behind a load balancer, a request is shown by the process
that ran it until it is pushed out. Recording costs one shallow copy per
step; serialization happens when the viewer asks.
"""

from __future__ import annotations

from collections import OrderedDict

from ..models.llm_request import LlmRequest

__all__ = ["RequestLog"]


class RequestLog:
    """Recent invocations' requests by step number (1-based, as in the trace).

    Args:
        max_invocations: how many invocations to remember (oldest dropped).
    """

    def __init__(self, max_invocations: int = 256) -> None:
        if max_invocations < 1:
            raise ValueError(f"max_invocations must be >= 1, got {max_invocations}")
        self._max = max_invocations
        self._log: OrderedDict[str, dict[int, LlmRequest]] = OrderedDict()

    def __repr__(self) -> str:
        return f"RequestLog({len(self._log)} invocations)"

    def __call__(self, invocation_id: str, step: int, request: LlmRequest) -> None:
        """The runner's ``on_model_request`` listener: remember this step's request."""
        requests = self._log.get(invocation_id)
        if requests is None:
            requests = self._log[invocation_id] = {}
            if len(self._log) > self._max:
                self._log.popitem(last=False)
        requests[step] = request.model_copy()

    def get(self, invocation_id: str, step: int) -> LlmRequest | None:
        """The request step ``step`` of ``invocation_id`` sent, if this process recorded it."""
        return self._log.get(invocation_id, {}).get(step)
