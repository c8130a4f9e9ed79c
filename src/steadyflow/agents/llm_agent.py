"""``LlmAgent``: an agent whose turns are model calls and tool calls.

It delegates its turn to a flow: ``SingleFlow`` when it may transfer to
neither parent nor peers and has no sub-agents, ``AutoFlow`` otherwise.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel

from ..context import InstructionProvider, InvocationContext
from ..errors import ConfigurationError
from ..events import Event
from ..flows._auto_flow import AutoFlow
from ..flows._base_flow import BaseLlmFlow
from ..flows._callbacks import normalize_callbacks
from ..flows._live import run_live
from ..flows._single_flow import SingleFlow
from ..history.policy import HistoryPolicy
from ..models.base import BaseLlm
from ..models.registry import LlmRegistry
from ..tools.base_tool import BaseTool
from ..tools.base_toolset import BaseToolset
from ..tools.function_tool import FunctionTool
from ..tools.transfer_to_agent import TRANSFER_TOOL_NAME
from ..types import GenerateContentConfig
from .base_agent import BaseAgent, Callback

__all__ = ["Callback", "InstructionProvider", "LlmAgent"]


def _as_tool(item: Callable[..., Any] | BaseTool) -> BaseTool:
    if isinstance(item, BaseTool):
        return item
    if callable(item):
        return FunctionTool(item)
    raise ValueError(f"tools must be callables or BaseTool instances, got {item!r}")


def _by_name(agent_name: str, tools: list[BaseTool]) -> dict[str, BaseTool]:
    """The agent's tools by name; a duplicate or the reserved transfer name is refused."""
    by_name: dict[str, BaseTool] = {}
    for tool in tools:
        if tool.name == TRANSFER_TOOL_NAME:
            raise ConfigurationError(
                f"agent {agent_name!r}: the tool name {TRANSFER_TOOL_NAME!r} is reserved for "
                "the built-in transfer tool; give your tool another name"
            )
        if tool.name in by_name:
            raise ValueError(f"agent {agent_name!r} has two tools named {tool.name!r}")
        by_name[tool.name] = tool
    return by_name


