"""Claude models on Amazon Bedrock (``bedrock/anthropic.claude-...`` in the registry).

Bedrock's runtime serves Anthropic's Messages API at
``{root}/model/{model}/invoke`` (``/invoke-with-response-stream`` when
streamed: AWS's binary event stream, each frame one Messages event), the
model in the path, each request signed with AWS Signature Version 4 or
carrying a Bedrock API key. ``AnthropicBedrock`` is the Anthropic adapter on
the ``anthropic`` SDK's ``AsyncAnthropicBedrock`` client: the same request
building, streaming, usage, thinking and error classification
(``ThrottlingException`` is HTTP 429, ``ServiceUnavailableException`` 503,
``ModelTimeoutException`` 408, all retryable by default), with the SDK's
retries and tracing off.

Signing and the event-stream decoder need ``botocore``
(``pip install 'steadyflow[bedrock]'``). Credentials follow AWS's usual
chain when none are given (environment, ``~/.aws`` profile, instance role);
a Bedrock API key (``$AWS_BEARER_TOKEN_BEDROCK``) is sent as a bearer token
instead of a signature.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Mapping
from typing import Any, cast

try:
    import anthropic as sdk
    from anthropic.lib.bedrock import AsyncAnthropicBedrock

    # The SDK imports botocore only inside a request (to sign it, to decode a
    # stream): check it here, so a missing extra is named when the model is built.
    importlib.import_module("botocore")
except ImportError as exc:
    from ._http import install_hint

    raise ImportError(install_hint("botocore", "bedrock", "Anthropic on Bedrock")) from exc

from ._http import read_env, require_setting
from .anthropic import ANTHROPIC_SDK, Anthropic

__all__ = ["AnthropicBedrock"]

_REGION_ENV = ("AWS_REGION", "AWS_DEFAULT_REGION")


class AnthropicBedrock(Anthropic):
    """A Claude model on Amazon Bedrock.

    Args:
        model: the Bedrock model id or inference profile
            (``anthropic.claude-sonnet-4-5-20250929-v1:0``,
            ``us.anthropic.claude-...``); the ``bedrock/`` prefix is dropped.
        region: the AWS region; default ``$AWS_REGION``, then ``$AWS_DEFAULT_REGION``.
        access_key: an AWS access key id; default the AWS credential chain.
        secret_key: its secret; never logged.
        session_token: a temporary session's token.
        profile: a named profile of ``~/.aws/config``.
        api_key: a Bedrock API key, sent instead of a signature; default
            ``$AWS_BEARER_TOKEN_BEDROCK``.
        base_url: the API root; default ``$ANTHROPIC_BEDROCK_BASE_URL``,
            else the region's ``https://bedrock-runtime.{region}.amazonaws.com``.
        headers: extra headers sent on every request; never logged.
        timeout: seconds per attempt; default the SDK's.
    """

    def __init__(
        self,
        model: str,
        *,
        region: str | None = None,
        access_key: str | None = None,
        secret_key: str | None = None,
        session_token: str | None = None,
        profile: str | None = None,
        api_key: str | None = None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> None:
        super().__init__(model.removeprefix("bedrock/"), headers=headers, timeout=timeout)
        self.provider = "bedrock"
        self._base_url = base_url or read_env("ANTHROPIC_BEDROCK_BASE_URL")
        self._sdk = dataclasses.replace(ANTHROPIC_SDK, client=_client)
        self._region = region
        self._aws = {
            "aws_access_key": access_key,
            "aws_secret_key": secret_key,
            "aws_session_token": session_token,
            "aws_profile": profile,
        }
        self._bedrock_key = api_key

    def check_configuration(self) -> None:
        """Raise ``ConfigurationError`` when no region is given or set in the environment."""
        self._region_name()

    def _region_name(self) -> str:
        return require_setting(self._region, _REGION_ENV, "region", type(self).__name__, self.model)

    def _credentials(self) -> dict[str, Any]:
        """The region, and the AWS credentials or the Bedrock API key given (else AWS's chain)."""
        key = self._bedrock_key or read_env("AWS_BEARER_TOKEN_BEDROCK")
        self._secret = key or self._aws["aws_secret_key"]
        if key is not None:
            return {"aws_region": self._region_name(), "api_key": key}
        return {"aws_region": self._region_name(), **self._aws}


def _client(**options: Any) -> sdk.AsyncAnthropic:
    """The Bedrock client, typed as the client the Anthropic adapter calls.

    It is no ``AsyncAnthropic`` subclass, but it has the same ``messages``
    resource, the one part of the client the adapter uses.
    """
    return cast("sdk.AsyncAnthropic", AsyncAnthropicBedrock(**options))
