"""``create_app``: the ASGI application for one agent, its API and its trace viewer."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Collection
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from ..agents.base_agent import BaseAgent
from ..durable import SHUTTING_DOWN, resume_expired_logged
from ..errors import ConfigurationError, SessionStoreError
from ..runner import Runner
from ..sessions.base import BaseSessionService
from ._auth import BearerAuth, TokenDigest
from ._errors import ApiError
from ._guard import RequestGuard
from ._limits import ServerLimits, unpriced_models
from ._openapi import openapi_spec
from ._requests import RequestLog
from ._routes import Api
from ._schemas import ID_PATTERN, is_valid_id
from ._turns import TurnRegistry, WriteThroughService

if TYPE_CHECKING:
    from ..durable.temporal import TemporalFleet

__all__ = ["create_app"]

logger = logging.getLogger("steadyflow.server")

Endpoint = Callable[[Request], Awaitable[Response]]

STATIC_DIR = Path(__file__).parent / "static"


def _is_public(path: str) -> bool:
    return path in ("/", "/health") or path.startswith("/static/")


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return exc.response()


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    body = {"error": {"type": "http_error", "message": exc.detail}}
    return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)


async def _store_error(request: Request, exc: Exception) -> Response:
    """503 for a database that failed: the client may retry; the operator sees a warning."""
    logger.warning("session store failed: %s %s: %s", request.method, request.url.path, exc)
    body = {"error": {"type": "session_store_unavailable", "message": str(exc)}}
    return JSONResponse(body, status_code=503)


async def _server_error(request: Request, exc: Exception) -> Response:
    logger.error("request failed: %s %s", request.method, request.url.path, exc_info=exc)
    body = {"error": {"type": "internal_error", "message": "internal server error"}}
    return JSONResponse(body, status_code=500)


def _route(path: str, **handlers: Endpoint) -> Route:
    """One route for several methods, so a 405's ``Allow`` header lists them all."""

    async def dispatch(request: Request) -> Response:
        return await handlers[request.method.replace("HEAD", "GET")](request)

    return Route(path, dispatch, methods=list(handlers))


