"""Request and response processors; a flow's lists of them are user-editable.

Import them from this package: each lives in an underscore module that may
change; the names in ``__all__`` are the public ones.
"""

from ._agent_transfer import AgentTransferProcessor
from ._base import RequestProcessor, ResponseProcessor
from ._basic import BasicProcessor
from ._contents import ContentsProcessor
from ._identity import IdentityProcessor
from ._instructions import InstructionsProcessor
from ._output_schema import OutputSchemaProcessor
from ._tools import ToolsProcessor

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
