"""The API's endpoints: health, sessions, the two ways to run a turn, and resume.

A turn's message may answer confirmation requests (``steadyflow.tools.
confirmation_answer``): it then continues the invocation waiting for it.
Answers and resumes are checked against the stored records before the
response starts (422 malformed, 409 not waiting or nothing to resume), so
an SSE client gets a plain error status rather than a stream that fails.

Handlers hold no state between requests: everything lives in the session
store, so any number of server processes can share one database.
"""

from __future__ import annotations

import functools
import logging
import time
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .._confirmation import parse_answers
from ..durable import check_answers, may_be_waiting, resumable, settle_pending
from ..errors import (
    ConfirmationError,
    ConfirmationPendingError,
    CorruptRecordError,
    CorruptSessionError,
    NothingToResumeError,
    SessionError,
    SessionStoreError,
)
from ..run_config import RunConfig, StreamingMode
from ..runner import Runner
from ..sessions._overview import overview
from ..sessions.base import BaseSessionService, Session
from ..sessions.state import APP_PREFIX, USER_PREFIX
from ..types import Content
from ..usage._meter import UsageMeter
from ._auth import TokenDigest
from ._errors import ApiError, FieldError
from ._limits import ServerLimits, check_usage_limits
from ._requests import RequestLog
from ._responses import SseTurnResponse, Turn, TurnResponse
from ._schemas import (
    CreateSessionRequest,
    Health,
    ResumeRequest,
    RunOptions,
    RunRequest,
    SessionSummary,
    check_id,
    parse_body,
)
from ._turns import TurnRegistry

logger = logging.getLogger("steadyflow.server")

__all__ = ["Api"]

_JSON_TYPES = ("application/json",)


@functools.cache
def _version() -> str:
    try:
        return version("steadyflow")
    except PackageNotFoundError:  # running from a source tree
        return "0+unknown"


def _summary(session: Session) -> dict[str, object]:
    return SessionSummary(
        id=session.id,
        app_name=session.app_name,
        user_id=session.user_id,
        state=session.state,
        last_update_time=session.last_update_time,
        revision=session.revision,
    ).model_dump(mode="json", exclude_none=True)


def _detail(session: Session) -> dict[str, object]:
    return {**_summary(session), "events": [e.model_dump(mode="json") for e in session.events]}


def _refuse_shared_keys(state: dict[str, Any]) -> None:
    """422 for ``app:``/``user:`` keys: a new session may set only its own state."""
    shared = [k for k in state if k.startswith((APP_PREFIX, USER_PREFIX))]
    if shared:
        message = (
            "a new session may set only its own keys; app: and user: keys are shared "
            "beyond it (start the server with --allow-shared-state to allow them)"
        )
        raise ApiError.invalid([FieldError(f"state.{key}", message) for key in shared])


_LOOPBACK = ("127.0.0.1", "::1")


def _asks_limits(options: RunOptions | None) -> bool:
    """Whether the request itself set usage limits (the operator's are checked at start)."""
    return options is not None and options.usage_limits is not None


def _not_found(app: str, user: str, session_id: str) -> ApiError:
    message = f"session {session_id!r} not found for app {app!r}, user {user!r}"
    return ApiError(404, "session_not_found", message)


