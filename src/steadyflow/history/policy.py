"""``HistoryPolicy`` and ``Compaction``: how much of a session each model call replays.

The request is rebuilt from the session on every step, so without a policy a
long session replays its whole history into every call. These are plain,
validated settings; the contents request processor applies them
(``steadyflow.flows.processors._history``), so the request a model receives,
and what ``dump-request`` shows, is exactly the trimmed one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..models.base import BaseLlm
from ..types import GenerateContentConfig

__all__ = ["DEFAULT_SUMMARY_INSTRUCTION", "Compaction", "HistoryPolicy"]

DEFAULT_SUMMARY_INSTRUCTION = (
    "You compress the earlier part of a conversation between a user and an AI agent "
    "so the agent can continue without it. Write a concise summary that keeps every "
    "fact, decision, open question, commitment, identifier (order numbers, names, "
    "dates, amounts) and tool result the agent may still need. If the transcript "
    "starts with an earlier summary, merge it in. Answer with the summary only."
)
"""The system instruction of a summary call when ``Compaction.instruction`` is not set."""


def _positive_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a positive int, got {value!r}")


@dataclass(frozen=True, kw_only=True)
class Compaction:
    """Replace the history that falls outside the cap with a model-written summary.

    When the replayed history passes the policy's cap, the oldest events are
    summarized by one model call and the summary takes their place in the
    request (the session keeps every event). The summary is stored as an
    event, so it is computed once per crossing, not on every step.

    Attributes:
        model: the model that writes summaries (a name resolved through
            ``LlmRegistry`` or a ``BaseLlm``); ``None`` means the agent's model.
        instruction: the system instruction of the summary call.
        keep_fraction: when compacting, the newest history kept verbatim is cut
            down to this fraction of the cap, so the next crossing (and the next
            summary call) comes only after the history has grown by the rest.
        generate_content_config: settings of the summary call (temperature,
            ``max_output_tokens``...). Its tools and system instruction are
            ignored. Under ``max_tokens`` without a ``max_output_tokens`` here,
            the summary is limited to ``(1 - keep_fraction) * max_tokens / 2``
            tokens, so a summary can never fill the room it was made to free.
    """

    model: str | BaseLlm | None = None
    instruction: str = DEFAULT_SUMMARY_INSTRUCTION
    keep_fraction: float = 0.5
    generate_content_config: GenerateContentConfig | None = None

    def __post_init__(self) -> None:
        if self.model is not None and not isinstance(self.model, str | BaseLlm):
            raise ValueError(
                f"Compaction.model must be a model name or a BaseLlm, got {self.model!r}"
            )
        if isinstance(self.model, str) and not self.model:
            raise ValueError("Compaction.model must not be empty; use None for the agent's model")
        if not isinstance(self.instruction, str) or not self.instruction.strip():
            raise ValueError(
                f"Compaction.instruction must be a non-empty string, got {self.instruction!r}"
            )
        fraction = self.keep_fraction
        if (
            isinstance(fraction, bool)
            or not isinstance(fraction, int | float)
            or math.isnan(fraction)
            or not 0 < fraction < 1
        ):
            raise ValueError(
                f"Compaction.keep_fraction must be between 0 and 1 (exclusive), got {fraction!r}"
            )
        config = self.generate_content_config
        if config is not None and not isinstance(config, GenerateContentConfig):
            raise ValueError(
                "Compaction.generate_content_config must be a GenerateContentConfig, "
                f"got {config!r}"
            )


@dataclass(frozen=True, kw_only=True)
class HistoryPolicy:
    """How much of the session's history an agent replays into each model call.

    Give at most one cap: ``max_events`` (the last N events the agent sees) or
    ``max_tokens`` (a token budget for the replayed history, counted with the
    provider's reported numbers where known, ``steadyflow.history.tokens``
    otherwise). Whatever the cap, the request always holds the current turn
    (the latest user message and everything after it) and never a function
    call without its response or a response without its call; those two
    rules win over the cap.

    Attributes:
        max_events: keep at most this many events of history (a summary counts
            as one).
        max_tokens: keep the replayed history (summary included) under this
            many tokens.
        compaction: summarize what falls outside the cap instead of dropping
            it; needs a cap.
        warn_input_tokens: log a WARNING on ``steadyflow.history`` when a
            request's estimated input tokens (history plus system instruction)
            exceed this number.
    """

    max_events: int | None = None
    max_tokens: int | None = None
    compaction: Compaction | None = None
    warn_input_tokens: int | None = None

    def __post_init__(self) -> None:
        if self.max_events is not None:
            _positive_int("HistoryPolicy.max_events", self.max_events)
        if self.max_tokens is not None:
            _positive_int("HistoryPolicy.max_tokens", self.max_tokens)
        if self.warn_input_tokens is not None:
            _positive_int("HistoryPolicy.warn_input_tokens", self.warn_input_tokens)
        if self.max_events is not None and self.max_tokens is not None:
            raise ValueError("HistoryPolicy takes max_events or max_tokens, not both")
        if self.compaction is not None and not isinstance(self.compaction, Compaction):
            raise ValueError(
                f"HistoryPolicy.compaction must be a Compaction or None, got {self.compaction!r}"
            )
        if self.compaction is not None and self.cap is None:
            raise ValueError("HistoryPolicy.compaction needs a cap: set max_events or max_tokens")

    @property
    def cap(self) -> int | None:
        """The cap in its own unit (events or tokens), or None without one."""
        return self.max_events if self.max_events is not None else self.max_tokens

    @property
    def by_tokens(self) -> bool:
        """True when the cap is a token budget."""
        return self.max_tokens is not None