def _routes(api: Api) -> list[BaseRoute]:
    session = "/apps/{app}/users/{user}/sessions/{session}"
    return [
        Route("/health", api.health, methods=["GET"]),
        Route("/openapi.json", api.openapi, methods=["GET"]),
        Route("/apps", api.list_apps, methods=["GET"]),
        Route("/apps/{app}/sessions", api.list_all_sessions, methods=["GET"]),
        _route("/apps/{app}/users/{user}/sessions", GET=api.list_sessions, POST=api.create_session),
        _route(session, GET=api.get_session, DELETE=api.delete_session),
        _route(f"{session}/invocations", GET=api.list_invocations),
        _route(f"{session}/resume", POST=api.resume),
        _route(f"{session}/invocations/{{invocation}}", GET=api.get_invocation),
        _route(
            f"{session}/invocations/{{invocation}}/steps/{{step:int}}/request",
            GET=api.step_request,
        ),
        Route("/run", api.run, methods=["POST"]),
        Route("/run_sse", api.run_sse, methods=["POST"]),
        Route("/", _index, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
    ]


async def _index(request: Request) -> Response:
    return FileResponse(STATIC_DIR / "index.html", headers={"cache-control": "no-cache"})


def _checked_name(name: str) -> str:
    if not is_valid_id(name):
        raise ConfigurationError(f"app_name {name!r} must match {ID_PATTERN}")
    return name


def _tokens(auth_token: str | None, operator_token: str | None) -> list[TokenDigest]:
    """The tokens the auth middleware accepts; refuses empty or identical ones."""
    for name, token in (("auth_token", auth_token), ("operator_token", operator_token)):
        if token is not None and not token.strip():
            raise ConfigurationError(f"{name} must not be empty; pass None to turn it off")
    if auth_token is not None and auth_token == operator_token:
        raise ConfigurationError("operator_token must differ from auth_token")
    return [TokenDigest(t) for t in (auth_token, operator_token) if t is not None]


def _check_cost_ceilings(limits: ServerLimits, missing: list[str]) -> None:
    """An operator's cost limit must be enforceable for every model of the tree (``missing``)."""
    costs = [u.max_cost for u in (limits.max_usage, limits.default_usage) if u is not None]
    if any(cost is not None for cost in costs) and missing:
        names = ", ".join(repr(name) for name in missing)
        raise ConfigurationError(
            f"a cost limit is set but no price is known for model {names}: pass "
            "ServerLimits(prices={...}) (run_config.prices in the agent file) or install "
            "the cost extra"
        )


def create_app(
    agent: BaseAgent,
    session_service: BaseSessionService,
    limits: ServerLimits | None = None,
    *,
    auth_token: str | None = None,
    app_name: str | None = None,
    allowed_hosts: Collection[str] = (),
    allowed_origins: Collection[str] = (),
    operator_token: str | None = None,
    allow_shared_state: bool = False,
    resume_expired: bool = False,
    temporal: TemporalFleet | None = None,
) -> Starlette:
    """The ASGI app serving ``agent``: the HTTP API, ``/openapi.json`` and the viewer at ``/``.

    Args:
        agent: the root agent.
        session_service: where sessions live. Share one PostgreSQL database
            between processes to run many servers behind a load balancer.
        limits: the operator's ceilings for per-request run settings.
        auth_token: when set, every endpoint but ``/health`` (and the
            viewer's static files) needs ``Authorization: Bearer <token>``.
        app_name: the app's name in URLs and sessions (default: the agent's).
        allowed_hosts: ``Host`` names answered besides the loopback names
            (``*``: any); other hosts get 400 (see ``_guard``).
        allowed_origins: origins besides the server's own that may send
            state-changing requests; other browser origins get 403.
        operator_token: the token that may list every user's sessions
            (``GET /apps/{app}/sessions``; refused with 403 without it); it
            must differ from ``auth_token`` and is accepted wherever that is.
            Without ``auth_token`` it guards that listing only (a warning is
            logged). A server with neither token lets a loopback client
            (no ``X-Forwarded-For``: not through a proxy) list every
            session, so the viewer on one's own machine shows them all.
        allow_shared_state: let ``POST .../sessions`` set ``app:`` and
            ``user:`` state keys (shared beyond the new session; 422 otherwise).
        resume_expired: at start-up, resume in the background every
            invocation of the app whose lease expired or whose owner is gone
            (``steadyflow.durable.resume_expired``, each one logged); the
            server answers meanwhile. ``app.state.resume_sweep`` is that task.
        temporal: run each turn as a workflow on this Temporal fleet instead
            of in this process (``steadyflow.durable.temporal``); its workers
            finish lost invocations themselves, so there is no start-up sweep,
            and the viewer's recorded requests stay in the workers.

    Returns:
        A Starlette application; run it with uvicorn. ``app.state.turns`` is
        its ``TurnRegistry`` (the turns running now).

    A plugin of the runner (``RequestLog``) records each step's exact
    request for the viewer (in memory, recent turns only); the agents are
    not modified.
    """
    tokens = _tokens(auth_token, operator_token)
    if operator_token is not None and auth_token is None:
        logger.warning(
            "an operator token but no auth token: only the listing of every user's sessions "
            "is guarded; every other route is open to anyone who reaches the server"
        )
    limits = limits or ServerLimits()
    unpriced = unpriced_models(agent, limits.prices)
    _check_cost_ceilings(limits, unpriced)
    name = _checked_name(app_name or agent.name)
    turns = TurnRegistry()
    requests = RequestLog()
    runner: Runner
    if temporal is None:
        runner = Runner(
            app_name=name,
            agent=agent,
            session_service=WriteThroughService(session_service),
            plugins=[requests],
            max_response_bytes=limits.max_response_bytes,
        )
    else:
        resume_expired = False  # the fleet's workers finish lost invocations
        runner = temporal.runner(
            app_name=name, agent=agent, session_service=WriteThroughService(session_service)
        )
    spec = openapi_spec(name, limits, auth=auth_token is not None, priced=not unpriced)
    operator = TokenDigest(operator_token) if operator_token is not None else None
    api = Api(
        name,
        runner,
        session_service,
        limits,
        turns,
        requests,
        spec,
        operator=operator,
        allow_shared_state=allow_shared_state,
        open_locally=auth_token is None and operator_token is None,
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncGenerator[None, None]:
        sweep = None
        if resume_expired:
            sweep = asyncio.ensure_future(
                resume_expired_logged(runner, retry_config=limits.retry_config)
            )
        app.state.resume_sweep = sweep
        yield
        if sweep is not None:
            sweep.cancel(SHUTTING_DOWN)
            await asyncio.gather(sweep, return_exceptions=True)
        await turns.cancel_all()

    middleware = [
        Middleware(RequestGuard, allowed_hosts=allowed_hosts, allowed_origins=allowed_origins)
    ]
    if auth_token is not None:
        middleware.append(Middleware(BearerAuth, tokens=tokens, is_public=_is_public))
    app = Starlette(
        routes=_routes(api),
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={
            ApiError: _api_error,
            HTTPException: _http_error,
            SessionStoreError: _store_error,
            Exception: _server_error,
        },
    )
    app.state.turns = turns
    return app
