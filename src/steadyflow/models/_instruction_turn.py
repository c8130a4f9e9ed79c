"""A request with no conversation gets one user turn asking to follow the instruction.

A pipeline stage driven by its instruction alone runs with an empty message
(``run_async(new_message="")``), so its request holds a system instruction
and no turn worth sending. Providers want a conversation: the Gemini SDK
refuses empty contents ("contents are required"), Anthropic a request
without messages. As ADK does, every adapter then sends one user turn,
``INSTRUCTION_ONLY_PROMPT``, so the model handles the request as its system
instruction says. The request itself (and the session) is left as it is.
"""

from __future__ import annotations

from ..types import Content, Part

__all__ = ["INSTRUCTION_ONLY_PROMPT", "conversation"]

INSTRUCTION_ONLY_PROMPT = "Handle the requests as specified in the System Instruction."
"""The user turn sent for a request with no conversation (ADK's words)."""


def conversation(contents: list[Content]) -> list[Content]:
    """``contents``, or the one instruction-only user turn when none has anything to send."""
    for content in contents:
        for part in content.parts:
            if part.has_payload():
                return contents
    return [Content(role="user", parts=[Part(text=INSTRUCTION_ONLY_PROMPT)])]
