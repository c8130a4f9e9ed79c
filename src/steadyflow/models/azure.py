"""OpenAI models deployed on Azure OpenAI (``azure/<deployment>`` in the registry).

Azure serves the same Chat Completions API under another address
(``{endpoint}/openai/deployments/{deployment}/chat/completions?api-version=``)
with its own credentials (an ``api-key`` header, or a Microsoft Entra ID
token). ``AzureOpenAI`` is the OpenAI adapter built on the ``openai`` SDK's
``AsyncAzureOpenAI`` client: the same request building, streaming, usage,
error classification (Azure's 429 carries ``retry-after-ms``, read before
``retry-after``) and rate-limit headers (``x-ratelimit-remaining-*``), with
the SDK's retries off like every adapter.

The model name is the *deployment* name the Azure resource gives the model,
not the OpenAI model name: ``azure/support-gpt4o`` calls the deployment
``support-gpt4o``. Since a deployment's name says nothing of its model, the
token limit is always sent as ``max_completion_tokens`` (what reasoning
models require and every GA api-version since 2024-10-21 accepts).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

try:
    import openai as sdk
except ImportError as exc:  # pragma: no cover - exercised without the extra
    from ._http import install_hint

    raise ImportError(install_hint("openai", "openai", "Azure OpenAI")) from exc

from ._http import read_env, require_setting
from ._openai_sdk import OPENAI_SDK
from .openai import OpenAI, OpenAICompatible

__all__ = ["AZURE", "DEFAULT_API_VERSION", "AzureOpenAI"]

DEFAULT_API_VERSION = "2024-10-21"
"""The api-version sent when neither ``api_version`` nor ``$OPENAI_API_VERSION`` is set."""

AZURE = OpenAICompatible("azure", ("AZURE_OPENAI_API_KEY",), (), None, "azure/")
"""Azure OpenAI: ``$AZURE_OPENAI_API_KEY``, names prefixed ``azure/``."""

_ENDPOINT_ENV = ("AZURE_OPENAI_ENDPOINT",)

TokenProvider = Callable[[], str | Awaitable[str]]
"""Returns a Microsoft Entra ID bearer token; called before every request."""


class AzureOpenAI(OpenAI):
    """A model deployment on Azure OpenAI, through the Chat Completions API.

    Args:
        model: the deployment name; the ``azure/`` prefix is dropped.
        endpoint: the resource's endpoint (``https://my-resource.openai.azure.com``);
            default ``$AZURE_OPENAI_ENDPOINT``.
        api_version: the Azure api-version; default ``$OPENAI_API_VERSION``,
            else ``DEFAULT_API_VERSION``.
        api_key: the resource key; default ``$AZURE_OPENAI_API_KEY``. Not
            needed with ``token_provider``.
        token_provider: a Microsoft Entra ID token source (for example
            ``azure.identity.get_bearer_token_provider(DefaultAzureCredential(),
            "https://cognitiveservices.azure.com/.default")``), called before
            every request; used instead of a key.
        headers: extra headers sent on every request; never logged.
        timeout: seconds per attempt; default the SDK's.
        client: an ``openai.AsyncAzureOpenAI`` to use instead of building one;
            it is copied with ``max_retries=0`` (and ``headers``).
    """

    def __init__(
        self,
        model: str,
        *,
        endpoint: str | None = None,
        api_version: str | None = None,
        api_key: str | None = None,
        token_provider: TokenProvider | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        client: sdk.AsyncAzureOpenAI | None = None,
    ) -> None:
        super().__init__(
            model, api_key=api_key, headers=headers, timeout=timeout, client=client, endpoint=AZURE
        )
        self._endpoint = endpoint
        self._token_provider = token_provider
        self._client_given = client is not None
        version = api_version or read_env("OPENAI_API_VERSION") or DEFAULT_API_VERSION
        azure_client = functools.partial(sdk.AsyncAzureOpenAI, api_version=version)
        self._sdk = dataclasses.replace(OPENAI_SDK, client=azure_client)

    def check_configuration(self) -> None:
        """Raise ``ConfigurationError`` when the endpoint, or both key and token, are missing.

        A client you pass carries its own endpoint and credentials.
        """
        if self._client_given:
            return
        self._endpoint_url()
        if self._token_provider is None:
            super().check_configuration()

    def _endpoint_url(self) -> str:
        return require_setting(
            self._endpoint, _ENDPOINT_ENV, "endpoint", type(self).__name__, self.model
        )

    def _credentials(self) -> dict[str, Any]:
        """The endpoint, and the Entra token provider or else the key."""
        where = {"azure_endpoint": self._endpoint_url()}
        if self._token_provider is not None:
            return {**where, "azure_ad_token_provider": self._token_provider}
        return {**where, **super()._credentials()}

    def _max_tokens_name(self) -> str:
        return "max_completion_tokens"
