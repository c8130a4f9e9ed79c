"""The provider emulator: Gemini, OpenAI and Anthropic on loopback, with faults.

Test an agent's failure handling against the providers' real wire formats,
through their official SDKs, without a network or an API key::

    async with ProviderEmulator(faults=[Fault.http(429, retry_after=2, on=1)]) as emu:
        llm = OpenAI("gpt-4o-mini", api_key="test", base_url=emu.openai_base_url)
        ...
        assert emu.attempts("openai") == 2

``python -m steadyflow.testing.emulator`` serves it from the command line.
"""

from ._cli import main
from ._faults import Fault, FaultKind, FaultPlan, parse_fault
from ._model import (
    EmulatedRequest,
    Reply,
    Responder,
    ScriptItem,
    ToolCall,
    ToolResult,
    ToolSpec,
    Turn,
    Usage,
)
from ._responder import OrderSupportResponder
from ._server import ProviderEmulator

__all__ = [
    "EmulatedRequest",
    "Fault",
    "FaultKind",
    "FaultPlan",
    "OrderSupportResponder",
    "ProviderEmulator",
    "Reply",
    "Responder",
    "ScriptItem",
    "ToolCall",
    "ToolResult",
    "ToolSpec",
    "Turn",
    "Usage",
    "main",
    "parse_fault",
]
