"""Child process for the two-writer test: appends to one PostgreSQL session, racing a twin.

``python pg_writer.py URL SESSION_ID COUNT NAME``: loads the session, says
``ready``, waits for ``go`` on stdin, then makes COUNT appends. A refused
(stale) append is reported and the session reloaded. Prints one JSON line:
``{"stored": [ids in order], "rejected": [ids]}``.
"""

from __future__ import annotations

import asyncio
import json
import sys

from steadyflow.errors import StaleSessionError
from steadyflow.events import Event, EventActions
from steadyflow.sessions.sql import SqlSessionService

APP = "race"
USER = "u1"


async def race(url: str, session_id: str, count: int, name: str) -> dict[str, list[str]]:
    service = SqlSessionService(url)
    session = await service.get_session(app_name=APP, user_id=USER, session_id=session_id)
    assert session is not None
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    stored: list[str] = []
    rejected: list[str] = []
    for i in range(count):
        event = Event(author=name, actions=EventActions(state_delta={name: i, "app:last": name}))
        try:
            await service.append_event(session, event)
            stored.append(event.id)
        except StaleSessionError:
            rejected.append(event.id)
            reloaded = await service.get_session(app_name=APP, user_id=USER, session_id=session_id)
            assert reloaded is not None
            session = reloaded
    await service.close()
    return {"stored": stored, "rejected": rejected}


if __name__ == "__main__":
    url, session_id, count, name = sys.argv[1:5]
    print(json.dumps(asyncio.run(race(url, session_id, int(count), name))), flush=True)
