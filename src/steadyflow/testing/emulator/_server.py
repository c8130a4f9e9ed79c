"""``ProviderEmulator``: Gemini, OpenAI and Anthropic on loopback, with faults.

One HTTP server on 127.0.0.1 answers every wire format (Gemini, OpenAI Chat
Completions and Responses, Anthropic), at the providers' own addresses and
at the clouds' (Azure OpenAI, Vertex AI, Amazon Bedrock), from a script or a rule-based
responder, injects the faults it is given, and counts every request per
provider endpoint, so a test can assert exactly how many requests the
official SDK sent. Run it inside the test's event loop
(``async with ProviderEmulator(...) as emu``) or in a background thread
(``with emu.running_in_thread()``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import Counter, deque
from collections.abc import Generator, Iterable, Sequence

from ..._json import is_object
from ._anthropic import AnthropicDialect
from ._clouds import AzureOpenAIDialect, VertexGeminiDialect
from ._clouds_anthropic import BedrockAnthropicDialect, VertexAnthropicDialect
from ._dialect import Dialect, WireError
from ._faults import Fault, FaultPlan
from ._gemini import GeminiDialect
from ._http import HttpRequest, HttpResponder, serve_connection
from ._model import EmulatedRequest, Reply, Responder, ScriptItem, as_reply
from ._openai import OpenAIDialect
from ._respond import respond, respond_with_fault, send_error
from ._responder import OrderSupportResponder
from ._responses import ResponsesDialect
from ._thread import run_in_thread

__all__ = ["ProviderEmulator"]

logger = logging.getLogger("steadyflow.testing.emulator")

_JSON = {"content-type": "application/json"}


class ProviderEmulator:
    """Speaks the providers' wire formats on loopback; see the module docstring.

    Args:
        script: answers, one per successful request, in order (text, a
            ``ToolCall``, a list of calls, or a ``Reply``). When it runs out,
            the responder answers; with no responder, requests get HTTP 400.
        responder: computes an answer from the request; defaults to
            ``OrderSupportResponder`` when no script is given.
        faults: faults to inject: ``Fault`` values or their text form, as
            ``--emulator-fault`` takes it (``"429@1,retry_after=1"``); a bad
            one is a ``ConfigurationError`` here. A faulted request never
            uses up a script answer, so a retry gets the answer it missed.
        seed: seed of the probabilistic faults.
        api_key: when set, requests must carry it (else HTTP 401).
        chunk_delay: seconds between streamed events (for demos).
        host: interface to bind. port: 0 picks a free port.
    """

    def __init__(
        self,
        script: Iterable[ScriptItem] | None = None,
        *,
        responder: Responder | None = None,
        faults: Sequence[Fault | str] = (),
        seed: int | None = 0,
        api_key: str | None = None,
        chunk_delay: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self._chunk_delay = chunk_delay
        self._host, self._port = host, port
        # A cloud's dialect comes before its provider's: its route is the narrower.
        self._dialects: list[Dialect] = [
            AzureOpenAIDialect(),
            VertexGeminiDialect(),
            VertexAnthropicDialect(),
            BedrockAnthropicDialect(),
            OpenAIDialect(),
            ResponsesDialect(),
            AnthropicDialect(),
            GeminiDialect(),
        ]
        self._counts: Counter[str] = Counter()
        self.requests: list[EmulatedRequest] = []
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._busy: set[asyncio.Task[None]] = set()
        self._script: deque[Reply] = deque()
        self._responder: Responder | None = None
        self.faults = FaultPlan()
        self._api_key: str | None = None
        self.reset(script, responder=responder, faults=faults, seed=seed, api_key=api_key)

    # -- addresses -------------------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port (after start)."""
        if self._server is None:
            raise RuntimeError("the emulator is not running; use 'async with' or start()")
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT``: the Anthropic and Gemini base URL."""
        return f"http://{self._host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """The OpenAI SDK's base URL (with ``/v1``)."""
        return f"{self.base_url}/v1"

    def env(self) -> dict[str, str]:
        """Environment variables pointing every adapter and SDK at this emulator.

        The keys are the one the emulator requires, else a placeholder (the
        adapters insist on a key; the emulator accepts any when none is set).
        """
        key = self._api_key or "emulator-key"
        return {
            "OPENAI_BASE_URL": self.openai_base_url,
            "OPENAI_API_KEY": key,
            "ANTHROPIC_BASE_URL": self.base_url,
            "ANTHROPIC_API_KEY": key,
            "GOOGLE_GEMINI_BASE_URL": self.base_url,
            "GEMINI_BASE_URL": self.base_url,
            "GOOGLE_API_KEY": key,
            "AZURE_OPENAI_ENDPOINT": self.base_url,
            "AZURE_OPENAI_API_KEY": key,
            "GOOGLE_VERTEX_BASE_URL": self.base_url,
            "ANTHROPIC_VERTEX_BASE_URL": f"{self.base_url}/v1",
            "ANTHROPIC_BEDROCK_BASE_URL": self.base_url,
        }

    # -- what the tests look at --------------------------------------------------

    def attempts(self, provider: str | None = None) -> int:
        """Requests that arrived at ``provider``'s endpoint (all endpoints when None)."""
        if provider is None:
            return sum(self._counts.values())
        return self._counts[provider]

    def add_fault(self, fault: Fault | str) -> None:
        """Inject ``fault`` (or its text form) from now on, after the existing faults."""
        self.faults.add(fault)

    def add_script(self, *items: ScriptItem) -> None:
        """Append answers to the script."""
        self._script.extend(as_reply(item) for item in items)

    def reset(
        self,
        script: Iterable[ScriptItem] | None = None,
        *,
        responder: Responder | None = None,
        faults: Sequence[Fault | str] = (),
        seed: int | None = 0,
        api_key: str | None = None,
    ) -> None:
        """Start over without restarting: new script, responder, faults and key; counts at zero.

        Requests still being answered (a stalled ``delay`` fault) are cut off;
        idle keep-alive connections stay open.
        """
        self._script = deque(as_reply(item) for item in script or ())
        self._responder = (
            responder if responder is not None or script is not None else (OrderSupportResponder())
        )
        self.faults = FaultPlan(faults, seed=seed)
        self._api_key = api_key
        self._counts.clear()
        self.requests.clear()
        for task in list(self._busy):
            task.cancel()

    @property
    def script_remaining(self) -> int:
        """Scripted answers not yet used."""
        return len(self._script)

    # -- lifecycle -----------------------------------------------------------------

    async def start(self) -> ProviderEmulator:
        """Bind and start serving."""
        self._server = await asyncio.start_server(self._on_connection, self._host, self._port)
        logger.info("provider emulator listening on %s", self.base_url)
        return self

    async def close(self) -> None:
        """Stop serving and drop every open connection."""
        if self._server is None:
            return
        self._server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        await self._server.wait_closed()
        self._server = None

    async def __aenter__(self) -> ProviderEmulator:
        return await self.start()

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    @contextlib.contextmanager
    def running_in_thread(self) -> Generator[ProviderEmulator, None, None]:
        """Serve from a background thread with its own event loop (for sync code)."""
        with run_in_thread(self.start, self.close):
            yield self

    # -- serving ---------------------------------------------------------------------

    async def _on_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            await serve_connection(reader, writer, self._handle)
        except asyncio.CancelledError:
            writer.transport.abort()
        finally:
            self._connections.discard(task)

    async def _handle(self, http: HttpRequest, out: HttpResponder) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._busy.add(task)
        try:
            await self._route(http, out)
        finally:
            self._busy.discard(task)

    async def _route(self, http: HttpRequest, out: HttpResponder) -> None:
        found = next(
            ((d, r) for d in self._dialects if (r := d.route(http.method, http.path))), None
        )
        if found is None:
            body = {"error": {"message": f"no emulated endpoint for {http.method} {http.path}"}}
            await out.send(404, json.dumps(body).encode(), _JSON)
            return
        dialect, route = found
        self._counts[route.provider] += 1
        request = EmulatedRequest(
            provider=route.provider,
            number=self._counts[route.provider],
            model=route.model or "",
            stream=bool(route.stream),
            headers=dict(http.headers),
            path=http.path,
            query=http.query,
        )
        self.requests.append(request)
        try:
            body = json.loads(http.body or b"{}")
            if not is_object(body):
                raise WireError("the request body must be a JSON object")
            request.body = body
            dialect.parse(body, request)
        except WireError as exc:
            await out.send(400, json.dumps(dialect.wire_error_body(exc)).encode(), _JSON)
            return
        except ValueError as exc:
            await send_error(out, dialect, 400, str(exc))
            return
        if route.stream is not None:
            request.stream = route.stream
        if self._api_key is not None and not self._authorized(http):
            await send_error(out, dialect, 401, "invalid x-api-key / Authorization")
            return
        request.fault = self.faults.pick(request)
        logger.debug(
            "emulator: %s #%d %s%s",
            request.provider,
            request.number,
            "stream" if request.stream else "call",
            f" fault={request.fault.kind}" if request.fault else "",
        )
        fault = request.fault
        if fault is not None and fault.kind in ("status", "reset"):
            await respond_with_fault(dialect, fault, out)
            return
        if fault is not None and fault.kind == "delay":
            await asyncio.sleep(fault.seconds)
        reply = self._next_reply(request, consume=fault is None)
        if reply is None:
            message = (
                f"steadyflow emulator: the script has no answer left for request {request.number}"
            )
            await send_error(out, dialect, 400, message)
            return
        await respond(dialect, request, reply, out, self._chunk_delay)

    def _authorized(self, http: HttpRequest) -> bool:
        key = self._api_key
        headers = http.headers
        return key in (
            headers.get("x-api-key"),
            headers.get("api-key"),
            headers.get("x-goog-api-key"),
            headers.get("authorization", "").removeprefix("Bearer ").strip(),
            next(iter(http.query.get("key", [])), None),
        )

    def _next_reply(self, request: EmulatedRequest, consume: bool) -> Reply | None:
        if self._script:
            return self._script.popleft() if consume else self._script[0]
        if self._responder is not None:
            return as_reply(self._responder(request))
        return None
