"""Request and response processors; a flow's lists of them are user-editable."""

from .agent_transfer import AgentTransferProcessor
from .base import RequestProcessor, ResponseProcessor
from .basic import BasicProcessor
from .contents import ContentsProcessor
from .identity import IdentityProcessor
from .instructions import InstructionsProcessor
from .output_schema import OutputSchemaProcessor
from .tools import ToolsProcessor

__all__ = [
    "AgentTransferProcessor",
    "BasicProcessor",
    "ContentsProcessor",
    "IdentityProcessor",
    "InstructionsProcessor",
    "OutputSchemaProcessor",
    "RequestProcessor",
    "ResponseProcessor",
    "ToolsProcessor",
]
