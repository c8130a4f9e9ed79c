"""``SingleFlow``: the flow of an agent that never hands over to another."""

from __future__ import annotations

from .base_flow import BaseLlmFlow
from .processors.base import RequestProcessor
from .processors.basic import BasicProcessor
from .processors.contents import ContentsProcessor
from .processors.identity import IdentityProcessor
from .processors.instructions import InstructionsProcessor
from .processors.output_schema import OutputSchemaProcessor
from .processors.tools import ToolsProcessor

__all__ = ["SingleFlow", "default_request_processors"]


def default_request_processors() -> list[RequestProcessor]:
    """SingleFlow's request processors, in order.

    Basic, output schema, instructions, identity, contents, tools.
    """
    return [
        BasicProcessor(),
        OutputSchemaProcessor(),
        InstructionsProcessor(),
        IdentityProcessor(),
        ContentsProcessor(),
        ToolsProcessor(),
    ]


class SingleFlow(BaseLlmFlow):
    """Model calls and tool calls, no transfers."""

    def __init__(self) -> None:
        super().__init__(default_request_processors())
