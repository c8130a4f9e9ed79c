"""Instructions request processor: the agent's instruction with state filled in.

``{key}`` is replaced by ``state[key]`` (a missing key is an error naming
it), ``{key?}`` by the value or nothing. Keys may carry the ``app:``,
``user:`` or ``temp:`` prefix. Braces around anything that is not such a
name are left as written, so JSON examples in instructions survive.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from ...context import InvocationContext
from ...errors import MissingStateKeyError
from ...models.llm_request import LlmRequest
from .base import RequestProcessor

if TYPE_CHECKING:
    from ...agents.llm_agent import LlmAgent

__all__ = ["InstructionsProcessor", "fill_template"]

_PLACEHOLDER = re.compile(r"\{((?:app:|user:|temp:)?[A-Za-z_][A-Za-z0-9_]*)(\?)?\}")


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


class InstructionsProcessor(RequestProcessor):
    """Appends the agent's instruction (a string or a function of the context)."""

    async def process(self, ctx: InvocationContext, request: LlmRequest) -> LlmRequest:
        """Add the filled-in instruction to the system instruction."""
        agent = cast("LlmAgent", ctx.agent)
        instruction = agent.instruction
        if callable(instruction):
            produced = instruction(ctx)
            text = await produced if inspect.isawaitable(produced) else produced
            # A function builds its own text: no placeholder filling.
            request.append_instructions([text])
        elif instruction:
            request.append_instructions([fill_template(instruction, ctx.session.state, agent.name)])
        return request
