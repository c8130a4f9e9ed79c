"""Each provider dialect's strict emulator, asked in-process whether it accepts a request.

The request is turned into a body by the adapter's own wire code (as it
would go out) and checked by the emulator dialect's ``parse`` (as the
provider would check it), with no server or socket in between: fast enough
to run over thousands of generated histories.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from steadyflow.models import LlmRequest
from steadyflow.models._anthropic_wire import build_params as anthropic_params
from steadyflow.models._gemini_wire import contents_from
from steadyflow.models._instruction_turn import conversation
from steadyflow.models._openai_wire import build_params as openai_params
from steadyflow.models._responses_wire import build_params as responses_params
from steadyflow.testing.emulator._anthropic import AnthropicDialect
from steadyflow.testing.emulator._dialect import Dialect
from steadyflow.testing.emulator._gemini import GeminiDialect
from steadyflow.testing.emulator._model import EmulatedRequest
from steadyflow.testing.emulator._openai import OpenAIDialect
from steadyflow.testing.emulator._responses import ResponsesDialect


def _openai(request: LlmRequest) -> dict[str, Any]:
    return openai_params(request, "gpt-4o-mini", "max_completion_tokens")


def _responses(request: LlmRequest) -> dict[str, Any]:
    return responses_params(request, "gpt-4o-mini", store=True, service_tier=None)


def _anthropic(request: LlmRequest) -> dict[str, Any]:
    return anthropic_params(request, "claude-sonnet-4-5")


def _gemini(request: LlmRequest) -> dict[str, Any]:
    contents = contents_from(conversation(request.contents), "gemini-2.5-flash")  # as gemini.py
    body: dict[str, Any] = {
        "contents": [c.model_dump(mode="json", exclude_none=True) for c in contents]
    }
    if request.config.system_instruction:
        body["systemInstruction"] = {"parts": [{"text": request.config.system_instruction}]}
    return body


DIALECTS: dict[str, tuple[Callable[[LlmRequest], dict[str, Any]], Callable[[], Dialect]]] = {
    "openai-chat": (_openai, OpenAIDialect),
    "openai-responses": (_responses, ResponsesDialect),
    "anthropic": (_anthropic, AnthropicDialect),
    "gemini": (_gemini, GeminiDialect),
}


def refusals(request: LlmRequest) -> dict[str, str]:
    """What each dialect's emulator says against ``request``; empty when all accept it."""
    refused: dict[str, str] = {}
    for name, (body_of, dialect) in DIALECTS.items():
        try:
            emulated = EmulatedRequest(provider=name, number=1, model="", stream=False)
            if name == "gemini":
                emulated.model = "gemini-2.5-flash"
            dialect().parse(body_of(request), emulated)
        except Exception as error:  # the report names the dialect and the refusal
            refused[name] = f"{type(error).__name__}: {error}"
    return refused
