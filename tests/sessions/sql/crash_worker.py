"""Child process for the SQLite crash test: runs turns until it is killed.

Started once per test as ``python crash_worker.py DB``; it imports everything,
says ``ready``, then for each seed read from stdin forks a worker (fast: no
interpreter start-up per crash) that appends events forever and is killed
with SIGKILL by the test. Every line is written with one ``os.write`` so a
kill never leaves half a line. Lines:

``pid P`` (the worker's pid), ``begin SID EID`` (about to append),
``step ...`` (a statement ran or a commit starts), ``commit EID``
(``append_event`` returned), ``rejected EID`` (a stale append was refused),
``exit STATUS`` (the worker is gone; from the parent).

Each event's state delta makes a torn write visible: ``n`` = its position in
its session, ``user:count`` = events of the user so far, ``app:last`` = its id.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys

from sqlalchemy import event as sa_event

from steadyflow.errors import StaleSessionError
from steadyflow.events import Event, EventActions, new_event_id
from steadyflow.sessions import Session
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.types import Content

APP = "crash"
USER = "u1"


def say(*words: object) -> None:
    os.write(1, (" ".join(str(w) for w in words) + "\n").encode())


async def append(service: SqlSessionService, session: Session, total: int) -> None:
    event_id = new_event_id()
    delta = {"n": len(session.events) + 1, "user:count": total, "app:last": event_id}
    event = Event(
        id=event_id,
        author="agent",
        content=Content.from_text(f"event {total}", role="model"),
        actions=EventActions(state_delta=delta),
    )
    say("begin", session.id, event.id)
    await service.append_event(session, event)
    say("commit", event.id)


async def reject_stale(service: SqlSessionService, session: Session) -> None:
    stale = session.model_copy(update={"revision": session.revision - 1, "events": []})
    event = Event(author="agent", actions=EventActions(state_delta={"n": -1, "user:count": -1}))
    try:
        await service.append_event(stale, event)
    except StaleSessionError:
        say("rejected", event.id)
    else:
        say("BUG stale append accepted", event.id)


def report_statements(service: SqlSessionService) -> None:
    """Say ``step`` after every SQL statement and before every commit.

    The test kills the worker after a random number of lines, so these
    lines put the kill points between the statements of a transaction and
    inside commits, not only between appends.
    """
    engine = service.engine.sync_engine
    sa_event.listen(engine, "after_cursor_execute", lambda *_: say("step sql"))
    sa_event.listen(engine, "commit", lambda *_: say("step commit"))


async def run_turns(db: str, seed: int) -> None:
    rng = random.Random(seed)
    service = SqlSessionService(f"sqlite:///{db}")
    listed = await service.list_sessions(app_name=APP, user_id=USER)
    total = listed[0].state.get("user:count", 0) if listed else 0  # the test checks it
    sessions: dict[str, Session | None] = {s.id: None for s in listed}
    report_statements(service)
    for _ in range(1000):  # the test kills us long before
        if not sessions or rng.random() < 0.15:
            created = await service.create_session(app_name=APP, user_id=USER)
            sessions[created.id] = created
        session_id = rng.choice(list(sessions))
        session = sessions[session_id] or await service.get_session(
            app_name=APP, user_id=USER, session_id=session_id
        )
        assert session is not None
        sessions[session_id] = session
        for _ in range(2):  # a turn: the user's event, then the model's
            total += 1
            await append(service, session, total)
        if rng.random() < 0.2:
            await reject_stale(service, session)


def main() -> None:
    db = sys.argv[1]
    say("ready")
    for line in sys.stdin:
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                say("pid", os.getpid())
                asyncio.run(run_turns(db, int(line)))
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        say("exit", status)


if __name__ == "__main__":
    main()
