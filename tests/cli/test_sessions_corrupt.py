"""A bad event row (deep nesting, a wrong type) no longer breaks ``steadyflow sessions list``."""

import asyncio
import sqlite3

import pytest

from steadyflow.errors import CorruptSessionError
from steadyflow.sessions import open_session_service
from tests.cli.support import invoke, session_ids

DEEP = "[" * 100_000 + "]" * 100_000

BAD_EVENTS = {
    "100,000 levels deep": '{"author": "user", "content": {"parts": ' + DEEP + "}}",
    "wrongly typed": '{"author": ["not", "a", "name"], "invocation_id": 7}',
}


def two_sessions(cli, db, agent_file) -> list[str]:
    for message in ("first", "second"):
        result = invoke(cli, "run", agent_file('["hello"]'), message, "--session-db", db)
        assert result.exit_code == 0, result.stderr
    return session_ids(cli, db)


@pytest.mark.parametrize("bad", list(BAD_EVENTS))
def test_a_bad_event_row_is_reported_and_the_other_sessions_listed(cli, db, agent_file, bad):
    good, broken = two_sessions(cli, db, agent_file)
    with sqlite3.connect(db.removeprefix("sqlite:///")) as raw:
        raw.execute(
            "UPDATE steadyflow_events SET data = ? WHERE session_id = ? AND seq = 2",
            (BAD_EVENTS[bad], broken),
        )

    listed = invoke(cli, "sessions", "list", "--session-db", db)

    assert listed.exit_code == 1
    rows = {line.split()[0]: line for line in listed.stdout.splitlines()[1:]}
    assert "hello" not in rows[broken] and "unreadable" in rows[broken]
    assert rows[good].split()[:4] == [good, "shop", "user", "2"] and "first" in rows[good]
    assert f"session '{broken}'" in listed.stderr and "event 2 is not an event" in listed.stderr
    assert "1 of 2 sessions could not be read" in listed.stderr

    async def load() -> None:
        service = open_session_service(db)
        try:
            await service.get_session(app_name="shop", user_id="user", session_id=broken)
        finally:
            await service.close()

    with pytest.raises(CorruptSessionError, match=broken) as raised:
        asyncio.run(load())
    assert raised.value.session_id == broken
