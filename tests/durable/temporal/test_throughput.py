"""Throughput: 200 invocations started at once, run by 2 workers, all complete.

The bench's fleet run (``bench/temporal_bench.py``), as a test: every
invocation stores its four events (user, call, response, answer). Nothing
here is timed; ``python -m bench.temporal_bench`` reports the figures.
"""

from __future__ import annotations

import pytest
from bench.temporal_bench import fleet
from temporalio.client import Client

from tests.support.temporal import TemporalServer

pytestmark = [pytest.mark.temporal, pytest.mark.slow]


async def test_two_hundred_concurrent_invocations_through_two_workers_complete(
    temporal_server: TemporalServer, temporal_client: Client
) -> None:
    result = await fleet(temporal_client, temporal_server.address, 200, 2)
    assert (result["invocations"], result["completed"]) == (200, 200)
