"""Retry budgets and circuit breakers shared by every process of a fleet, through Redis.

A budget in one process only sees that process's failures: forty workers
each allowed ten retries still send four hundred retries at a provider that
is down. ``RedisRetryBudget`` and ``RedisCircuitBreaker`` keep the same
state as their in-process twins (``TokenBucketRetryBudget``,
``AdaptiveThrottle``, ``CircuitBreaker``) in Redis, updated by one Lua script
per step (``_redis_scripts.py``), so every worker on every host draws on one
budget and sees one circuit per key.

The budget store never fails a call. When Redis cannot be reached (or
answers with an error) the call uses the in-process object it was built
from, a warning is logged once, and Redis is tried again after
``reconnect_after`` seconds; an info line says when it is back.

Needs the ``redis`` extra (``pip install 'steadyflow[redis]'``).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Self

from .._redact import redact_url
from . import _validate
from ._breaker import CircuitBreaker, CircuitState, open_circuit_error
from ._budget import AdaptiveThrottle, TokenBucketRetryBudget
from ._clock import Clock, current_clock
from ._redis_pace_scripts import PACE_SCRIPTS
from ._redis_scripts import SCRIPTS
from ._window import BUCKETS

if TYPE_CHECKING:
    from redis.asyncio import Redis

__all__ = ["RedisCircuitBreaker", "RedisRetryBudget", "RedisShared", "RedisStore"]

logger = logging.getLogger("steadyflow.retry.redis")

INSTALL_HINT = "Redis-backed budgets need the redis package: pip install 'steadyflow[redis]'"


def _import_redis() -> Any:
    try:
        # Loads ``redis.asyncio`` onto the package returned below.
        import redis.asyncio  # pyright: ignore[reportUnusedImport]
    except ImportError as exc:
        raise ImportError(INSTALL_HINT) from exc
    return redis


class _Connection:
    """A client and the scripts registered on it."""

    __slots__ = ("client", "scripts")

    def __init__(self, client: Redis) -> None:
        self.client = client
        every = {**SCRIPTS, **PACE_SCRIPTS}
        self.scripts: dict[str, Any] = {n: client.register_script(s) for n, s in every.items()}


class RedisStore:
    """Runs the scripts on one Redis, per event loop, and owns the fallback switch."""

    def __init__(
        self,
        owner: str,
        *,
        url: str | None,
        client: Redis | None,
        prefix: str,
        clock: Clock | None,
        timeout: float | timedelta,
        reconnect_after: float | timedelta,
        idle_ttl: float | timedelta,
    ) -> None:
        self._redis = _import_redis()
        if (url is None) == (client is None):
            raise ValueError(f"{owner}: pass exactly one of url= or client=")
        if not isinstance(prefix, str):
            raise ValueError(f"{owner}: prefix must be a string, got {prefix!r}")
        self.url = url
        self.prefix = prefix
        self.clock = clock
        self.timeout = _validate.seconds(owner, "timeout", timeout, positive=True)
        self.reconnect_after = _validate.seconds(
            owner, "reconnect_after", reconnect_after, positive=False
        )
        ttl = _validate.seconds(owner, "idle_ttl", idle_ttl, positive=True)
        self.idle_ttl = max(1, round(ttl))
        self._owner = owner
        # Per event loop (a redis.asyncio pool is bound to one): the client and
        # its registered scripts, dropped with the loop.
        self._per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Connection] = (
            weakref.WeakKeyDictionary()
        )
        self._given_connection = None if client is None else _Connection(client)
        self._down_since: float | None = None

    @property
    def where(self) -> str:
        """Where the store is, for logs and reprs (credentials masked: ``redact_url``)."""
        if self.url is None:
            return repr(self._given_connection.client if self._given_connection else None)
        return redact_url(self.url)

    def now_arg(self) -> str:
        """The time scripts use: the injected clock, or "" for the Redis server's."""
        return "" if self.clock is None else repr(self.clock.monotonic())

    async def run(self, script: str, key: str, *args: object) -> Any | None:
        """The script's reply, or None when Redis is unavailable (use the local state)."""
        now = (self.clock or current_clock()).monotonic()
        if self._down_since is not None and now - self._down_since < self.reconnect_after:
            return None
        try:
            scripts = self._connection().scripts
            reply = await scripts[script](keys=[self.prefix + key], args=list(args))
        except Exception as error:
            if self._down_since is None:
                logger.warning(
                    "%s: Redis at %s is unavailable (%s: %s); using the in-process state "
                    "until it answers again (retrying every %gs)",
                    self._owner,
                    self.where,
                    type(error).__qualname__,
                    error,
                    self.reconnect_after,
                )
            self._down_since = now
            return None
        if self._down_since is not None:
            logger.info("%s: Redis at %s answers again; state is shared", self._owner, self.where)
            self._down_since = None
        return reply

    async def aclose(self) -> None:
        """Close the connections this store opened on the running event loop."""
        connection = self._per_loop.pop(asyncio.get_running_loop(), None)
        if connection is not None:
            await connection.client.aclose()

    def _connection(self) -> _Connection:
        if self._given_connection is not None:
            return self._given_connection
        loop = asyncio.get_running_loop()
        connection = self._per_loop.get(loop)
        if connection is None:
            client = self._redis.asyncio.Redis.from_url(
                self.url,
                socket_timeout=self.timeout,
                socket_connect_timeout=self.timeout,
                retry=self._redis.asyncio.retry.Retry(self._redis.backoff.NoBackoff(), 0),
            )
            connection = self._per_loop[loop] = _Connection(client)
        return connection


