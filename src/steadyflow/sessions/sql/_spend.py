"""``SqlSpendStore``: spend limits kept in the session database (``steadyflow_spend``).

Every reservation is one write transaction that sums each limit's scope
inside its window, then inserts the reserved row. Two reservations never
interleave: on PostgreSQL the transaction first takes an advisory lock per
app (``pg_advisory_xact_lock``), on SQLite the write transaction's lock
(``BEGIN IMMEDIATE``) does the same. Settling updates or deletes the row.
Rows older than ``retention_seconds`` are deleted by a reservation of their
app, at most once a minute per store (not one more statement per attempt).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, delete, func, or_, select, text, update

import steadyflow.sessions.sql._schema as t

from ...usage.spend import Charge, Refusal, SpendCheck, SpendEntry, Who

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncConnection

Transaction = Callable[[str], AbstractAsyncContextManager["AsyncConnection"]]
"""The service's read or write transaction, named by what it does (for its errors)."""

__all__ = ["SqlSpendStore"]


def _scope(check: SpendCheck, hold: SpendEntry) -> ColumnElement[bool]:
    s = t.spend
    where = s.c.app_name == hold.app
    if check.scope in ("user", "session"):
        where = where & (s.c.user_id == hold.user)
    if check.scope == "session":
        where = where & (s.c.session_id == hold.session)
    return where


async def _spent(conn: AsyncConnection, check: SpendCheck, hold: SpendEntry) -> Charge:
    now = hold.at
    s = t.spend
    live = or_(s.c.state == "charged", s.c.expires_at > now)
    query = select(
        func.coalesce(func.sum(s.c.cost_nano), 0), func.coalesce(func.sum(s.c.tokens), 0)
    )
    row = (
        await conn.execute(query.where(_scope(check, hold) & (s.c.at > now - check.seconds) & live))
    ).one()
    return Charge(int(row[0]), int(row[1]))


class SqlSpendStore:
    """Spend entries in the session database; see the module docstring.

    Made by ``SqlSessionService.spend_store()``, on its transactions (so its
    errors are ``SessionStoreError`` naming the database, like the sessions').
    """

    def __init__(
        self, read: Transaction, write: Transaction, retention_seconds: float = 31 * 86400.0
    ) -> None:
        self._read, self._write = read, write
        self._retention = retention_seconds
        self._pruned: dict[str, float] = {}  # app -> when its old rows were last deleted

    async def reserve(self, hold: SpendEntry, checks: Sequence[SpendCheck]) -> Refusal | None:
        """See ``SpendStore.reserve``."""
        s = t.spend
        async with self._write("reserve spend") as conn:
            if conn.dialect.name == "postgresql":
                lock = text("SELECT pg_advisory_xact_lock(hashtext(:key))")
                await conn.execute(lock, {"key": f"steadyflow_spend:{hold.app}"})
            if hold.at - self._pruned.get(hold.app, float("-inf")) >= 60.0:
                cutoff = hold.at - self._retention
                where = (s.c.app_name == hold.app) & (s.c.at <= cutoff)
                await conn.execute(delete(s).where(where))
                self._pruned[hold.app] = hold.at
            for check in checks:
                spent = await _spent(conn, check, hold)
                if check.refuses(spent, hold.charge):
                    return Refusal(check, spent)
            await conn.execute(s.insert().values(**_row(hold)))
        return None

    async def settle(self, hold_id: str, who: Who, actual: Charge | None, now: float) -> None:
        """See ``SpendStore.settle``."""
        s = t.spend
        async with self._write("settle spend") as conn:
            if actual is None:
                await conn.execute(delete(s).where(s.c.id == hold_id))
                return
            values = {
                "cost_nano": actual.cost_nano,
                "tokens": actual.tokens,
                "state": "charged",
                "expires_at": None,
            }
            await conn.execute(update(s).where(s.c.id == hold_id).values(**values))

    async def entries(self, app: str | None, since: float) -> list[SpendEntry]:
        """See ``SpendStore.entries``."""
        s = t.spend
        where = (s.c.state == "charged") & (s.c.at > since)
        if app is not None:
            where = where & (s.c.app_name == app)
        async with self._read("read spend") as conn:
            rows = (await conn.execute(select(s).where(where).order_by(s.c.at))).all()
        return [
            SpendEntry(
                r.id,
                r.app_name,
                r.user_id,
                r.session_id,
                r.invocation_id,
                r.model,
                r.at,
                int(r.cost_nano),
                int(r.tokens),
                "charged",
            )
            for r in rows
        ]


def _row(hold: SpendEntry) -> dict[str, Any]:
    return {
        "id": hold.id,
        "app_name": hold.app,
        "user_id": hold.user,
        "session_id": hold.session,
        "invocation_id": hold.invocation,
        "model": hold.model,
        "at": hold.at,
        "cost_nano": hold.cost_nano,
        "tokens": hold.tokens,
        "state": hold.state,
        "expires_at": hold.expires_at,
    }
