"""The clouds' addresses for the same wire formats: Azure OpenAI and Vertex AI.

A cloud serves a provider's API under its own URL shape and credentials:
Azure OpenAI answers Chat Completions at
``/openai/deployments/{deployment}/chat/completions?api-version=...``;
Vertex AI answers Gemini at
``/{version}/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent``.
Each dialect here is the provider's own dialect on the cloud's route, with
the cloud's name as its provider, so a test counts requests per cloud
(``emu.attempts("azure")``) and sees which project, location or
deployment was addressed (``request.route``).
"""

from __future__ import annotations

import re
from typing import Any

from ._dialect import Route, WireError
from ._gemini import GeminiDialect
from ._model import EmulatedRequest
from ._openai import OpenAIDialect

__all__ = ["AzureOpenAIDialect", "VertexGeminiDialect"]

_AZURE_PATH = re.compile(r"/openai/deployments/(?P<deployment>[^/]+)/chat/completions/?")
_VERTEX_GEMINI_PATH = re.compile(
    r"/v1(?:beta1)?/projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)"
    r"/publishers/google/models/(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent)"
)


class AzureOpenAIDialect(OpenAIDialect):
    """Chat Completions at an Azure OpenAI deployment's address."""

    provider = "azure"

    def route(self, method: str, path: str) -> Route | None:
        """Serve ``POST /openai/deployments/{deployment}/chat/completions``."""
        match = _AZURE_PATH.fullmatch(path)
        if method != "POST" or match is None:
            return None
        return Route(self.provider, match["deployment"])

    def parse(self, body: dict[str, Any], request: EmulatedRequest) -> None:
        """Refuse a request without ``api-version``, then read it as Chat Completions."""
        if not request.query.get("api-version"):
            raise WireError("Missing required query parameter: api-version")
        super().parse(body, request)


class VertexGeminiDialect(GeminiDialect):
    """Gemini's ``generateContent`` at a Vertex AI project and location."""

    provider = "vertex"

    def route(self, method: str, path: str) -> Route | None:
        """Serve ``POST .../projects/{p}/locations/{l}/publishers/google/models/{m}:...``."""
        match = _VERTEX_GEMINI_PATH.fullmatch(path)
        if method != "POST" or match is None:
            return None
        return Route(self.provider, match["model"], match["method"] == "streamGenerateContent")
