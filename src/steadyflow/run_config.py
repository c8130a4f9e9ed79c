"""Per-invocation settings: the call budget, streaming and retries."""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass, field

from .retry._config import RetryConfig

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
    """

    max_llm_calls: int = 500
    streaming_mode: StreamingMode = StreamingMode.NONE
    retry_config: RetryConfig = field(default_factory=RetryConfig.disabled)

    def __post_init__(self) -> None:
        if isinstance(self.max_llm_calls, bool) or not isinstance(self.max_llm_calls, int):
            raise ValueError(f"max_llm_calls must be an int, got {self.max_llm_calls!r}")
        if not isinstance(self.streaming_mode, StreamingMode):
            raise ValueError(f"streaming_mode must be a StreamingMode, got {self.streaming_mode!r}")
        if not isinstance(self.retry_config, RetryConfig):
            raise ValueError(f"retry_config must be a RetryConfig, got {self.retry_config!r}")
        if self.max_llm_calls <= 0:
            logger.warning(
                "max_llm_calls=%d turns the LLM call budget off: nothing stops a looping agent",
                self.max_llm_calls,
            )
