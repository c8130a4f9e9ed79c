"""Live progress: each provider attempt as it happens, a spinner while the retry loop waits.

``ObservedLlm`` wraps the agent's model and reports every attempt's start
and outcome; the retry loop's WARNING log record (one per retry, carrying the
delay) marks the start of a wait. On a terminal the reporter draws spinners
and a countdown; to a pipe it prints one plain line per attempt and wait.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Collection, Generator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.status import Status

from ..agents.base_agent import BaseAgent
from ..agents.llm_agent import LlmAgent
from ..errors import ModelError
from ..models.base import BaseLlm, BaseLlmConnection
from ..models.fallback import FallbackLlm
from ..models.llm_request import LlmRequest
from ..models.llm_response import LlmResponse
from ._console import is_plain
from ._timeline import clip_words, duration

__all__ = ["LiveReporter", "ObservedLlm", "observe_models"]

_TICK = 0.1


class LiveReporter:
    """Prints attempts and waits as they happen (see the module docstring)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._status: Status | None = None
        self._attempt = 0
        self._retrying = False
        self._started = 0.0
        self._hint: float | None = None
        self._ticker: asyncio.TimerHandle | None = None

    def attempt_started(self, model: str) -> None:
        """An attempt on ``model`` begins."""
        self._attempt = self._attempt + 1 if self._retrying else 1
        self._retrying, self._hint = False, None
        self._started = time.perf_counter()
        self._spin(f"calling {escape(model)} (attempt {self._attempt})")

    def attempt_answered(self, model: str) -> None:
        """The attempt produced its first response."""
        took = duration(time.perf_counter() - self._started)
        self._line(f"  [green]attempt {self._attempt}[/] {escape(model)}: ok ({took})")

    def attempt_failed(self, model: str, error: BaseException, hint: float | None) -> None:
        """The attempt raised ``error`` (``hint``: the provider's Retry-After)."""
        took = duration(time.perf_counter() - self._started)
        status = getattr(error, "status_code", None)
        what = f"{status} {type(error).__name__}" if status else type(error).__name__
        if isinstance(error, ModelError) and not status:
            what += f" ({clip_words(str(error), 80)})"
        if hint is not None:
            what += f", Retry-After {hint:g} s"
        self._hint = hint
        self._line(f"  [red]attempt {self._attempt}[/] {escape(model)}: {escape(what)} ({took})")

    def waiting(self, delay: float, paced: float = 0.0) -> None:
        """The retry loop waits ``delay`` seconds, ``paced`` of them for its pacer."""
        self._retrying = self._retrying or paced < delay  # a paced first attempt is no retry
        if paced >= delay:
            why = "paced: the provider's rate limit"
        else:
            why = "Retry-After" if self._hint is not None and self._hint == delay else "backoff"
            why += f", paced {paced:.2f} s" if paced else ""
        if is_plain(self.console):
            self.console.print(f"  waiting {delay:.2f} s ({why})")
            return
        deadline = time.perf_counter() + delay
        self._spin(f"[yellow]waiting {delay:.2f} s ({why})[/]")
        self._tick(deadline, why)

    def stop(self) -> None:
        """Remove any spinner (before printing output of one's own)."""
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        if self._status is not None:
            self._status.stop()
            self._status = None

    def _tick(self, deadline: float, why: str) -> None:
        left = max(0.0, deadline - time.perf_counter())
        if self._status is not None:
            self._status.update(f"[yellow]waiting {left:.1f} s ({why})[/]")
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._ticker = loop.call_later(_TICK, self._tick, deadline, why)

    def _spin(self, text: str) -> None:
        self.stop()
        if not is_plain(self.console):
            self._status = self.console.status(text, spinner="dots")
            self._status.start()

    def _line(self, text: str) -> None:
        self.stop()
        self.console.print(text)

    @contextmanager
    def retry_logs(self) -> Generator[None, None, None]:
        """Follow the retry loop's log for waits, instead of printing its raw records."""
        logger = logging.getLogger("steadyflow.retry")
        handler = _RetryLogHandler(self)
        logger.addHandler(handler)
        propagate, logger.propagate = logger.propagate, False
        level = logger.level
        if logger.getEffectiveLevel() > logging.INFO:
            logger.setLevel(logging.INFO)  # paced waits are INFO records
        try:
            yield
        finally:
            logger.removeHandler(handler)
            logger.propagate = propagate
            logger.setLevel(level)
            self.stop()


class _RetryLogHandler(logging.Handler):
    """Retry waits (WARNING records with a ``delay``) and paced first attempts (``paced``)."""

    def __init__(self, reporter: LiveReporter) -> None:
        super().__init__(logging.INFO)
        self._reporter = reporter

    def emit(self, record: logging.LogRecord) -> None:
        delay, paced = getattr(record, "delay", None), getattr(record, "paced", None)
        paced = float(paced) if isinstance(paced, int | float) else 0.0
        if isinstance(delay, int | float):
            self._reporter.waiting(float(delay), paced)
        elif paced:
            self._reporter.waiting(paced, paced)


class ObservedLlm(BaseLlm):
    """``inner`` with every attempt reported to a ``LiveReporter``."""

    def __init__(self, inner: BaseLlm, reporter: LiveReporter) -> None:
        super().__init__(inner.model)
        self.inner = inner
        self.provider = inner.provider
        self._reporter = reporter

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        """Call ``inner``, reporting the attempt's start and outcome."""
        self._reporter.attempt_started(self.model)
        answered = False
        try:
            async for response in self.inner.generate_content_async(request, stream=stream):
                if not answered:
                    answered = True
                    self._reporter.attempt_answered(self.model)
                yield response
        except Exception as error:
            self._reporter.attempt_failed(self.model, error, self.inner.retry_after(error))
            raise

    def connect(self, request: LlmRequest) -> BaseLlmConnection:
        """Live connections are passed through unobserved."""
        return self.inner.connect(request)

    def is_exception_retryable(
        self, error: BaseException, retryable_status_codes: Collection[int]
    ) -> bool:
        """The inner model's classification."""
        return self.inner.is_exception_retryable(error, retryable_status_codes)

    def retry_after(self, error: BaseException) -> float | None:
        """The inner model's wait hint."""
        return self.inner.retry_after(error)


def observe_models(root: BaseAgent, reporter: LiveReporter) -> None:
    """Resolve every LlmAgent's model now and wrap it (fallback chains stay as they are).

    Raises:
        ModelNotFoundError, ImportError: a model name that cannot be resolved.
    """
    pending = [root]
    while pending:
        agent = pending.pop()
        pending.extend(agent.sub_agents)
        if not isinstance(agent, LlmAgent) or not agent.model:
            continue
        llm = agent.canonical_model
        if not isinstance(llm, ObservedLlm | FallbackLlm):
            agent.use_model(ObservedLlm(llm, reporter))
