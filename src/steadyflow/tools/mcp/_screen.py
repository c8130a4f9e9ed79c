"""Screening a server's tool listings one tool at a time.

The SDK validates a ``tools/list`` page as a whole: one tool whose
``inputSchema`` it refuses (``{"type": 12}``) makes the page, and so every
tool of the server, a pydantic ``ValidationError``. ``ScreenedReads`` sits
between the transport and the session; it checks each listed tool alone
against the negotiated protocol version's schema, with the SDK's own
validator, and leaves out the ones that fail, with a warning naming the tool
and the reason. The other tools are kept.

``usable_schema`` goes one step further for the tools the SDK took: an
``inputSchema`` that is not valid JSON Schema deeper down
(``{"properties": {"order": {"type": 12}}}``) would fail every call to the
tool, so the tool is left out the same way.
"""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Any

import jsonschema
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCResponse, Tool
from mcp_types.methods import validate_server_result
from mcp_types.version import LATEST_HANDSHAKE_VERSION
from pydantic import ValidationError

from ..._json import is_array, is_object

__all__ = ["ScreenedReads", "usable_schema"]

logger = logging.getLogger("steadyflow.tools.mcp")


class ScreenedReads:
    """The transport's read stream, with bad tools taken out of ``tools/list`` results.

    A result is taken for a listing by its shape (a ``tools`` list: no other
    result has one); the protocol version comes from the ``initialize``
    result that passes by first.
    """

    def __init__(self, inner: Any, server: str) -> None:
        self._inner = inner
        self._server = server
        self._version = LATEST_HANDSHAKE_VERSION

    @property
    def last_context(self) -> Any:
        """The sender's context, as the transport's stream gives it (the session asks)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        """The next message, screened."""
        return self._screened(await self._inner.receive())

    async def aclose(self) -> None:
        """Close the transport's stream."""
        await self._inner.aclose()

    def __aiter__(self) -> ScreenedReads:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        return self._screened(await self._inner.__anext__())

    async def __aenter__(self) -> ScreenedReads:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        suppressed: bool | None = await self._inner.__aexit__(exc_type, exc_val, exc_tb)
        return suppressed

    def _screened(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        if isinstance(item, Exception) or not isinstance(item.message, JSONRPCResponse):
            return item
        result = item.message.result
        if isinstance(result.get("protocolVersion"), str) and "serverInfo" in result:
            self._version = result["protocolVersion"]
        tools = result.get("tools")
        # A page wrong apart from its tools is left whole: the SDK reports it.
        if is_array(tools) and self._problem(result, []) is None:
            item.message.result = {**result, "tools": self._fitting(result, tools)}
        return item

    def _fitting(self, page: dict[str, Any], tools: list[Any]) -> list[Any]:
        kept: list[Any] = []
        for tool in tools:
            problem = self._problem(page, [tool])
            if problem is None:
                kept.append(tool)
                continue
            logger.warning(
                "MCP server %r: tool %r left out, its listing does not fit the MCP schema: %s",
                self._server,
                tool.get("name") if is_object(tool) else tool,
                _first_problem(problem),
            )
        return kept

    def _problem(self, page: dict[str, Any], tools: list[Any]) -> ValidationError | None:
        """Why the SDK would refuse ``page`` holding just ``tools``; None if it would not."""
        try:
            validate_server_result("tools/list", self._version, {**page, "tools": tools})
        except ValidationError as error:
            return error
        except (KeyError, ValueError):  # a version the SDK has no schema for: as the SDK does
            pass
        return None


def usable_schema(server: str, tool: Tool) -> bool:
    """Whether ``tool``'s ``inputSchema`` is valid JSON Schema (2020-12); a warning if not."""
    try:
        jsonschema.Draft202012Validator.check_schema(tool.input_schema)
    except jsonschema.SchemaError as error:
        where = "/".join(str(part) for part in error.path) or "(schema)"
        logger.warning(
            "MCP server %r: tool %r left out, its inputSchema is not valid JSON Schema: %s: %s",
            server,
            tool.name,
            where,
            error.message,
        )
        return False
    return True


def _first_problem(error: ValidationError) -> str:
    """``inputSchema.type: Input should be 'object'``: where (inside the tool) and what."""
    problem = error.errors()[0]
    where = [str(part) for part in problem["loc"][2:]]  # past ("tools", 0)
    return f"{'.'.join(where) or '(tool)'}: {problem['msg']}"
