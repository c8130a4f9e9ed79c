"""What the cloud adapters share: reading a required setting, naming what is missing.

A cloud endpoint needs more than a key (Azure's endpoint, Vertex AI's
project and location, Bedrock's region). Each is an argument with an
environment variable behind it; a missing one is a ``ConfigurationError``
that names both, raised when the model is checked or first called, never a
bare SDK error from deep inside a request.
"""

from __future__ import annotations

from ..errors import ConfigurationError
from ._http import read_env

__all__ = ["require_setting"]


def require_setting(
    explicit: str | None, env_names: tuple[str, ...], argument: str, adapter: str, model: str
) -> str:
    """``explicit``, else the first set variable of ``env_names``; else a clear error.

    Raises:
        ConfigurationError: naming the argument and the variables to set.
    """
    value = explicit or read_env(*env_names)
    if value:
        return value
    names = " or ".join(env_names)
    raise ConfigurationError(
        f"{adapter} model {model!r} has no {argument}: set {names} or pass {argument}=... "
        "to the adapter"
    )
