"""Gemini models on Google Cloud's Vertex AI (``vertex/gemini-...`` in the registry).

Vertex AI serves the same ``generateContent`` API as the Gemini Developer
API, under a Google Cloud project and location
(``{root}/v1beta1/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent``),
authenticated with Google Cloud credentials (an OAuth bearer token) instead
of an API key. ``VertexGemini`` is the Gemini adapter on the same
``google-genai`` SDK with ``vertexai=True``: the same request building,
streaming, usage, error classification (``RESOURCE_EXHAUSTED`` is HTTP 429;
its ``RetryInfo`` delay is the wait hint) and the same hidden retries off.

Credentials default to Application Default Credentials
(``gcloud auth application-default login``, a service account's key file in
``$GOOGLE_APPLICATION_CREDENTIALS``, or the metadata server on Google
Cloud), found by the SDK at the first request; pass ``credentials=`` to use
others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

try:
    import google.genai as genai
except ImportError as exc:  # pragma: no cover - exercised without the extra
    from ._http import install_hint

    raise ImportError(install_hint("google-genai", "gemini", "Vertex AI Gemini")) from exc

from ._http import read_env, require_setting
from .gemini import Gemini

if TYPE_CHECKING:
    from google.auth.credentials import Credentials

__all__ = ["DEFAULT_LOCATION", "VertexGemini"]

DEFAULT_LOCATION = "global"
"""The location used when neither ``location`` nor ``$GOOGLE_CLOUD_LOCATION`` is set.

The global endpoint serves every current Gemini model and routes each
request to a region with capacity; name a region when data must stay in it.
"""

_PROJECT_ENV = ("GOOGLE_CLOUD_PROJECT",)
_BASE_URL_ENV = ("GOOGLE_VERTEX_BASE_URL",)


class VertexGemini(Gemini):
    """A Gemini model on Vertex AI, in a Google Cloud project and location.

    Args:
        model: the model name (``gemini-2.5-flash``); the ``vertex/`` prefix is dropped.
        project: the Google Cloud project id; default ``$GOOGLE_CLOUD_PROJECT``.
        location: the region (``europe-west4``) or ``global``; default
            ``$GOOGLE_CLOUD_LOCATION``, else ``DEFAULT_LOCATION``.
        credentials: Google credentials (``google.auth.credentials.Credentials``);
            default Application Default Credentials.
        base_url: the API root; default ``$GOOGLE_VERTEX_BASE_URL``, else the
            location's (``https://{location}-aiplatform.googleapis.com``).
        headers: extra HTTP headers sent with every request; never logged.
        timeout: seconds per attempt; default the SDK's (none).
        client: a ``google.genai.Client(vertexai=True, ...)`` to use instead of
            building one; each request still overrides its retries to a single attempt.
    """

    provider = "vertex"

    def __init__(
        self,
        model: str,
        *,
        project: str | None = None,
        location: str | None = None,
        credentials: Credentials | None = None,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = None,
        client: genai.Client | None = None,
    ) -> None:
        super().__init__(
            model.removeprefix("vertex/"), headers=headers, timeout=timeout, client=client
        )
        self._base_url = base_url or read_env(*_BASE_URL_ENV)  # not the Gemini API's variables
        self._project = project
        self._location = location
        self._google_credentials = credentials
        self._client_given = client is not None

    def check_configuration(self) -> None:
        """Raise ``ConfigurationError`` when no project is given or set in the environment.

        A client you pass carries its own project and credentials.
        """
        if not self._client_given:
            self._project_id()

    def _project_id(self) -> str:
        return require_setting(
            self._project, _PROJECT_ENV, "project", type(self).__name__, self.model
        )

    def _credentials(self) -> dict[str, Any]:
        """Vertex AI's options: project, location and Google credentials, no API key."""
        location = self._location or read_env("GOOGLE_CLOUD_LOCATION") or DEFAULT_LOCATION
        return {
            "vertexai": True,
            "project": self._project_id(),
            "location": location,
            "credentials": self._google_credentials,
        }
