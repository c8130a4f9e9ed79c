"""``steadyflow usage``: what was spent, by app, user, session or model, over a window.

It reads the spend stores (``steadyflow.usage.spend``): the session
database's ``steadyflow_spend`` table (``--session-db``), or a Redis spend
store (``--redis``). Only attempts made under a ``SpendLimit`` are there
(a store is written only to enforce a limit), so the output says so, above
the table and in place of an empty one: a user who ran priced turns without
a limit must not read "no spend". Every turn's own usage and cost are in
its invocation record (``steadyflow trace``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from decimal import Decimal
from typing import cast

from rich import box
from rich.markup import escape
from rich.table import Table

from ..usage.prices import usd
from ..usage.spend import SpendEntry, SpendStore, from_nano
from ._console import is_plain, make_console
from ._errors import CliError
from ._store import open_store

__all__ = ["GROUPS", "print_usage", "spend_by"]

GROUPS = ("app", "user", "session", "model")

_COUNTED = "Only turns run under a spend limit (RunConfig.spend_limits) are recorded"


def spend_by(entries: Sequence[SpendEntry], group: str) -> list[tuple[str, int, int, Decimal]]:
    """Rows ``(name, attempts, tokens, cost)``, the costliest first."""
    totals: dict[str, list[int]] = {}
    for entry in entries:
        name = {
            "app": entry.app,
            "user": f"{entry.app}/{entry.user}",
            "session": f"{entry.app}/{entry.user}/{entry.session}",
            "model": entry.model,
        }[group]
        row = totals.setdefault(name, [0, 0, 0])
        row[0] += 1
        row[1] += entry.tokens
        row[2] += entry.cost_nano
    rows = [(name, a, t, from_nano(c)) for name, (a, t, c) in totals.items()]
    return sorted(rows, key=lambda r: (-r[3], -r[2], r[0]))


async def _entries(url: str, redis: str | None, app: str | None, since: float) -> list[SpendEntry]:
    if redis is not None:
        from ..usage.redis import RedisSpendStore

        redis_store = RedisSpendStore(url=redis)
        try:
            return await redis_store.entries(app, since)
        finally:
            await redis_store.aclose()
    async with open_store(url) as service:
        make = getattr(service, "spend_store", None)
        if not callable(make):
            raise CliError("this session store keeps no spend; use a SQL database or --redis")
        store = cast(SpendStore, make())
        return await store.entries(app, since)


async def print_usage(
    url: str, redis: str | None, app: str | None, group: str, hours: float, as_json: bool
) -> None:
    """Print the spend of the last ``hours`` hours grouped by ``group``."""
    if group not in GROUPS:
        raise CliError(f"--by must be one of {', '.join(GROUPS)}, got {group!r}")
    entries = await _entries(url, redis, app, time.time() - hours * 3600.0)
    rows = spend_by(entries, group)
    console = make_console()
    if as_json:
        data = [{group: n, "attempts": a, "tokens": t, "cost": str(c)} for n, a, t, c in rows]
        console.print_json(json.dumps(data))
        return
    if not rows:
        console.print(
            f"no spend recorded in the last {hours:g} h. {_COUNTED}; a turn's own usage "
            "and cost are in its invocation record (steadyflow trace)"
        )
        return
    console.print(f"{_COUNTED}.")
    table = Table(box=None if is_plain(console) else box.SIMPLE_HEAD, pad_edge=False)
    table.add_column(group, no_wrap=True)
    for column in ("attempts", "tokens", "cost"):
        table.add_column(column, justify="right", no_wrap=True)
    for name, attempts, tokens, cost in rows:
        table.add_row(escape(name), str(attempts), str(tokens), usd(cost))
    total = sum((r[3] for r in rows), Decimal(0))
    console.print(table)
    console.print(f"total {usd(total)} over {sum(r[1] for r in rows)} attempts in {hours:g} h")
