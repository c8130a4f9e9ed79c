"""``FlowAgent``: what the flow reads from the agent whose turn it runs.

The flow is handed the agent explicitly (``flow.run_async(agent, ctx)``) and
types it by this protocol, not by ``LlmAgent``: imports then point one way,
``agents/`` -> ``flows/``, and any object with these members can be run by a
flow. ``LlmAgent`` is the one the library ships.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pydantic import BaseModel

from ..context import AgentNode, InstructionProvider
from ..history.policy import HistoryPolicy
from ..models.base import BaseLlm
from ..tools.base_tool import BaseTool
from ..tools.base_toolset import BaseToolset
from ..types import GenerateContentConfig

if TYPE_CHECKING:
    from ._base_flow import BaseLlmFlow

__all__ = ["FlowAgent"]

Callbacks = Sequence[Callable[..., Any]]


class FlowAgent(AgentNode, Protocol):
    """An agent as the flow sees it: model, tools, callbacks, instructions, contents.

    Callbacks are normalized tuples (see ``callbacks.normalize_callbacks``).
    """

    @property
    def canonical_model(self) -> BaseLlm:
        """The model instance the agent's calls go to."""
        ...

    @property
    def flow(self) -> BaseLlmFlow:
        """The flow running the agent's turns (its ``tools_for`` names the step's tools)."""
        ...

    @property
    def tools_by_name(self) -> Mapping[str, BaseTool]:
        """The agent's own tools."""
        ...

    @property
    def toolsets(self) -> Sequence[BaseToolset]:
        """The agent's toolsets (asked for their tools at each step)."""
        ...

    @property
    def instruction(self) -> str | InstructionProvider:
        """The agent's instruction (a template or a provider)."""
        ...

    def global_instruction_of_tree(self) -> str | InstructionProvider:
        """The root agent's global instruction ("" for none)."""
        ...

    @property
    def include_contents(self) -> Literal["default", "none"]:
        """Whether the session's history is replayed."""
        ...

    @property
    def history(self) -> HistoryPolicy | None:
        """How much history each call replays."""
        ...

    @property
    def output_schema(self) -> type[BaseModel] | None:
        """The model the final answer must be JSON of."""
        ...

    @property
    def output_json_schema(self) -> dict[str, Any] | None:
        """``output_schema``'s JSON schema."""
        ...

    @property
    def output_key(self) -> str | None:
        """The state key the final answer is saved under."""
        ...

    @property
    def generate_content_config(self) -> GenerateContentConfig | None:
        """Temperature, max tokens, ..."""
        ...

    @property
    def before_model_callbacks(self) -> Callbacks:
        """``(callback_context, llm_request)``."""
        ...

    @property
    def after_model_callbacks(self) -> Callbacks:
        """``(callback_context, llm_response)``."""
        ...

    @property
    def on_model_error_callbacks(self) -> Callbacks:
        """``(callback_context, llm_request, error)``."""
        ...

    @property
    def before_tool_callbacks(self) -> Callbacks:
        """``(tool, args, tool_context)``."""
        ...

    @property
    def after_tool_callbacks(self) -> Callbacks:
        """``(tool, args, tool_context, tool_response)``."""
        ...

    @property
    def on_tool_error_callbacks(self) -> Callbacks:
        """``(tool, args, tool_context, error)``."""
        ...
