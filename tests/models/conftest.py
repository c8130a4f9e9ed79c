"""Fixtures for the provider adapter tests: the emulator and adapters pointed at it.

Every adapter test goes official SDK client -> real HTTP -> emulator on
loopback; nothing is mocked. Building an SDK client loads a CA bundle
(~0.1 s), so each test module shares one emulator and one adapter per
configuration on a module-scoped event loop; ``emulate`` resets the
emulator (script, faults, counters) for every test.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Iterator
from typing import Any

import pytest
import pytest_asyncio

from steadyflow.models import BaseLlm
from steadyflow.testing import FakeClock, fake_clock
from steadyflow.testing.emulator import Fault, ProviderEmulator, ScriptItem
from tests.models.providers import ADAPTERS, MODELS, SECRET, Emulate, MakeLlm, base_url
from tests.support.hostile import HostileServer
from tests.support.provider_env import PROVIDER_VARIABLES


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    # Tests never depend on the developer's real keys or endpoints.
    for name in PROVIDER_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def _shared_emulator() -> AsyncIterator[ProviderEmulator]:
    async with ProviderEmulator() as emu:
        yield emu


@pytest_asyncio.fixture(loop_scope="module")
async def emulate(_shared_emulator: ProviderEmulator) -> Emulate:
    """``emulate(script, faults=[...])``: the module's emulator, reset for this test."""

    async def reset(
        script: Iterable[ScriptItem] | None = None, *, faults: Iterable[Fault] = (), **options: Any
    ) -> ProviderEmulator:
        _shared_emulator.reset(script, faults=list(faults), **options)
        return _shared_emulator

    return reset


@pytest_asyncio.fixture(loop_scope="module")
async def emu(emulate: Emulate) -> ProviderEmulator:
    """The module's emulator, reset for this test, answering as ``OrderSupportResponder``."""
    emulator: ProviderEmulator = await emulate()
    return emulator


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def _adapters() -> AsyncIterator[dict[tuple[str, ...], BaseLlm]]:
    made: dict[tuple[str, ...], BaseLlm] = {}
    yield made
    for llm in made.values():
        await llm.aclose()  # type: ignore[attr-defined]


@pytest_asyncio.fixture(loop_scope="module")
async def make_llm(_adapters: dict[tuple[str, ...], BaseLlm]) -> MakeLlm:
    """``make_llm("openai", emu, timeout=1)``: an adapter aimed at ``emu`` (shared per module).

    Adapters given a ``client`` are not shared: the test owns that client.
    """

    def make(provider: str, emu: ProviderEmulator, **options: Any) -> BaseLlm:
        options.setdefault("api_key", SECRET)
        options.setdefault("base_url", base_url(provider, emu))
        if "client" in options:
            return ADAPTERS[provider](MODELS[provider], **options)
        key = (provider, *(f"{k}={v}" for k, v in sorted(options.items())))
        if key not in _adapters:
            _adapters[key] = ADAPTERS[provider](MODELS[provider], **options)
        return _adapters[key]

    return make


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    """The testing clock: retry waits are recorded in ``clock.sleeps``, never slept."""
    with fake_clock() as testing_clock:
        yield testing_clock


@pytest_asyncio.fixture
async def hostile() -> AsyncIterator[HostileServer]:
    """A scripted raw HTTP server (``tests/support/hostile.py``) for this test."""
    async with HostileServer() as server:
        yield server
