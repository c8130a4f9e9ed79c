r"""The provider adapters' name patterns, registered without importing any SDK.

Each factory imports its adapter only when a matching name is resolved, so
``import steadyflow`` stays free of provider SDKs and a missing extra is
reported at resolution, naming the extra to install.

Patterns (full-match regexes) and the adapter each resolves to:

- ``gemini-.*``, ``gemma-.*``: ``steadyflow.models.gemini.Gemini`` (extra ``gemini``)
- ``gpt-.*``, ``o\d.*``, ``openai/.+``: ``steadyflow.models.openai.OpenAI`` (extra ``openai``)
- ``groq/.+``: ``steadyflow.models.openai.Groq`` (the OpenAI adapter on Groq's endpoint)
- ``openai-responses/.+``: ``steadyflow.models.openai.OpenAIResponses`` (OpenAI's
  Responses API; extra ``openai``)
- ``claude-.*``: ``steadyflow.models.anthropic.Anthropic`` (extra ``anthropic``)
- ``vertex/gemini-.*``, ``vertex/gemma-.*``: ``steadyflow.models.vertex.VertexGemini``
  (Gemini on Vertex AI; extra ``gemini``)
- ``vertex/claude-.*``: ``steadyflow.models.anthropic_vertex.AnthropicVertex`` (Claude on
  Vertex AI; extra ``vertex``)
- ``bedrock/(<profile>.)anthropic.*``: ``steadyflow.models.bedrock.AnthropicBedrock``
  (Claude on Amazon Bedrock; extra ``bedrock``)
- ``azure/.+``: ``steadyflow.models.azure.AzureOpenAI`` (a deployment on Azure OpenAI;
  extra ``openai``)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from .base import BaseLlm

__all__ = ["BUILTIN_PATTERNS", "register_all"]

BUILTIN_PATTERNS: dict[str, tuple[str, str]] = {
    r"gemini-.*": ("gemini", "Gemini"),
    r"gemma-.*": ("gemini", "Gemini"),
    r"gpt-.*": ("openai", "OpenAI"),
    r"o\d.*": ("openai", "OpenAI"),
    r"openai/.+": ("openai", "OpenAI"),
    r"groq/.+": ("openai", "Groq"),
    r"openai-responses/.+": ("openai", "OpenAIResponses"),
    r"claude-.*": ("anthropic", "Anthropic"),
    r"azure/.+": ("azure", "AzureOpenAI"),
    r"vertex/gemini-.*": ("vertex", "VertexGemini"),
    r"vertex/gemma-.*": ("vertex", "VertexGemini"),
    r"vertex/claude-.*": ("anthropic_vertex", "AnthropicVertex"),
    r"bedrock/(?:[a-z]+\.)?anthropic\..+": ("bedrock", "AnthropicBedrock"),
}
"""Pattern -> (module under ``steadyflow.models``, class name)."""


def _factory(module: str, class_name: str) -> Callable[[str], BaseLlm]:
    def create(name: str) -> BaseLlm:
        # Raises ImportError naming the extra when the SDK is not installed.
        adapter = getattr(importlib.import_module(f"steadyflow.models.{module}"), class_name)
        llm: BaseLlm = adapter(name)
        return llm

    return create


def register_all(register: Callable[[str, Callable[[str], BaseLlm]], None]) -> None:
    """Register every built-in provider's patterns through ``register``."""
    for pattern, (module, class_name) in BUILTIN_PATTERNS.items():
        register(pattern, _factory(module, class_name))
