"""Context growth control: how much of a long session each model call replays.

``HistoryPolicy`` caps the replayed history by events or tokens, optionally
summarizing what falls outside the cap (``Compaction``), and warns when a
request gets large. Set it on the agent: ``LlmAgent(history=HistoryPolicy(...))``.
"""

from .policy import DEFAULT_SUMMARY_INSTRUCTION, Compaction, HistoryPolicy
from .summary import SUMMARY_KEY, is_summary_event
from .tokens import content_tokens, text_tokens

__all__ = [
    "DEFAULT_SUMMARY_INSTRUCTION",
    "SUMMARY_KEY",
    "Compaction",
    "HistoryPolicy",
    "content_tokens",
    "is_summary_event",
    "text_tokens",
]
