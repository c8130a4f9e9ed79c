import asyncio

import httpx
import pytest

from tests.support.hostile import HostileServer, Pause, Reply, sse


async def test_replies_follow_the_script_and_the_last_repeats():
    async with HostileServer() as server:
        server.script(Reply(status=503, body=[b'{"e": 1}'], framing="length"), Reply(body=[b"ok"]))
        async with httpx.AsyncClient(base_url=server.url) as client:
            codes = [(await client.post("/x", json={"n": i})).status_code for i in range(3)]
        assert codes == [503, 200, 200]
        assert [r.body for r in server.requests] == [b'{"n":0}', b'{"n":1}', b'{"n":2}']
        assert server.requests[0].headers["content-type"] == "application/json"


async def test_a_chunked_body_cut_before_its_terminator_is_an_error_for_the_client():
    async with HostileServer() as server:
        server.script(Reply(body=sse('{"a": 1}'), ending="abort"))
        async with httpx.AsyncClient(base_url=server.url) as client:
            with pytest.raises(httpx.RemoteProtocolError):
                await client.get("/")


async def test_a_close_delimited_body_ends_cleanly_when_the_server_closes():
    async with HostileServer() as server:
        server.script(Reply(body=[b"data: {", b"partial"], framing="close"))
        async with httpx.AsyncClient(base_url=server.url) as client:
            assert (await client.get("/")).content == b"data: {partial"


async def test_a_client_closing_a_held_stream_is_noticed():
    async with HostileServer() as server:
        server.script(Reply(body=sse("first"), ending="hang"))
        async with httpx.AsyncClient(base_url=server.url) as client:
            async with client.stream("GET", "/") as response:
                async for _ in response.aiter_bytes():
                    break
        await asyncio.wait_for(server.closed_by_client.wait(), 1)
        assert len(server.closed_at) == 1


async def test_a_pause_is_cut_short_when_the_client_leaves():
    async with HostileServer() as server:
        server.script(Reply(body=[b"x", Pause(30), b"y"]))
        async with httpx.AsyncClient(base_url=server.url) as client:
            async with client.stream("GET", "/") as response:
                async for _ in response.aiter_bytes():
                    break
        await asyncio.wait_for(server.closed_by_client.wait(), 1)
