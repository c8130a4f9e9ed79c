"""Per-invocation settings: the call budget, usage and spend limits, streaming and retries."""

from __future__ import annotations

import enum
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from .retry._config import RetryConfig
from .usage.limits import SpendLimit, UsageLimits
from .usage.prices import ModelPrice

__all__ = ["RunConfig", "StreamingMode"]

logger = logging.getLogger("steadyflow.run_config")


class StreamingMode(enum.Enum):
    """How the model answers.

    ``NONE``: one complete response per call. ``SSE``: partial responses as
    they are generated, then one complete aggregate. ``BIDI``: a live
    connection (``Runner.run_live``).
    """

    NONE = "none"
    SSE = "sse"
    BIDI = "bidi"


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    """Settings for one invocation.

    Attributes:
        max_llm_calls: provider attempts allowed in one invocation, retries
            included. ``<= 0`` turns the budget off (logged as a warning).
        streaming_mode: see ``StreamingMode``.
        retry_config: the retry policy; off by default (one attempt).
        usage_limits: token and cost limits of this invocation (resumes
            included), checked before every attempt (``steadyflow.usage``).
        spend_limits: caps on what a session, a user or the app spends over
            a window, across invocations, checked before every attempt.
        prices: your own model prices (``"provider:model"`` or ``"model"``
            keys), used before the maintained list (``steadyflow[cost]``).
        on_pending_confirmation: what a plain message does while
            confirmation requests of the session wait for an answer.
            ``"supersede"`` (default): each waiting call is declined with the
            reason "superseded by a new message" (the model reads it), the
            waiting invocation ends ``SUPERSEDED``, and the message starts a
            new invocation. ``"raise"``: ``ConfirmationPendingError`` before
            anything is stored or any model is called (the server answers 409).
    """

    max_llm_calls: int = 500
    streaming_mode: StreamingMode = StreamingMode.NONE
    retry_config: RetryConfig = field(default_factory=RetryConfig.disabled)
    usage_limits: UsageLimits | None = None
    spend_limits: Sequence[SpendLimit] = ()
    prices: Mapping[str, ModelPrice] | None = None
    on_pending_confirmation: Literal["supersede", "raise"] = "supersede"

    def __post_init__(self) -> None:
        if isinstance(self.max_llm_calls, bool) or not isinstance(self.max_llm_calls, int):
            raise ValueError(f"max_llm_calls must be an int, got {self.max_llm_calls!r}")
        if not isinstance(self.streaming_mode, StreamingMode):
            raise ValueError(f"streaming_mode must be a StreamingMode, got {self.streaming_mode!r}")
        if not isinstance(self.retry_config, RetryConfig):
            raise ValueError(f"retry_config must be a RetryConfig, got {self.retry_config!r}")
        self._check_usage_fields()
        if self.on_pending_confirmation not in ("supersede", "raise"):
            raise ValueError(
                "on_pending_confirmation must be 'supersede' or 'raise', "
                f"got {self.on_pending_confirmation!r}"
            )
        if self.max_llm_calls <= 0:
            logger.warning(
                "max_llm_calls=%d turns the call budget (attempts) off: "
                "nothing stops a looping agent",
                self.max_llm_calls,
            )

    def _check_usage_fields(self) -> None:
        if self.usage_limits is not None and not isinstance(self.usage_limits, UsageLimits):
            raise ValueError(f"usage_limits must be a UsageLimits, got {self.usage_limits!r}")
        limits = tuple(self.spend_limits)
        for limit in limits:
            if not isinstance(limit, SpendLimit):
                raise ValueError(f"spend_limits must hold SpendLimit values, got {limit!r}")
        object.__setattr__(self, "spend_limits", limits)
        for key, price in (self.prices or {}).items():
            if not isinstance(key, str) or not isinstance(price, ModelPrice):
                raise ValueError(f"prices maps model names to ModelPrice, got {key!r}: {price!r}")
