"""Session endpoints: create, get, list, delete, and their 404/409/422 answers."""

from __future__ import annotations

import httpx

from steadyflow.server import create_app
from steadyflow.sessions import InMemorySessionService
from tests.server.harness import APP, USER, create_session, echo_agent, run_body, running

BASE = f"/apps/{APP}/users/{USER}/sessions"


async def test_health_answers_ok_with_the_version(client: httpx.AsyncClient):
    response = await client.get("/health")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.json()["version"]


async def test_apps_lists_the_served_app(client: httpx.AsyncClient):
    assert (await client.get("/apps")).json() == {"apps": [APP], "list_all_sessions": True}


async def test_create_answers_201_with_the_new_empty_session(client: httpx.AsyncClient):
    response = await client.post(BASE, json={"state": {"tier": "gold"}})
    assert response.status_code == 201
    body = response.json()
    assert (body["app_name"], body["user_id"], body["events"]) == (APP, USER, [])
    assert body["state"] == {"tier": "gold"}
    assert body["revision"] == 0


async def test_create_without_a_body_makes_a_session(client: httpx.AsyncClient):
    response = await client.post(BASE)
    assert response.status_code == 201
    assert response.json()["id"]


async def test_create_with_a_taken_id_is_409(client: httpx.AsyncClient):
    await create_session(client, session_id="s-1")
    response = await client.post(BASE, json={"session_id": "s-1"})
    assert response.status_code == 409
    assert response.json()["error"]["type"] == "session_exists"


async def test_get_returns_the_session_with_its_events(client: httpx.AsyncClient):
    session_id = await create_session(client)
    await client.post("/run", json=run_body(session_id, "hello"))
    body = (await client.get(f"{BASE}/{session_id}")).json()
    assert [e["author"] for e in body["events"]][:2] == ["user", APP]
    assert body["events"][1]["content"]["parts"][0]["text"] == "echo: hello"


async def test_get_of_a_missing_session_is_404(client: httpx.AsyncClient):
    response = await client.get(f"{BASE}/nope")
    assert response.status_code == 404
    assert "nope" in response.json()["error"]["message"]


async def test_list_returns_the_users_sessions_without_events(client: httpx.AsyncClient):
    first, second = await create_session(client), await create_session(client)
    await client.post(f"/apps/{APP}/users/someone-else/sessions")
    listed = (await client.get(BASE)).json()
    assert [s["id"] for s in listed] == [first, second]
    assert all("events" not in s for s in listed)


async def test_list_all_returns_every_users_sessions_to_the_operator():
    app = create_app(echo_agent(), InMemorySessionService(), operator_token="op")
    async with running(app) as client:
        mine = await create_session(client)
        theirs = (await client.post(f"/apps/{APP}/users/u2/sessions")).json()["id"]
        operator = {"authorization": "Bearer op"}
        listed = (await client.get(f"/apps/{APP}/sessions", headers=operator)).json()
    assert {(s["user_id"], s["id"]) for s in listed} == {(USER, mine), ("u2", theirs)}


async def test_delete_answers_204_and_the_session_is_gone(client: httpx.AsyncClient):
    session_id = await create_session(client)
    assert (await client.delete(f"{BASE}/{session_id}")).status_code == 204
    assert (await client.get(f"{BASE}/{session_id}")).status_code == 404


async def test_delete_of_a_missing_session_is_404(client: httpx.AsyncClient):
    assert (await client.delete(f"{BASE}/nope")).status_code == 404


async def test_another_app_is_404_naming_the_served_app(client: httpx.AsyncClient):
    response = await client.get("/apps/other/users/u1/sessions")
    assert response.status_code == 404
    assert APP in response.json()["error"]["message"]


async def test_an_invalid_user_id_is_422_naming_the_parameter(client: httpx.AsyncClient):
    response = await client.get(f"/apps/{APP}/users/%20bad%20/sessions")
    assert response.status_code == 422
    assert response.json()["error"]["fields"][0]["field"] == "user"


async def test_an_unknown_body_field_is_422_naming_it(client: httpx.AsyncClient):
    response = await client.post(BASE, json={"sesion_id": "x"})
    assert response.status_code == 422
    assert response.json()["error"]["fields"][0]["field"] == "sesion_id"


async def test_a_body_that_is_not_json_is_422(client: httpx.AsyncClient):
    response = await client.post(
        BASE, content=b"{nope", headers={"content-type": "application/json"}
    )
    assert response.status_code == 422
    assert response.json()["error"]["fields"][0]["field"] == "body"


async def test_a_non_json_content_type_is_415(client: httpx.AsyncClient):
    response = await client.post(BASE, content=b"x=1", headers={"content-type": "text/plain"})
    assert response.status_code == 415


async def test_unknown_paths_answer_json_404(client: httpx.AsyncClient):
    response = await client.get("/nowhere")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "Not Found"


async def test_listings_show_the_first_user_message_and_the_last_status(client):
    session_id = await create_session(client)
    await client.post("/run", json=run_body(session_id, "Where is order 812?"))
    [listed] = (await client.get(f"/apps/{APP}/users/{USER}/sessions")).json()
    assert listed["first_message"] == "Where is order 812?"
    assert listed["last_status"] == "completed"
    fresh = await create_session(client)
    rows = {s["id"]: s for s in (await client.get(f"/apps/{APP}/users/{USER}/sessions")).json()}
    assert "first_message" not in rows[fresh] and "last_status" not in rows[fresh]