class RedisShared:
    """What the Redis budget, breaker and pacer share: the store and its lifecycle."""

    def __init__(
        self,
        url: str | None,
        client: Redis | None,
        prefix: str,
        clock: Clock | None,
        timeout: float | timedelta,
        reconnect_after: float | timedelta,
        idle_ttl: float | timedelta,
    ) -> None:
        self._store = RedisStore(
            type(self).__name__,
            url=url,
            client=client,
            prefix=prefix,
            clock=clock,
            timeout=timeout,
            reconnect_after=reconnect_after,
            idle_ttl=idle_ttl,
        )

    def __deepcopy__(self, memo: dict[int, object]) -> Self:
        return self  # shared state: a copied RetryConfig must share it too

    async def aclose(self) -> None:
        """Close the Redis connections opened on the running event loop."""
        await self._store.aclose()


class RedisRetryBudget(RedisShared):
    """A ``TokenBucketRetryBudget`` or ``AdaptiveThrottle`` whose state lives in Redis.

    Args:
        budget: the algorithm and its settings; also the in-process budget
            used while Redis is unavailable. Every process of a fleet must
            configure the same settings.
        url: ``redis://[user:password@]host:port/db`` (one connection pool
            per event loop), or
        client: a ``redis.asyncio.Redis`` to use as is.
        prefix: prepended to every Redis key (``{prefix}bucket:{key}``).
        clock: the time windows are read at; default the Redis server's
            ``TIME`` (one clock for the whole fleet).
        timeout: seconds a Redis command may take before it counts as down.
        reconnect_after: seconds to stay on the in-process budget after a
            failure before Redis is tried again.
        idle_ttl: seconds after which an untouched key is dropped (a full
            bucket, an empty window).

    Call ``await budget.aclose()`` before the event loop ends.
    """

    def __init__(
        self,
        budget: TokenBucketRetryBudget | AdaptiveThrottle,
        *,
        url: str | None = None,
        client: Redis | None = None,
        prefix: str = "steadyflow:retry:",
        clock: Clock | None = None,
        timeout: float | timedelta = 0.25,
        reconnect_after: float | timedelta = 5.0,
        idle_ttl: float | timedelta = 86400.0,
    ) -> None:
        if not isinstance(budget, TokenBucketRetryBudget | AdaptiveThrottle):
            raise ValueError(
                "RedisRetryBudget shares a TokenBucketRetryBudget or an AdaptiveThrottle, "
                f"got {budget!r}"
            )
        super().__init__(url, client, prefix, clock, timeout, reconnect_after, idle_ttl)
        self.local = budget

    def __repr__(self) -> str:
        return f"RedisRetryBudget({self.local!r}, url={self._store.where!r})"

    async def allow(self, key: str, *, retry: bool) -> bool:
        """The shared verdict (the local one while Redis is unavailable)."""
        local, store = self.local, self._store
        if isinstance(local, TokenBucketRetryBudget):
            if not retry:
                return True
            max_milli = round(local.max_tokens * 1000)
            tokens = await store.run("bucket_tokens", f"bucket:{key}", max_milli)
            if tokens is None:
                return await local.allow(key, retry=retry)
            return 2 * int(tokens) > max_milli
        if not retry and not local.throttle_first_attempts:
            return True
        args = (store.now_arg(), repr(local.window), BUCKETS, repr(local.k))
        reply = await store.run(
            "throttle_allow", f"throttle:{key}", *args, repr(local.random_source()), store.idle_ttl
        )
        if reply is None:
            return await local.allow(key, retry=retry)
        return int(reply[0]) == 1

    async def record(self, key: str, *, failed: bool) -> None:
        """Update the shared state (the local one while Redis is unavailable)."""
        local, store = self.local, self._store
        flag = 1 if failed else 0
        if isinstance(local, TokenBucketRetryBudget):
            max_milli, ratio_milli = round(local.max_tokens * 1000), round(local.token_ratio * 1000)
            args: tuple[object, ...] = (max_milli, ratio_milli, flag, store.idle_ttl)
            reply = await store.run("bucket_record", f"bucket:{key}", *args)
        else:
            args = (store.now_arg(), repr(local.window), BUCKETS, flag, store.idle_ttl)
            reply = await store.run("throttle_record", f"throttle:{key}", *args)
        if reply is None:
            await local.record(key, failed=failed)


