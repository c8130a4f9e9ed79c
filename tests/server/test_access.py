"""What the server checks on every request: Host, Origin, Content-Type, shared state, operator."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest

from steadyflow.errors import ConfigurationError
from steadyflow.server import create_app
from steadyflow.sessions import InMemorySessionService
from tests.server.harness import APP, USER, echo_agent, run_body, running

BASE = f"/apps/{APP}/users/{USER}/sessions"


def served(**options: Any) -> Any:
    return running(create_app(echo_agent(), InMemorySessionService(), **options))


def own_origin(client: httpx.AsyncClient) -> str:
    return str(client.base_url).rstrip("/")


async def test_a_body_without_a_content_type_is_415(client: httpx.AsyncClient):
    response = await client.post(BASE, content=b'{"state": {"x": 1}}')
    assert response.status_code == 415
    assert response.json()["error"]["type"] == "unsupported_media_type"
    assert (await client.get(BASE)).json() == []


async def test_an_empty_body_may_omit_the_content_type(client: httpx.AsyncClient):
    assert (await client.post(BASE)).status_code == 201


async def test_a_turn_without_a_content_type_is_415_and_runs_nothing(client: httpx.AsyncClient):
    session_id = (await client.post(BASE)).json()["id"]
    body = httpx.Request("POST", "/", json=run_body(session_id)).content
    response = await client.post("/run", content=body)
    assert response.status_code == 415
    stored = (await client.get(f"{BASE}/{session_id}")).json()
    assert stored["events"] == []


async def test_a_foreign_host_header_is_400_on_every_path():
    async with served() as client:
        for method, path in (("GET", "/health"), ("GET", "/"), ("POST", BASE)):
            response = await client.request(method, path, headers={"host": "evil.example"})
            assert response.status_code == 400, path
            assert response.json()["error"]["type"] == "host_not_allowed"
        assert (await client.get(BASE)).json() == []


async def test_loopback_names_and_allowed_hosts_are_answered():
    async with served(allowed_hosts=["agents.internal"]) as client:
        port = client.base_url.port
        for host in (f"localhost:{port}", f"[::1]:{port}", "agents.internal", "AGENTS.internal."):
            response = await client.get("/health", headers={"host": host})
            assert response.status_code == 200, host
        assert (await client.get("/health", headers={"host": "other.internal"})).status_code == 400


async def test_allowed_host_star_turns_the_host_check_off():
    async with served(allowed_hosts=["*"]) as client:
        assert (await client.get("/health", headers={"host": "any.example"})).status_code == 200


async def test_a_write_from_another_origin_is_403_and_stores_nothing(client: httpx.AsyncClient):
    for origin in ("http://attacker.test:8080", "null", "http://localhost:1"):
        response = await client.post(BASE, json={}, headers={"origin": origin})
        assert response.status_code == 403, origin
        assert response.json()["error"]["type"] == "origin_not_allowed"
    assert (await client.get(BASE)).json() == []


async def test_reads_from_another_origin_and_writes_from_our_own_pass(client: httpx.AsyncClient):
    assert (await client.get(BASE, headers={"origin": "http://attacker.test"})).status_code == 200
    response = await client.post(BASE, json={}, headers={"origin": own_origin(client)})
    assert response.status_code == 201


async def test_an_allowed_origin_may_write():
    async with served(allowed_origins=["https://console.example/"]) as client:
        headers = {"origin": "https://console.example"}
        assert (await client.post(BASE, json={}, headers=headers)).status_code == 201


@pytest.mark.parametrize("key", ["app:banner", "user:tier"])
async def test_a_new_session_may_not_set_shared_state(client: httpx.AsyncClient, key: str):
    response = await client.post(BASE, json={"state": {key: "pwned", "cart": []}})
    assert response.status_code == 422
    assert [f["field"] for f in response.json()["error"]["fields"]] == [f"state.{key}"]
    other = (await client.post(f"/apps/{APP}/users/victim/sessions")).json()
    assert other["state"] == {}


async def test_shared_state_is_accepted_when_the_server_allows_it():
    async with served(allow_shared_state=True) as client:
        response = await client.post(BASE, json={"state": {"app:banner": "hi", "cart": []}})
        assert response.status_code == 201
        other = (await client.post(f"/apps/{APP}/users/victim/sessions")).json()
    assert other["state"] == {"app:banner": "hi"}


async def test_listing_every_users_sessions_with_the_user_token_only_is_403():
    async with served(auth_token="user-token") as client:
        user = {"authorization": "Bearer user-token"}
        await client.post(BASE, headers=user)
        response = await client.get(f"/apps/{APP}/sessions", headers=user)
        apps = (await client.get("/apps", headers=user)).json()
    assert apps["list_all_sessions"] is False
    assert response.status_code == 403
    assert response.json()["error"]["type"] == "operator_token_required"
    assert USER not in response.text


async def test_a_loopback_client_of_a_server_without_tokens_lists_every_session(
    client: httpx.AsyncClient,
):
    await client.post(BASE)
    await client.post(f"/apps/{APP}/users/other/sessions")
    response = await client.get(f"/apps/{APP}/sessions")
    assert response.status_code == 200
    assert sorted(s["user_id"] for s in response.json()) == ["other", USER]


async def test_a_proxied_client_of_a_server_without_tokens_may_not_list_every_session(
    client: httpx.AsyncClient,
):
    await client.post(BASE)
    response = await client.get(f"/apps/{APP}/sessions", headers={"x-forwarded-for": "1.2.3.4"})
    assert response.status_code == 403
    assert USER not in response.text


async def test_an_operator_token_alone_is_logged_as_leaving_the_routes_open(caplog):
    caplog.set_level(logging.WARNING, logger="steadyflow.server")
    async with served(operator_token="op-token") as client:
        assert (await client.post(BASE)).status_code == 201  # open, as the warning says
        assert (await client.get(f"/apps/{APP}/sessions")).status_code == 403
    (warning,) = [r.getMessage() for r in caplog.records if "operator token" in r.getMessage()]
    assert "every other route is open" in warning


async def test_only_the_operator_token_lists_every_users_sessions():
    async with served(auth_token="user-token", operator_token="op-token") as client:
        user = {"authorization": "Bearer user-token"}
        operator = {"authorization": "Bearer op-token"}
        assert (await client.post(BASE, headers=user)).status_code == 201
        assert (await client.get(f"/apps/{APP}/sessions", headers=user)).status_code == 403
        listed = await client.get(f"/apps/{APP}/sessions", headers=operator)
        assert (await client.get(BASE, headers=operator)).status_code == 200
    assert listed.status_code == 200 and [s["user_id"] for s in listed.json()] == [USER]


def test_an_operator_token_equal_to_the_user_token_is_refused():
    with pytest.raises(ConfigurationError, match="operator_token must differ"):
        create_app(echo_agent(), InMemorySessionService(), auth_token="t", operator_token="t")
