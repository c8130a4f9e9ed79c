"""Bearer-token auth: 401 everywhere but /health and the viewer's files; never logged."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import httpx
import pytest
import pytest_asyncio

from steadyflow.server import create_app
from steadyflow.sessions import InMemorySessionService
from tests.server.harness import APP, USER, echo_agent, run_body, running

TOKEN = "s3cret-token-4f9a"
GOOD = {"authorization": f"Bearer {TOKEN}"}

API_CALLS = [
    ("GET", "/apps", None),
    ("GET", "/openapi.json", None),
    ("GET", f"/apps/{APP}/sessions", None),
    ("GET", f"/apps/{APP}/users/{USER}/sessions", None),
    ("POST", f"/apps/{APP}/users/{USER}/sessions", {}),
    ("GET", f"/apps/{APP}/users/{USER}/sessions/s1", None),
    ("DELETE", f"/apps/{APP}/users/{USER}/sessions/s1", None),
    ("POST", "/run", run_body("s1")),
    ("POST", "/run_sse", run_body("s1")),
    ("GET", "/no/such/route", None),
]


pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def client() -> AsyncIterator[httpx.AsyncClient]:
    """One server for the module: these tests only read, or write fresh sessions."""
    async with running(create_app(echo_agent(), InMemorySessionService(), auth_token=TOKEN)) as c:
        yield c


@pytest.mark.parametrize(("method", "path", "body"), API_CALLS)
@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"authorization": "Bearer wrong"},
        {"authorization": f"Basic {TOKEN}"},
        {"authorization": f"Bearer {TOKEN}x"},
        {"authorization": "Bearer"},
    ],
    ids=["none", "wrong", "basic", "longer", "empty"],
)
async def test_every_api_endpoint_is_401_without_the_right_token(
    client: httpx.AsyncClient, method: str, path: str, body: object, headers: dict[str, str]
):
    response = await client.request(method, path, json=body, headers=headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert TOKEN not in response.text


async def test_the_right_token_is_let_through(client: httpx.AsyncClient):
    created = await client.post(f"/apps/{APP}/users/{USER}/sessions", headers=GOOD)
    assert created.status_code == 201
    body = run_body(created.json()["id"])
    assert (await client.post("/run", json=body, headers=GOOD)).status_code == 200


async def test_the_scheme_name_is_case_insensitive(client: httpx.AsyncClient):
    response = await client.get("/apps", headers={"authorization": f"bearer {TOKEN}"})
    assert response.status_code == 200


@pytest.mark.parametrize("path", ["/health", "/", "/static/style.css"])
async def test_health_and_the_viewer_files_need_no_token(client: httpx.AsyncClient, path: str):
    assert (await client.get(path)).status_code == 200


async def test_the_spec_declares_bearer_auth_except_on_health(client: httpx.AsyncClient):
    spec = (await client.get("/openapi.json", headers=GOOD)).json()
    assert spec["security"] == [{"bearer": []}]
    assert spec["paths"]["/health"]["get"]["security"] == []
    assert "401" in spec["paths"]["/run"]["post"]["responses"]


async def test_the_token_never_reaches_the_logs(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
):
    caplog.set_level(logging.DEBUG)
    await client.get("/apps", headers=GOOD)
    await client.get("/apps", headers={"authorization": f"Bearer {TOKEN}-wrong"})
    await client.post("/run", json=run_body("nope"), headers=GOOD)
    assert caplog.records  # the access log is captured, so the check below can fail
    assert not [r for r in caplog.records if TOKEN in r.getMessage()]
