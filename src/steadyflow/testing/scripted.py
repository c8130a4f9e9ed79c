"""``ScriptedLlm`` and ``FunctionLlm``: deterministic models for tests.

A script is a list of steps, one per provider attempt. A step is:

- ``str``: a text answer;
- ``FunctionCall`` or a list of them: a function-call answer (parallel calls);
- ``LlmResponse``: returned as is;
- ``Stream(chunks, error=..., error_after=N)``: streamed text chunks, and
  optionally an error raised after ``N`` chunks (0 = before the first);
- an exception instance: raised when the attempt starts.

Every request the model saw is recorded in ``.requests`` (one per attempt).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ..models.base import BaseLlm
from ..models.llm_request import LlmRequest
from ..models.llm_response import LlmResponse
from ..types import Content, FunctionCall, Part, UsageMetadata

__all__ = ["FunctionLlm", "ScriptedLlm", "Step", "Stream", "call", "response_from_step"]


@dataclass(frozen=True)
class Stream:
    """A streamed answer: text chunks, then optionally an error.

    Attributes:
        chunks: text deltas, each yielded as a partial response.
        error: raised after ``error_after`` chunks (before the first when 0).
        error_after: how many chunks are yielded before ``error``.
        function_calls: calls carried by the final aggregate response.
        delay: seconds slept (through asyncio) before each chunk.
    """

    chunks: Sequence[str]
    error: BaseException | None = None
    error_after: int | None = None
    function_calls: Sequence[FunctionCall] = field(default_factory=tuple)
    delay: float = 0.0


Step: TypeAlias = str | FunctionCall | list[FunctionCall] | LlmResponse | Stream | BaseException
"""One scripted answer: text, a call, parallel calls, a response, a stream, or an error to raise."""


def call(name: str, args: dict[str, Any] | None = None, id: str | None = None) -> FunctionCall:
    """Shorthand for a ``FunctionCall`` step."""
    return FunctionCall(id=id, name=name, args=args or {})


def _usage(request: LlmRequest, text: str) -> UsageMetadata:
    # A rough, deterministic count so tests and demos see plausible usage.
    prompt = sum(len(p.text or "") for c in request.contents for p in c.parts)
    prompt += len(request.config.system_instruction or "")
    inp, out = max(1, prompt // 4), max(1, len(text) // 4)
    return UsageMetadata(input_tokens=inp, output_tokens=out, total_tokens=inp + out)


def response_from_step(step: Step, request: LlmRequest) -> LlmResponse:
    """The complete response a non-streamed step answers with."""
    if isinstance(step, LlmResponse):
        return step
    if isinstance(step, str):
        return LlmResponse(
            content=Content.from_text(step, role="model"),
            finish_reason="STOP",
            usage_metadata=_usage(request, step),
        )
    if isinstance(step, FunctionCall):
        step = [step]
    if isinstance(step, list):
        parts = [Part(function_call=fc.model_copy()) for fc in step]
        return LlmResponse(
            content=Content(role="model", parts=parts),
            finish_reason="STOP",
            usage_metadata=_usage(request, ""),
        )
    if isinstance(step, Stream):
        text = "".join(step.chunks)
        parts = [Part(text=text)] if text else []
        parts += [Part(function_call=fc.model_copy()) for fc in step.function_calls]
        return LlmResponse(
            content=Content(role="model", parts=parts),
            finish_reason="STOP",
            usage_metadata=_usage(request, text),
        )
    raise TypeError(f"not a script step: {step!r}")


async def _stream_step(
    step: Stream, request: LlmRequest, stream: bool
) -> AsyncIterator[LlmResponse]:
    limit = len(step.chunks) if step.error_after is None else step.error_after
    if stream:
        for index, chunk in enumerate(step.chunks):
            if step.error is not None and index >= limit:
                raise step.error
            if step.delay:
                await asyncio.sleep(step.delay)
            yield LlmResponse(content=Content.from_text(chunk, role="model"), partial=True)
    if step.error is not None:
        raise step.error
    yield response_from_step(step, request)


async def _answer(step: Step, request: LlmRequest, stream: bool) -> AsyncIterator[LlmResponse]:
    """The responses one step produces; a text step streams as one partial chunk."""
    if isinstance(step, BaseException):
        raise step
    if isinstance(step, Stream):
        async for response in _stream_step(step, request, stream):
            yield response
        return
    response = response_from_step(step, request)
    if stream and response.text:
        yield LlmResponse(content=Content.from_text(response.text, role="model"), partial=True)
    yield response


class ScriptedLlm(BaseLlm):
    """A model that answers from a script, one step per provider attempt.

    Under ``stream=True`` a text step is streamed as one partial chunk and the
    complete aggregate; a ``Stream`` step yields each chunk. Running out of
    steps raises ``AssertionError`` naming the attempt.
    """

    provider = "scripted"

    def __init__(self, steps: Sequence[Step], model: str = "scripted-model") -> None:
        super().__init__(model)
        self._steps = list(steps)
        self.requests: list[LlmRequest] = []
        self.stream_flags: list[bool] = []

    @property
    def calls(self) -> int:
        """Provider attempts made so far."""
        return len(self.requests)

    def remaining(self) -> int:
        """Steps not yet used."""
        return len(self._steps) - len(self.requests)

    def assert_complete(self) -> None:
        """Fail unless every scripted step was used."""
        if self.remaining():
            raise AssertionError(
                f"{self.remaining()} scripted step(s) were not used "
                f"({len(self.requests)} of {len(self._steps)} attempts made)"
            )

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """Answer with the next scripted step."""
        index = len(self.requests)
        self.requests.append(request)
        self.stream_flags.append(stream)
        if index >= len(self._steps):
            raise AssertionError(
                f"ScriptedLlm ran out of steps: attempt {index + 1}, "
                f"only {len(self._steps)} scripted"
            )
        async for response in _answer(self._steps[index], request, stream):
            yield response


class FunctionLlm(BaseLlm):
    """A model whose answer is computed by ``fn(request)`` (sync or async).

    ``fn`` returns any script ``Step`` (or raises). Requests are recorded.
    """

    provider = "function"

    def __init__(
        self,
        fn: Callable[[LlmRequest], Step | Awaitable[Step]],
        model: str = "function-model",
    ) -> None:
        super().__init__(model)
        self._fn = fn
        self.requests: list[LlmRequest] = []

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """Answer with whatever ``fn`` returns for this request."""
        self.requests.append(request)
        result = self._fn(request)
        step: Step = await result if isinstance(result, Awaitable) else result
        async for response in _answer(step, request, stream):
            yield response