class LlmAgent(BaseAgent):
    """An agent driven by a model.

    Args:
        name: unique name in the agent tree (a Python identifier).
        model: a model name resolved through ``LlmRegistry`` or a ``BaseLlm``;
            empty means the nearest ancestor's model.
        instruction: system instruction; ``{key}`` / ``{key?}`` are filled
            from state. A function ``(ReadonlyContext) -> str`` (sync or
            async) also works; its text is used as returned.
        global_instruction: on the root agent, an instruction (template or
            function) put first in every agent's instruction in the tree.
        description: what this agent does (other agents read it to transfer).
        tools: callables (wrapped in ``FunctionTool``), ``BaseTool`` objects and
            ``BaseToolset`` objects (asked for their tools at each step).
        sub_agents: agents this one may transfer to.
        disallow_transfer_to_parent: forbid handing back to the parent.
        disallow_transfer_to_peers: forbid handing over to siblings.
        include_contents: ``"default"`` (the session's history) or ``"none"``
            (only the instruction and the current turn).
        history: how much of the session each model call replays (a cap in
            events or tokens, optional compaction, a large-request warning);
            ``None`` replays everything.
        output_schema: a pydantic model the final answer must be JSON of.
        output_key: state key the final answer is stored under.
        generate_content_config: temperature, max tokens, ...
        before_model_callback: ``(callback_context, llm_request)``; a returned
            ``LlmResponse`` answers instead of the model.
        after_model_callback: ``(callback_context, llm_response)``; a returned
            response replaces the model's.
        on_model_error_callback: ``(callback_context, llm_request, error)``;
            a returned response replaces the failed call.
        before_tool_callback: ``(tool, args, tool_context)``; a returned dict
            is used instead of running the tool.
        after_tool_callback: ``(tool, args, tool_context, tool_response)``; a
            returned dict replaces the tool's response.
        on_tool_error_callback: ``(tool, args, tool_context, error)`` when the
            tool raised; a returned dict becomes the tool's response (with
            none, the model reads an error response).
        before_agent_callback: see ``BaseAgent``.
        after_agent_callback: see ``BaseAgent``.

    Each callback argument takes one callable or a list (sync or async); the
    first non-None result wins.
    """

    def __init__(
        self,
        *,
        name: str,
        model: str | BaseLlm = "",
        instruction: str | InstructionProvider = "",
        global_instruction: str | InstructionProvider = "",
        description: str = "",
        tools: Sequence[Callable[..., Any] | BaseTool | BaseToolset] = (),
        sub_agents: Sequence[BaseAgent] = (),
        disallow_transfer_to_parent: bool = False,
        disallow_transfer_to_peers: bool = False,
        include_contents: Literal["default", "none"] = "default",
        history: HistoryPolicy | None = None,
        output_schema: type[BaseModel] | None = None,
        output_key: str | None = None,
        generate_content_config: GenerateContentConfig | None = None,
        before_model_callback: Callback = None,
        after_model_callback: Callback = None,
        on_model_error_callback: Callback = None,
        before_tool_callback: Callback = None,
        after_tool_callback: Callback = None,
        on_tool_error_callback: Callback = None,
        before_agent_callback: Callback = None,
        after_agent_callback: Callback = None,
    ) -> None:
        super().__init__(
            name=name,
            description=description,
            sub_agents=sub_agents,
            before_agent_callback=before_agent_callback,
            after_agent_callback=after_agent_callback,
        )
        if include_contents not in ("default", "none"):
            raise ValueError(
                f"include_contents must be 'default' or 'none', got {include_contents!r}"
            )
        if history is not None and not isinstance(history, HistoryPolicy):
            raise ValueError(f"history must be a HistoryPolicy or None, got {history!r}")
        self.model = model
        self.instruction = instruction
        self.global_instruction = global_instruction
        self.toolsets = [t for t in tools if isinstance(t, BaseToolset)]
        self.tools = [_as_tool(t) for t in tools if not isinstance(t, BaseToolset)]
        self.tools_by_name = _by_name(name, self.tools)
        self.disallow_transfer_to_parent = disallow_transfer_to_parent
        self.disallow_transfer_to_peers = disallow_transfer_to_peers
        self.include_contents: Literal["default", "none"] = include_contents
        self.history = history
        self.output_schema = output_schema
        self.output_key = output_key
        self.generate_content_config = generate_content_config
        self.before_model_callbacks = normalize_callbacks(
            before_model_callback, "before_model_callback"
        )
        self.after_model_callbacks = normalize_callbacks(
            after_model_callback, "after_model_callback"
        )
        self.on_model_error_callbacks = normalize_callbacks(
            on_model_error_callback, "on_model_error_callback"
        )
        self.before_tool_callbacks = normalize_callbacks(
            before_tool_callback, "before_tool_callback"
        )
        self.after_tool_callbacks = normalize_callbacks(after_tool_callback, "after_tool_callback")
        self.on_tool_error_callbacks = normalize_callbacks(
            on_tool_error_callback, "on_tool_error_callback"
        )

    @property
    def model(self) -> str | BaseLlm:
        """The model name or instance given; ``""`` means the nearest ancestor's.

        Assigning it (``agent.model = OpenAI(...)`` or a name) switches the
        agent to that model from its next model call on, as ``use_model`` does.
        """
        return self._model

    @model.setter
    def model(self, model: str | BaseLlm) -> None:
        if not isinstance(model, str | BaseLlm):
            raise ConfigurationError(
                f"agent {self.name!r}: model must be a model name or a BaseLlm, got {model!r}"
            )
        self._model = model
        self._resolved_model: BaseLlm | None = model if isinstance(model, BaseLlm) else None

    def use_model(self, model: str | BaseLlm) -> None:
        """Switch to ``model`` (a name or an instance) from the next model call on.

        The same as assigning ``agent.model``; a name is resolved lazily, as in
        the constructor.
        """
        self.model = model

    @property
    def canonical_model(self) -> BaseLlm:
        """The model instance: given, resolved by name, or inherited."""
        if self._resolved_model is not None:
            return self._resolved_model
        if isinstance(self.model, str) and self.model:
            self._resolved_model = LlmRegistry.resolve(self.model)
            return self._resolved_model
        ancestor = self.parent_agent
        while ancestor is not None:
            if isinstance(ancestor, LlmAgent) and ancestor.model:
                return ancestor.canonical_model
            ancestor = ancestor.parent_agent
        raise ValueError(f"agent {self.name!r} has no model and no ancestor with one")

    def global_instruction_of_tree(self) -> str | InstructionProvider:
        """The root agent's ``global_instruction`` ("" when the root has none)."""
        if self.parent_agent is None:  # the root itself (most agents): no tree walk
            return self.global_instruction
        root = self.root_agent
        return root.global_instruction if isinstance(root, LlmAgent) else ""

    @cached_property
    def output_json_schema(self) -> dict[str, Any] | None:
        """The JSON schema of ``output_schema`` (computed once)."""
        return None if self.output_schema is None else self.output_schema.model_json_schema()

    @cached_property
    def flow(self) -> BaseLlmFlow:
        """The flow running this agent's turns (created on first use)."""
        if (
            self.disallow_transfer_to_parent
            and self.disallow_transfer_to_peers
            and not self.sub_agents
        ):
            return SingleFlow()
        return AutoFlow()

    def can_transfer_to_parent(self) -> bool:
        """True when the parent is an ``LlmAgent`` and ``disallow_transfer_to_parent`` is off."""
        return isinstance(self.parent_agent, LlmAgent) and not self.disallow_transfer_to_parent

    def transfer_targets(self) -> list[BaseAgent]:
        """Sub-agents, plus the parent and peers when allowed.

        Under a workflow agent (sequential, parallel, loop) the order is the
        workflow's: a stage never transfers to its parent or its peers.
        """
        targets: list[BaseAgent] = list(self.sub_agents)
        parent = self.parent_agent
        if parent is None or not isinstance(parent, LlmAgent):
            return targets
        if not self.disallow_transfer_to_parent:
            targets.append(parent)
        if not self.disallow_transfer_to_peers:
            targets.extend(peer for peer in parent.sub_agents if peer is not self)
        return targets

    # An LlmAgent is a FlowAgent (mypy agrees); pyright does not match a
    # ``cached_property`` (``flow``, ``output_json_schema``) to a Protocol's property.
    def _run_async_impl(self, ctx: InvocationContext) -> AsyncIterator[Event]:
        return self.flow.run_async(self, ctx)  # pyright: ignore[reportArgumentType]

    def _run_live_impl(self, ctx: InvocationContext) -> AsyncIterator[Event]:
        return run_live(self.flow, self, ctx)  # pyright: ignore[reportArgumentType]
