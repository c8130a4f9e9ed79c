"""The ``openai`` SDK's client and exception table, shared by both OpenAI adapters.

Chat Completions (``openai.OpenAI``) and the Responses API
(``openai_responses.OpenAIResponses``) are two adapters on one SDK; the
Stainless base builds their clients and maps their errors from this one table.
Importing it needs the ``openai`` extra (the adapters check first, with the hint).
"""

from __future__ import annotations

import openai as sdk

from ._stainless import SdkErrors, StainlessSdk

__all__ = ["OPENAI_SDK"]

OPENAI_SDK = StainlessSdk(
    client=sdk.AsyncOpenAI,
    http_client=sdk.DefaultAsyncHttpxClient,
    errors=SdkErrors(
        timeout=sdk.APITimeoutError,
        connection=sdk.APIConnectionError,
        status=sdk.APIStatusError,
        api=sdk.APIError,
    ),
)
