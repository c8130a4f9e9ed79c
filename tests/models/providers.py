"""Shared names of the provider tests: the secret, the models, the adapters."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from steadyflow.models import BaseLlm
from steadyflow.models.anthropic import Anthropic
from steadyflow.models.gemini import Gemini
from steadyflow.models.openai import OpenAI
from steadyflow.testing.emulator import ProviderEmulator

SECRET = "sk-test-Zq81x-DO-NOT-LEAK-4242"
PROVIDERS = ("gemini", "openai", "anthropic")
MODELS = {
    "gemini": "gemini-3-test-flash",
    "openai": "gpt-test-mini",
    "anthropic": "claude-test-sonnet",
}
ADAPTERS: dict[str, type[Gemini | OpenAI | Anthropic]] = {
    "gemini": Gemini,
    "openai": OpenAI,
    "anthropic": Anthropic,
}

Emulate = Callable[..., Any]
MakeLlm = Callable[..., BaseLlm]


def base_url(provider: str, emu: ProviderEmulator) -> str:
    return emu.openai_base_url if provider == "openai" else emu.base_url
