"""One adapter across several event loops (``asyncio.run`` per call, as ``Runner.run`` does)."""

from __future__ import annotations

import asyncio
import gc
import warnings

import pytest

from steadyflow.models import BaseLlm, LlmRequest
from steadyflow.testing.emulator import ProviderEmulator
from steadyflow.types import Content
from tests.models.providers import ADAPTERS, MODELS, PROVIDERS, SECRET, base_url


def answer(llm: BaseLlm) -> list[str]:
    async def once() -> list[str]:
        request = LlmRequest(contents=[Content.from_text("hi")])
        return [r.text async for r in llm.generate_content_async(request)]

    return asyncio.run(once())


@pytest.mark.parametrize("provider", PROVIDERS)
def test_adapter_works_on_a_new_loop_and_closes_the_old_loops_pool(provider: str) -> None:
    emu = ProviderEmulator(["first", "second"])
    with emu.running_in_thread():
        llm = ADAPTERS[provider](MODELS[provider], api_key=SECRET, base_url=base_url(provider, emu))
        with warnings.catch_warnings():
            warnings.simplefilter("error", ResourceWarning)
            assert [answer(llm), answer(llm)] == [["first"], ["second"]]
            gc.collect()  # an unclosed pool would warn here, failing the test
        assert emu.attempts(provider) == 2
