"""Shared names of the provider tests: the secret, the models, the adapters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from steadyflow.models import BaseLlm
from steadyflow.models.anthropic import Anthropic
from steadyflow.models.gemini import Gemini
from steadyflow.models.openai import OpenAI, OpenAIResponses
from steadyflow.testing.emulator import ProviderEmulator

SECRET = "sk-test-Zq81x-DO-NOT-LEAK-4242"
PROVIDERS = ("gemini", "openai", "openai-responses", "anthropic")
MODELS = {
    "gemini": "gemini-3-test-flash",
    "openai": "gpt-test-mini",
    "openai-responses": "gpt-test-mini",
    "anthropic": "claude-test-sonnet",
}
ADAPTERS: dict[str, type[Gemini | OpenAI | OpenAIResponses | Anthropic]] = {
    "gemini": Gemini,
    "openai": OpenAI,
    "openai-responses": OpenAIResponses,
    "anthropic": Anthropic,
}

Emulate = Callable[..., Any]
MakeLlm = Callable[..., BaseLlm]


def base_url(provider: str, emu: ProviderEmulator) -> str:
    return emu.openai_base_url if provider.startswith("openai") else emu.base_url
