"""``SingleFlow``: the flow of an agent that never hands over to another."""

from __future__ import annotations

from ._base_flow import BaseLlmFlow
from .processors._base import RequestProcessor
from .processors._basic import BasicProcessor
from .processors._contents import ContentsProcessor
from .processors._identity import IdentityProcessor
from .processors._instructions import InstructionsProcessor
from .processors._output_schema import OutputSchemaProcessor
from .processors._tools import ToolsProcessor

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