@dataclass
class Api:
    """The endpoints of one served agent, bound to its runner and limits."""

    app_name: str
    runner: Runner
    sessions: BaseSessionService
    limits: ServerLimits
    turns: TurnRegistry
    requests: RequestLog
    spec: dict[str, Any]
    operator: TokenDigest | None = None
    allow_shared_state: bool = False
    open_locally: bool = False
    """No token is set: a loopback client may list every session (see ``create_app``)."""

    async def health(self, request: Request) -> Response:
        """``GET /health``: the process is up (no authentication needed)."""
        return JSONResponse(Health(version=_version()).model_dump())

    async def openapi(self, request: Request) -> Response:
        """``GET /openapi.json``: the OpenAPI 3.1 document."""
        return JSONResponse(self.spec)

    async def list_apps(self, request: Request) -> Response:
        """``GET /apps``: the app this process serves, and whether the caller may list all."""
        return JSONResponse(
            {"apps": [self.app_name], "list_all_sessions": self._may_list_all(request)}
        )

    def _app(self, request: Request) -> str:
        app = check_id("app", request.path_params["app"])
        if app != self.app_name:
            message = f"app {app!r} is not served here; this server serves {self.app_name!r}"
            raise ApiError(404, "app_not_found", message)
        return app

    def _user(self, request: Request) -> tuple[str, str]:
        return self._app(request), check_id("user", request.path_params["user"])

    async def _listed(self, session: Session) -> dict[str, object]:
        """A listing's row: the summary, the first user message, the last status.

        A session whose stored rows cannot be read is listed with the status
        ``unreadable`` (and logged), so one bad row never hides the others.
        """
        try:
            first, status = await overview(self.sessions, session)
        except (CorruptSessionError, CorruptRecordError) as error:
            logger.warning("listing: %s", error)
            return {**_summary(session), "last_status": "unreadable"}
        extra = {"first_message": first, "last_status": status}
        return {**_summary(session), **{k: v for k, v in extra.items() if v is not None}}

    async def list_all_sessions(self, request: Request) -> Response:
        """``GET /apps/{app}/sessions``: every user's sessions, oldest first.

        For the operator token; on a server with no token, for loopback clients too.
        """
        app = self._app(request)
        if not self._may_list_all(request):
            message = (
                "listing every user's sessions needs the operator token "
                "(start the server with --operator-token, send it as a bearer token); "
                "list one user's with GET /apps/{app}/users/{user}/sessions"
            )
            raise ApiError(403, "operator_token_required", message)
        found = await self.sessions.list_sessions(app_name=app)
        return JSONResponse([await self._listed(s) for s in found])

    def _may_list_all(self, request: Request) -> bool:
        if self.operator is not None:
            return self.operator.matches(request.scope["headers"])
        local = request.client is not None and request.client.host in _LOOPBACK
        return self.open_locally and local and "x-forwarded-for" not in request.headers

    async def list_sessions(self, request: Request) -> Response:
        """``GET /apps/{app}/users/{user}/sessions``: one user's sessions."""
        app, user = self._user(request)
        found = await self.sessions.list_sessions(app_name=app, user_id=user)
        return JSONResponse([await self._listed(s) for s in found])

    async def create_session(self, request: Request) -> Response:
        """``POST /apps/{app}/users/{user}/sessions``: 201, or 409 when the id is taken."""
        app, user = self._user(request)
        body = parse_body(CreateSessionRequest, await self._body(request), optional=True)
        if body.state and not self.allow_shared_state:
            _refuse_shared_keys(body.state)
        if body.session_id is not None and await self.sessions.get_session(
            app_name=app, user_id=user, session_id=body.session_id
        ):
            raise ApiError(409, "session_exists", f"session {body.session_id!r} already exists")
        try:
            session = await self.sessions.create_session(
                app_name=app, user_id=user, state=body.state, session_id=body.session_id
            )
        except SessionStoreError:
            raise  # the database failed: 503
        except SessionError as error:  # created by another process meanwhile
            raise ApiError(409, "session_exists", str(error)) from None
        return JSONResponse(_detail(session), status_code=201)

    async def _load(self, request: Request) -> Session:
        app, user = self._user(request)
        session_id = check_id("session", request.path_params["session"])
        session = await self.sessions.get_session(app_name=app, user_id=user, session_id=session_id)
        if session is None:
            raise _not_found(app, user, session_id)
        return session

    async def get_session(self, request: Request) -> Response:
        """``GET /apps/{app}/users/{user}/sessions/{session}``: with its events."""
        return JSONResponse(_detail(await self._load(request)))

    async def delete_session(self, request: Request) -> Response:
        """``DELETE .../sessions/{session}``: 204, or 404 when there is none."""
        session = await self._load(request)
        await self.sessions.delete_session(
            app_name=session.app_name, user_id=session.user_id, session_id=session.id
        )
        return Response(status_code=204)

    async def list_invocations(self, request: Request) -> Response:
        """``GET .../sessions/{session}/invocations``: the session's records, oldest first."""
        session = await self._load(request)
        records = await self.sessions.list_invocations(
            app_name=session.app_name, user_id=session.user_id, session_id=session.id
        )
        return JSONResponse([r.to_dict() for r in records])

    async def get_invocation(self, request: Request) -> Response:
        """``GET .../invocations/{invocation}``: one record, its trace included."""
        session = await self._load(request)
        invocation = check_id("invocation", request.path_params["invocation"])
        record = await self.sessions.get_invocation(
            app_name=session.app_name,
            user_id=session.user_id,
            session_id=session.id,
            invocation_id=invocation,
        )
        if record is None:
            message = f"invocation {invocation!r} is not in session {session.id!r}"
            raise ApiError(404, "invocation_not_found", message)
        return JSONResponse(record.to_dict())

    async def step_request(self, request: Request) -> Response:
        """``GET .../invocations/{invocation}/steps/{step}/request``: the exact LlmRequest."""
        session = await self._load(request)
        invocation = check_id("invocation", request.path_params["invocation"])
        if not any(e.invocation_id == invocation for e in session.events):
            message = f"invocation {invocation!r} is not in session {session.id!r}"
            raise ApiError(404, "invocation_not_found", message)
        step = request.path_params["step"]
        recorded = self.requests.get(invocation, step)
        if recorded is None:
            message = (
                f"the request of step {step} was not recorded by this server process "
                "(requests are kept in memory by the process that ran the turn, for recent turns)"
            )
            raise ApiError(404, "request_not_recorded", message)
        return JSONResponse(recorded.model_dump(mode="json"))

    async def run(self, request: Request) -> Response:
        """``POST /run``: run one turn, answer with all its events."""
        return TurnResponse(await self._turn(request, StreamingMode.NONE))

    async def run_sse(self, request: Request) -> Response:
        """``POST /run_sse``: run one turn, streaming its events as they happen."""
        turn = await self._turn(request, StreamingMode.SSE)
        return SseTurnResponse(turn, self.limits.sse_ping_interval)

    async def _turn(self, request: Request, default_mode: StreamingMode) -> Turn:
        body = parse_body(RunRequest, await self._body(request))
        if body.app_name != self.app_name:
            text = f"app {body.app_name!r} is not served here; use {self.app_name!r}"
            raise ApiError(404, "app_not_found", text)
        message = body.message()
        run_config = self.limits.run_config(body.run_config, default_mode)
        check_usage_limits(run_config, self.runner.agent, _asks_limits(body.run_config))
        exists = await self.sessions.get_session(
            app_name=self.app_name, user_id=body.user_id, session_id=body.session_id
        )
        if exists is None:
            raise _not_found(self.app_name, body.user_id, body.session_id)
        await self._check_answers(exists, message, run_config)
        return Turn(self.runner, self.turns, body.user_id, body.session_id, message, run_config)

    async def _check_answers(self, session: Session, message: Content, config: RunConfig) -> None:
        """422 for a malformed confirmation answer, 409 for one no request waits for.

        Also 409, before the turn starts, for a plain message while requests
        wait when the request's ``run_config.on_pending_confirmation`` is
        ``"raise"`` (by default the message supersedes them).
        """
        try:
            answers = parse_answers(message)
        except ConfirmationError as error:
            raise ApiError(422, "invalid_confirmation", str(error)) from None
        if answers is None:
            if config.on_pending_confirmation == "raise" and may_be_waiting(session):
                try:
                    await settle_pending(
                        self.sessions, session, on_pending="raise", now=time.time()
                    )
                except ConfirmationPendingError as error:
                    raise ApiError(409, "confirmation_pending", str(error)) from None
            return
        records = await self.sessions.list_invocations(
            app_name=session.app_name, user_id=session.user_id, session_id=session.id
        )
        try:
            check_answers(session, records, answers)
        except ConfirmationError as error:
            raise ApiError(409, "confirmation_not_waiting", str(error)) from None

    async def resume(self, request: Request) -> Response:
        """``POST .../sessions/{session}/resume``: continue an unfinished invocation (SSE).

        The body (optional) names the invocation (default: the latest
        unfinished one) and run settings; ``max_llm_calls`` defaults to the
        record's own limit, within the operator's ceiling.
        """
        session = await self._load(request)
        body = parse_body(ResumeRequest, await self._body(request), optional=True)
        records = await self.sessions.list_invocations(
            app_name=session.app_name, user_id=session.user_id, session_id=session.id
        )
        wanted = body.invocation_id
        if wanted is not None and all(r.id != wanted for r in records):
            message = f"invocation {wanted!r} is not in session {session.id!r}"
            raise ApiError(404, "invocation_not_found", message)
        try:
            record = resumable(records, wanted, session.id, time.time())
        except NothingToResumeError as error:
            raise ApiError(409, "nothing_to_resume", str(error)) from None
        options = body.run_config or RunOptions()
        if options.max_llm_calls is None and record.max_llm_calls > 0:
            calls = min(record.max_llm_calls, self.limits.max_llm_calls)
            options = options.model_copy(update={"max_llm_calls": calls})
        started_with = UsageMeter.stored_limits(record.usage)
        run_config = self.limits.run_config(options, StreamingMode.SSE, started_with)
        check_usage_limits(run_config, self.runner.agent, _asks_limits(options))
        turn = Turn(
            self.runner, self.turns, session.user_id, session.id, None, run_config, record.id
        )
        return SseTurnResponse(turn, self.limits.sse_ping_interval)

    async def _body(self, request: Request) -> bytes:
        """The request body, refused when too large (413) or not declared as JSON (415).

        A body needs ``Content-Type: application/json``: the types a
        cross-origin page may send without a preflight are all refused. An
        empty body may omit it.
        """
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind and kind not in _JSON_TYPES:
            raise ApiError(415, "unsupported_media_type", f"send application/json, not {kind!r}")
        limit = self.limits.max_body_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise ApiError(413, "body_too_large", f"request body over {limit} bytes")
        chunks: list[bytes] = []
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise ApiError(413, "body_too_large", f"request body over {limit} bytes")
            chunks.append(chunk)
        body = b"".join(chunks)
        if body and not kind:
            raise ApiError(415, "unsupported_media_type", "send Content-Type: application/json")
        return body
