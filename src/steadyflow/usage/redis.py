"""``RedisSpendStore``: spend limits shared by every process of a fleet, through Redis.

The same entries and the same rules as the in-process and SQL stores
(``steadyflow.usage.spend``), kept per app under one hash tag and changed
only by the Lua scripts in ``_redis_scripts`` (one atomic step per
reservation and per charge), so N workers on N hosts cannot overspend by
more than what their calls in flight use beyond their estimates. Entries
(and the keys of an app nobody uses) expire after ``retention_seconds``.

Unlike the retry budget, a spend store fails closed: when Redis cannot be
reached the attempt is refused with ``SpendStoreError`` (what was spent is
unknown). Needs the ``redis`` extra (``pip install 'steadyflow[redis]'``).
"""

from __future__ import annotations

import asyncio
import json
import weakref
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._redact import redact_url
from ..errors import SpendStoreError
from ._redis_scripts import RESERVE, SETTLE
from .spend import Charge, Refusal, SpendCheck, SpendEntry, Who

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["RedisSpendStore"]

_SET = {"app": 2, "user": 3, "session": 4}


class RedisSpendStore:
    """Spend entries in Redis; see the module docstring.

    Args:
        url: ``redis://[user:password@]host:port/db`` (one pool per event loop), or
        client: a ``redis.asyncio.Redis`` to use as is.
        prefix: prepended to every key.
        retention_seconds: how long entries are kept (default 31 days).
        timeout: seconds a Redis command may take.
    """

    def __init__(
        self,
        *,
        url: str | None = None,
        client: Redis | None = None,
        prefix: str = "steadyflow:spend:",
        retention_seconds: float = 31 * 86400.0,
        timeout: float = 5.0,
    ) -> None:
        try:
            import redis.asyncio as aioredis
        except ImportError as exc:
            raise ImportError(
                "RedisSpendStore needs the redis package: pip install 'steadyflow[redis]'"
            ) from exc
        if (url is None) == (client is None):
            raise ValueError("RedisSpendStore: pass exactly one of url= or client=")
        self._aioredis, self.url, self._client = aioredis, url, client
        self.prefix, self._retention, self._timeout = prefix, retention_seconds, timeout
        self._per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Redis] = (
            weakref.WeakKeyDictionary()
        )
        self._scripts: weakref.WeakKeyDictionary[Any, dict[str, Any]] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        return f"RedisSpendStore({redact_url(self.url) if self.url else self._client!r})"

    def _redis(self) -> Redis:
        if self._client is not None:
            return self._client
        loop = asyncio.get_running_loop()
        client = self._per_loop.get(loop)
        if client is None:
            assert self.url is not None
            client = self._aioredis.Redis.from_url(
                self.url, socket_timeout=self._timeout, socket_connect_timeout=self._timeout
            )
            self._per_loop[loop] = client
        return client

    def _keys(self, who: Who) -> list[str]:
        base = f"{self.prefix}{{{who.app}}}:"
        user = f"{len(who.user)}:{who.user}"
        return [f"{base}e", f"{base}z:app", f"{base}z:u:{user}", f"{base}z:s:{user}:{who.session}"]

    async def _run(self, script: str, keys: list[str], args: list[Any], action: str) -> Any:
        try:
            client = self._redis()
            scripts = self._scripts.get(client)
            if scripts is None:
                scripts = self._scripts[client] = {
                    "reserve": client.register_script(RESERVE),
                    "settle": client.register_script(SETTLE),
                }
            return await scripts[script](keys=keys, args=args)
        except Exception as error:
            raise SpendStoreError(
                f"spend store {self!r} could not {action}: {type(error).__name__}: {error}"
            ) from error

    async def reserve(self, hold: SpendEntry, checks: Sequence[SpendCheck]) -> Refusal | None:
        """See ``SpendStore.reserve``."""
        entry = {
            "user": hold.user,
            "session": hold.session,
            "invocation": hold.invocation,
            "model": hold.model,
            "at": repr(hold.at),
            "cost_nano": str(hold.cost_nano),
            "tokens": str(hold.tokens),
            "state": "reserved",
            "expires_at": repr(hold.expires_at),
        }
        args: list[Any] = [repr(hold.at), hold.id, json.dumps(entry), hold.cost_nano]
        args += [hold.tokens, repr(self._retention), len(checks)]
        for check in checks:
            args += [_SET[check.scope], repr(check.seconds)]
            args += ["" if check.max_cost_nano is None else check.max_cost_nano]
            args += ["" if check.max_tokens is None else check.max_tokens]
        who = Who(hold.app, hold.user, hold.session)
        reply = await self._run("reserve", self._keys(who), args, "reserve spend")
        index = int(reply[0])
        if index < 0:
            return None
        return Refusal(checks[index], Charge(int(reply[1]), int(reply[2])))

    async def settle(self, hold_id: str, who: Who, actual: Charge | None, now: float) -> None:
        """See ``SpendStore.settle``."""
        args = ["", ""] if actual is None else [actual.cost_nano, actual.tokens]
        await self._run("settle", self._keys(who), [hold_id, *args], "settle spend")

    async def entries(self, app: str | None, since: float) -> list[SpendEntry]:
        """See ``SpendStore.entries`` (reads every entry of the app: for reports)."""
        client = self._redis()
        pattern = f"{self.prefix}{{{'*' if app is None else app}}}:e"
        found: list[SpendEntry] = []
        try:
            untyped: Any = client  # scan_iter's stub leaves **kwargs untyped
            async for key in untyped.scan_iter(match=pattern):
                name = key.decode() if isinstance(key, bytes) else str(key)
                app_name = name[len(self.prefix) + 1 : name.rindex("}")]
                for entry_id, text in (await client.hgetall(name)).items():
                    found.extend(_entry(app_name, entry_id, text, since))
        except Exception as error:
            raise SpendStoreError(f"spend store {self!r} could not read spend: {error}") from error
        return sorted(found, key=lambda e: e.at)

    async def aclose(self) -> None:
        """Close the connections opened on the running event loop."""
        client = self._per_loop.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.aclose()


def _entry(app: str, entry_id: Any, text: Any, since: float) -> list[SpendEntry]:
    data = json.loads(text)
    at = float(data["at"])
    if data["state"] != "charged" or at <= since:
        return []
    hold = entry_id.decode() if isinstance(entry_id, bytes) else str(entry_id)
    return [
        SpendEntry(
            hold,
            app,
            data["user"],
            data["session"],
            data["invocation"],
            data["model"],
            at,
            int(data["cost_nano"]),
            int(data["tokens"]),
        )
    ]
