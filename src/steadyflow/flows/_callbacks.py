"""Running user callbacks: sync or async, one or a list, first non-None wins."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..plugins import hook_error

if TYPE_CHECKING:
    from ..context import InvocationContext

__all__ = ["Callbacks", "chained", "normalize_callbacks", "run_callbacks"]

T = TypeVar("T")

Callbacks = Sequence[Callable[..., Any]]


def normalize_callbacks(
    value: Callable[..., Any] | Sequence[Callable[..., Any]] | None, name: str
) -> tuple[Callable[..., Any], ...]:
    """One callable, a list of them, or None, as a tuple; reject anything else."""
    if value is None:
        return ()
    items = (value,) if callable(value) else tuple(value)
    for item in items:
        if not callable(item):
            raise ValueError(f"{name} must be a callable or a list of callables, got {item!r}")
    return items


def chained(ctx: InvocationContext, hook: str, own: Callbacks) -> Callbacks:
    """The runner's plugins' ``hook`` overrides, then the agent's own callbacks."""
    # The manager's attribute (what ``hooks(hook)`` returns) without the call:
    # this runs for every hook of every model call and tool call.
    plugin_hooks: tuple[Callable[..., Any], ...] = getattr(ctx.plugins, hook)
    return (*plugin_hooks, *own) if plugin_hooks else own


def _is_async(callback: Callable[..., Any]) -> bool:
    """Whether calling ``callback`` returns a coroutine (``async def``, async ``__call__``)."""
    return inspect.iscoroutinefunction(callback) or inspect.iscoroutinefunction(
        getattr(callback, "__call__", None)  # noqa: B004 - callable objects with async __call__
    )


async def run_callbacks(callbacks: Callbacks, **kwargs: Any) -> Any:
    """Call each callback with ``kwargs`` in order; return the first non-None result.

    Async callbacks are awaited; a plain function runs in a worker thread
    (the context variables copied), as a synchronous tool does, so one that
    blocks does not stall the event loop. Exceptions propagate: a failing
    callback is a bug in user code, not something to hide. One raised by a
    plugin's hook propagates as a ``PluginError`` naming the plugin and the hook.
    """
    for callback in callbacks:
        try:
            if _is_async(callback):
                result = await callback(**kwargs)
            else:
                result = await asyncio.to_thread(callback, **kwargs)
                if inspect.isawaitable(result):
                    result = await result
        except Exception as error:
            failure = hook_error(callback, error)
            if failure is error:
                raise
            raise failure from error
        if result is not None:
            return result
    return None
