"""Claude models on Google Cloud's Vertex AI (``vertex/claude-...`` in the registry).

Vertex AI serves Anthropic's Messages API at a project and region
(``{root}/v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:rawPredict``,
``:streamRawPredict`` when streamed), the model in the path rather than the
body, authenticated with Google Cloud credentials. ``AnthropicVertex`` is the
Anthropic adapter on the ``anthropic`` SDK's ``AsyncAnthropicVertex``
client: the same request building, streaming, usage, thinking and error
classification (an ``overloaded_error`` is 529; Vertex's own quota error is
HTTP 429 ``RESOURCE_EXHAUSTED``), with the SDK's retries and tracing off.

Model names on Vertex carry a version after ``@``
(``claude-sonnet-4-5@20250929``). Credentials default to Application
Default Credentials, which need the ``google-auth`` package
(``pip install 'steadyflow[vertex]'``); an ``access_token`` needs nothing more.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

try:
    import anthropic as sdk
    from anthropic.lib.vertex import AsyncAnthropicVertex
except ImportError as exc:  # pragma: no cover - exercised without the extra
    from ._http import install_hint

    raise ImportError(install_hint("anthropic", "anthropic", "Anthropic on Vertex AI")) from exc

from ._http import read_env, require_setting
from .anthropic import ANTHROPIC_SDK, Anthropic

if TYPE_CHECKING:
    from google.auth.credentials import Credentials

__all__ = ["AnthropicVertex"]

_PROJECT_ENV = ("ANTHROPIC_VERTEX_PROJECT_ID", "GOOGLE_CLOUD_PROJECT")
_REGION_ENV = ("CLOUD_ML_REGION", "GOOGLE_CLOUD_LOCATION")


class AnthropicVertex(Anthropic):
    """A Claude model on Vertex AI, in a Google Cloud project and region.

    Args:
        model: the model name (``claude-sonnet-4-5@20250929``); the
            ``vertex/`` prefix is dropped.
        project: the Google Cloud project id; default
            ``$ANTHROPIC_VERTEX_PROJECT_ID``, then ``$GOOGLE_CLOUD_PROJECT``.
        region: the region (``us-east5``, ``europe-west1``) or ``global``;
            default ``$CLOUD_ML_REGION``, then ``$GOOGLE_CLOUD_LOCATION``.
        credentials: Google credentials; default Application Default Credentials.
        access_token: an OAuth access token to send instead (it is not refreshed).
        base_url: the API root; default ``$ANTHROPIC_VERTEX_BASE_URL``, else the region's.
        headers: extra headers sent on every request; never logged.
        timeout: seconds per attempt; default the SDK's.
    """

    def __init__(
        self,
        model: str,
        *,
        project: str | None = None,
        region: str | None = None,
        credentials: Credentials | None = None,
        access_token: str | None = None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
    ) -> None:
        super().__init__(model.removeprefix("vertex/"), headers=headers, timeout=timeout)
        self.provider = "vertex-anthropic"
        self._base_url = base_url or read_env("ANTHROPIC_VERTEX_BASE_URL")
        self._sdk = dataclasses.replace(ANTHROPIC_SDK, client=_client)
        self._project = project
        self._region = region
        self._google_credentials = credentials
        self._access_token = access_token

    def check_configuration(self) -> None:
        """Raise ``ConfigurationError`` when the project or the region is missing."""
        self._credentials()

    def _credentials(self) -> dict[str, Any]:
        """Project, region and Google credentials (or a token); no API key."""
        adapter = type(self).__name__
        self._secret = self._access_token
        return {
            "project_id": require_setting(
                self._project, _PROJECT_ENV, "project", adapter, self.model
            ),
            "region": require_setting(self._region, _REGION_ENV, "region", adapter, self.model),
            "credentials": self._google_credentials,
            "access_token": self._access_token,
        }


def _client(**options: Any) -> sdk.AsyncAnthropic:
    """The Vertex AI client, typed as the client the Anthropic adapter calls.

    It is no ``AsyncAnthropic`` subclass, but it has the same ``messages``
    resource, the one part of the client the adapter uses.
    """
    return cast("sdk.AsyncAnthropic", AsyncAnthropicVertex(**options))
