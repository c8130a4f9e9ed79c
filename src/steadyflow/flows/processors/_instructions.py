"""Instructions request processor: the agent's instruction with state filled in.

``{key}`` is replaced by ``state[key]`` (a missing key is an error naming
it), ``{key?}`` by the value or nothing; whitespace inside the braces is
allowed (``{ key }``, ``{key? }``). Keys may carry the ``app:``, ``user:``
or ``temp:`` prefix. Braces around anything that is not such a name are left
as written, so JSON examples in instructions survive. As in ADK, a run of
braces around a name is one placeholder and every brace of it is replaced:
``{{key}}`` and ``{{key  }`` both render as the bare value (doubled braces
are not an escape).

An instruction may also be a function of a ``ReadonlyContext`` (sync or
async) returning the text; it builds its own text, so nothing is filled in.
A root agent's ``global_instruction`` (a template or such a function) goes
first in every agent's instruction across its tree.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...context import InstructionProvider, InvocationContext, ReadonlyContext
from ...errors import MissingStateKeyError
from ...models.llm_request import LlmRequest
from ._base import RequestProcessor

if TYPE_CHECKING:
    from .._agent import FlowAgent

__all__ = ["InstructionsProcessor", "fill_template", "render_instruction"]

_PLACEHOLDER = re.compile(r"\{+\s*((?:app:|user:|temp:)?[A-Za-z_][A-Za-z0-9_]*)\s*(\?)?\s*\}+")


def fill_template(template: str, state: Mapping[str, Any], agent_name: str) -> str:
    """Replace ``{key}``/``{key?}`` placeholders with values from ``state``."""
    if "{" not in template:
        return template

    def replace(match: re.Match[str]) -> str:
        key, optional = match.group(1), match.group(2)
        if key in state:
            value = state[key]
            return "" if value is None else str(value)
        if optional:
            return ""
        raise MissingStateKeyError(key, agent_name)

    return _PLACEHOLDER.sub(replace, template)


async def render_instruction(
    instruction: str | InstructionProvider, ctx: InvocationContext, agent_name: str
) -> str:
    """The text of one instruction: a filled-in template, or what the function returned."""
    if callable(instruction):
        produced = instruction(ReadonlyContext(ctx))
        text = await produced if inspect.isawaitable(produced) else produced
        return str(text)
    return fill_template(instruction, ctx.session.state, agent_name)


class InstructionsProcessor(RequestProcessor):
    """Appends the root's global instruction and the agent's own instruction."""

    async def process(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest:
        """Add the filled-in instructions to the system instruction."""
        built = InstructionsProcessor.apply(self, agent, ctx, request)
        if built is not None:
            return built
        texts: list[str] = []  # an instruction is a function: rendered one by one
        for instruction in (agent.global_instruction_of_tree(), agent.instruction):
            if instruction:
                texts.append(await render_instruction(instruction, ctx, agent.name))
        if texts:
            request.append_instructions(texts)
        return request

    def apply(
        self, agent: FlowAgent, ctx: InvocationContext, request: LlmRequest
    ) -> LlmRequest | None:
        """``process``'s work for templates; None when an instruction is a function."""
        own, shared = agent.instruction, agent.global_instruction_of_tree()
        if callable(own) or callable(shared):
            return None
        texts: list[str] = []
        for text in (shared, own):  # a loop: a comprehension is one more frame per step
            if text:  # most instructions have no placeholder: no call for them
                texts.append(
                    fill_template(text, ctx.session.state, agent.name) if "{" in text else text
                )
        if texts:
            request.append_instructions(texts)
        return request