class RedisCircuitBreaker(RedisShared):
    """A ``CircuitBreaker`` whose circuits live in Redis, one per key for the fleet.

    Args:
        breaker: the settings; also the in-process breaker used while Redis
            is unavailable.
        url: ``redis://...``, or client: a ``redis.asyncio.Redis``.
        prefix: prepended to every Redis key (``{prefix}breaker:{key}``).
        clock: the time transitions are judged at; default Redis ``TIME``.
        timeout: seconds a Redis command may take before it counts as down.
        reconnect_after: seconds on the in-process breaker before Redis is
            tried again.
        idle_ttl: seconds after which an untouched circuit is dropped (closed).

    Call ``await breaker.aclose()`` before the event loop ends.
    """

    def __init__(
        self,
        breaker: CircuitBreaker,
        *,
        url: str | None = None,
        client: Redis | None = None,
        prefix: str = "steadyflow:retry:",
        clock: Clock | None = None,
        timeout: float | timedelta = 0.25,
        reconnect_after: float | timedelta = 5.0,
        idle_ttl: float | timedelta = 86400.0,
    ) -> None:
        if not isinstance(breaker, CircuitBreaker):
            raise ValueError(f"RedisCircuitBreaker shares a CircuitBreaker, got {breaker!r}")
        super().__init__(url, client, prefix, clock, timeout, reconnect_after, idle_ttl)
        self.local = breaker

    def __repr__(self) -> str:
        return f"RedisCircuitBreaker({self.local!r}, url={self._store.where!r})"

    async def state(self, key: str) -> CircuitState:
        """The shared state of ``key``'s circuit (the local one while Redis is down)."""
        store = self._store
        reply = await store.run(
            "breaker_state", f"breaker:{key}", store.now_arg(), repr(self.local.open_for)
        )
        if reply is None:
            return self.local.state(key)
        return CircuitState(reply.decode() if isinstance(reply, bytes) else reply)

    async def acquire(self, key: str) -> None:
        """Let a call through or raise ``CircuitOpenError``, by the shared circuit."""
        local, store = self.local, self._store
        args = (store.now_arg(), repr(local.open_for), local.half_open_probes, store.idle_ttl)
        reply = await store.run("breaker_acquire", f"breaker:{key}", *args)
        if reply is None:
            await local.acquire(key)
            return
        if int(reply[0]) == 1:
            return
        left = reply[1].decode() if isinstance(reply[1], bytes) else str(reply[1])
        raise open_circuit_error(key, float(left) if left else None)

    async def record(self, key: str, *, failed: bool) -> None:
        """Count the outcome in the shared circuit (the local one while Redis is down)."""
        local, store = self.local, self._store
        args = (
            store.now_arg(),
            repr(local.open_for),
            local.half_open_probes,
            repr(local.window),
            BUCKETS,
            repr(local.failure_rate_threshold),
            local.minimum_calls,
            1 if failed else 0,
            store.idle_ttl,
        )
        if await store.run("breaker_record", f"breaker:{key}", *args) is None:
            await local.record(key, failed=failed)
