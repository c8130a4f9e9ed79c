"""The compaction call: one model call that summarizes history falling outside the cap.

It goes through the same retry loop as the agent's own calls
(``generate_with_retries`` with the invocation's ``retry_config``), and every
attempt is charged to the invocation's ``max_llm_calls`` budget before it
starts. The history to summarize is sent as a plain-text transcript in one
user message rather than as the original messages, so function calls and
responses need no tool declarations and any provider accepts the request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ...context import InvocationContext
from ...errors import ModelResponseError
from ...history.policy import Compaction
from ...models.base import BaseLlm
from ...models.llm_request import LlmRequest
from ...models.llm_response import LlmResponse
from ...models.registry import LlmRegistry
from ...retry._executor import generate_with_retries
from ...types import Content, GenerateContentConfig, Part
from ...usage._call import MeteredCall

__all__ = ["render_transcript", "summarize"]


def _render_part(speaker: str, part: Part) -> str | None:
    if part.text and not part.thought:
        return f"[{speaker}] {part.text}"
    if part.function_call is not None:
        args = json.dumps(part.function_call.args, default=str)
        return f"[{speaker}] called tool `{part.function_call.name}` with {args}"
    if part.function_response is not None:
        body = json.dumps(part.function_response.response, default=str)
        return f"[tool `{part.function_response.name}` returned] {body}"
    if part.inline_data is not None:
        return f"[{speaker}] sent {part.inline_data.mime_type} data"
    return None


def render_transcript(
    previous_summary: Content | None, contents: Sequence[Content], omitted: int = 0
) -> str:
    """The text the summary model reads: the earlier summary, then one line per part."""
    lines: list[str] = []
    if previous_summary is not None:
        lines += ["Earlier summary:", previous_summary.text, "", "Conversation since then:"]
    if omitted:
        lines.append(f"({omitted} earlier messages omitted)")
    for content in contents:
        speaker = "agent" if content.role == "model" else "user"
        lines += [line for part in content.parts if (line := _render_part(speaker, part))]
    return "\n".join(lines)


def _model(compaction: Compaction, agent_model: BaseLlm) -> BaseLlm:
    if compaction.model is None:
        return agent_model
    if isinstance(compaction.model, BaseLlm):
        return compaction.model
    return LlmRegistry.resolve(compaction.model)


async def summarize(
    ctx: InvocationContext,
    *,
    compaction: Compaction,
    agent_model: BaseLlm,
    transcript: str,
    max_output_tokens: int | None,
) -> tuple[LlmResponse, str]:
    """Ask the compaction model for a summary of ``transcript``.

    Returns:
        The complete response (its usage goes on the summary event) and the
        name of the model that wrote it.

    Raises:
        InvocationLimitError: the invocation's call budget, or a usage or
            spend limit, is used up.
        ModelResponseError: the model answered without text.
        Exception: the provider's last error once the retry policy gave up.
    """
    llm = _model(compaction, agent_model)
    config = compaction.generate_content_config or GenerateContentConfig()
    updates: dict[str, object] = {"system_instruction": compaction.instruction, "tools": []}
    if config.max_output_tokens is None and max_output_tokens is not None:
        updates["max_output_tokens"] = max_output_tokens
    request = LlmRequest(
        model=llm.model,
        contents=[Content.from_text(transcript)],
        config=config.model_copy(update=updates),
    )
    final: LlmResponse | None = None
    # Summaries cost tokens too: metered against the usage and spend limits.
    metered = MeteredCall(ctx.usage, request, None, ctx.increment_llm_call_count, ctx.agent.name)
    async for response in generate_with_retries(
        llm,
        request,
        stream=False,
        config=ctx.run_config.retry_config,
        before_attempt=metered.before_attempt,
        agent_name=ctx.agent.name,
        invocation_id=ctx.invocation_id,
        observer=metered,
    ):
        if not response.partial:
            final = response
    if final is None or final.error_code is not None or not final.text.strip():
        detail = "" if final is None or final.error_code is None else f" ({final.error_code})"
        raise ModelResponseError(
            f"compaction model {llm.model!r} returned no summary text{detail}",
            provider=llm.provider,
        )
    return final, llm.model
