"""One error shape for every endpoint, and the HTTP status each failure maps to.

Every error body is ``{"error": {"type", "message", ...}}``. A request the
server refuses before a turn starts gets its own status (401, 404, 409,
413, 422); a turn that fails after it started maps by cause:

=================================  ======  ===================================
cause                              status  why
=================================  ======  ===================================
``StaleSessionError``              409     another writer appended first
``SessionNotFoundError``           404     the session is not there
``SessionStoreError``              503     the database failed (read-only,
                                           full, unreachable); retry later
``EventTooLargeError``             507     an answer or tool result over the
                                           store's ``max_event_bytes``
other ``SessionError``             409     the store refused the write: the
                                           session changed (e.g. was deleted)
                                           while the turn ran
``ConfirmationError``              409     the answered request is not waiting
                                           (another process answered first)
``NothingToResumeError``           409     nothing to resume (it finished, is
                                           live elsewhere, or waits for a person)
``SchemaVersionError``             500     the database is from a newer version
``TraceFormatError``               500     a stored trace this version cannot read
``InvocationLimitError``           429     the invocation's call, token or
                                           cost limit is used
``ModelError``                     502     the model provider failed upstream
anything else                      500     a bug in an agent, tool or callback
=================================  ======  ===================================

Messages of steadyflow's own errors are shown to the client; other
exceptions are reported by type only (their text may hold secrets) and
logged in full on the server. Every 500 is logged with its traceback.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import JSONResponse

from ..errors import (
    ConfirmationError,
    EventTooLargeError,
    InvocationLimitError,
    ModelError,
    NothingToResumeError,
    SchemaVersionError,
    SessionError,
    SessionNotFoundError,
    SessionStoreError,
    StaleSessionError,
    SteadyflowError,
    TraceFormatError,
)

__all__ = ["ApiError", "FieldError", "error_info", "status_for"]

logger = logging.getLogger("steadyflow.server")


@dataclass(frozen=True)
class FieldError:
    """One invalid field: its dotted path (``run_config.max_llm_calls``) and what is wrong."""

    field: str
    message: str


@dataclass
class ApiError(Exception):
    """A request the server refuses; becomes ``{"error": {...}}`` with ``status``."""

    status: int
    type: str
    message: str
    fields: list[FieldError] = field(default_factory=lambda: [])
    headers: dict[str, str] = field(default_factory=lambda: {})

    def __post_init__(self) -> None:
        super().__init__(self.message)

    def response(self) -> JSONResponse:
        """The JSON response for this error."""
        body: dict[str, Any] = {"type": self.type, "message": self.message}
        if self.fields:
            body["fields"] = [{"field": f.field, "message": f.message} for f in self.fields]
        return JSONResponse({"error": body}, status_code=self.status, headers=self.headers)

    @classmethod
    def invalid(cls, fields: list[FieldError]) -> ApiError:
        """A 422 naming every invalid field."""
        message = "; ".join(f"{f.field}: {f.message}" for f in fields)
        return cls(422, "validation_error", message, fields)


def status_for(error: BaseException) -> int:
    """The HTTP status a turn that failed with ``error`` maps to (see the table above)."""
    if isinstance(error, StaleSessionError | ConfirmationError | NothingToResumeError):
        return 409
    if isinstance(error, SessionNotFoundError):
        return 404
    if isinstance(error, SessionStoreError):
        return 503
    if isinstance(error, EventTooLargeError):
        return 507
    if isinstance(error, SessionError) and not isinstance(
        error, SchemaVersionError | TraceFormatError
    ):
        return 409
    if isinstance(error, InvocationLimitError):
        return 429
    if isinstance(error, ModelError):
        return 502
    return 500


def error_info(error: BaseException) -> dict[str, Any]:
    """The client-facing description of a failed turn: type, message, statuses.

    ``status_code`` is the HTTP status the failure maps to; a model error also
    names the ``provider`` and carries ``provider_status``, the status the
    provider answered with (none for an answer that could not be read).
    """
    status = status_for(error)
    info: dict[str, Any] = {"type": type(error).__name__, "status_code": status}
    if isinstance(error, SteadyflowError):
        info["message"] = str(error)
        if status == 500:  # e.g. a missing API key: the operator must see it, with its traceback
            logger.error("turn failed with %s", type(error).__name__, exc_info=error)
    else:
        logger.error("turn failed", exc_info=error)
        info["message"] = "internal error in the agent (details are in the server log)"
    if isinstance(error, ModelError):
        if error.provider is not None:
            info["provider"] = error.provider
        if error.status_code is not None:
            info["provider_status"] = error.status_code
    return info
