"""A rule-based model good enough for the order-support example.

No script needed: asked about an order number, it calls the declared order
tool (one call per order number, so two numbers make parallel calls); given
the tool results, it answers in plain text built from them. The rules are
deterministic, so a demo and a test see the same conversation every time.
"""

from __future__ import annotations

import re
from typing import Any

from ..._json import is_object
from ._model import EmulatedRequest, Reply, ScriptItem, ToolCall, ToolResult, ToolSpec

__all__ = ["OrderSupportResponder"]

_ORDER_NUMBER = re.compile(r"#?\b(\d{3,})\b")
_INTENTS = (("cancel", ("cancel",)), ("refund", ("refund", "return")))
_PREFERRED_TOOLS = ("lookup", "status", "track", "get", "find", "order")


def _order_numbers(text: str) -> list[str]:
    seen: list[str] = []
    for number in _ORDER_NUMBER.findall(text):
        if number not in seen:
            seen.append(number)
    return seen


def _pick_tool(tools: list[ToolSpec], text: str) -> ToolSpec | None:
    lowered = text.lower()
    for intent, words in _INTENTS:
        if any(w in lowered for w in words):
            for tool in tools:
                if intent in tool.name.lower():
                    return tool
    for word in _PREFERRED_TOOLS:
        for tool in tools:
            if word in tool.name.lower():
                return tool
    return None


def _argument(tool: ToolSpec, number: str) -> dict[str, Any]:
    properties: dict[str, Any] = tool.parameters.get("properties") or {}
    if not properties:
        return {"order_id": number}
    required = list(tool.parameters.get("required") or [])
    names = sorted(
        properties, key=lambda n: ("order" not in n and "id" not in n, n not in required)
    )
    name = names[0]
    schema: dict[str, Any] = properties[name] or {}
    kind = schema.get("type")
    return {name: int(number) if kind in ("integer", "number") else number}


def _describe(result: ToolResult) -> str:
    response = result.response
    if is_object(response) and len(response) == 1 and "result" in response:
        response = response["result"]
    if not is_object(response):
        return str(response)
    if "error" in response:
        return f"I could not look that up: {response['error']}"
    order = next((str(v) for k, v in response.items() if "id" in k or k == "order"), None)
    details = [f"{k.replace('_', ' ')}: {v}" for k, v in response.items() if str(v) != order]
    head = f"Order {order}" if order else "Result"
    return f"{head} - " + ", ".join(details) if details else head


class OrderSupportResponder:
    """Answers like a support model with an order-lookup tool.

    Rules, in order: if the newest turn carries tool results, summarize them
    as text; if the user names order numbers and a suitable tool is declared
    (a ``cancel``/``refund`` tool for those intents, else one whose name says
    lookup, status, track, get, find or order), call it once per number;
    otherwise ask for the order number.
    """

    def __call__(self, request: EmulatedRequest) -> ScriptItem:
        """The answer to ``request``."""
        last = request.last
        if last is not None and last.results:
            return Reply(text=" ".join(_describe(r) + "." for r in last.results))
        text = request.last_user_text
        numbers = _order_numbers(text)
        tool = _pick_tool(request.tools, text)
        if numbers and tool is not None:
            return Reply(tool_calls=tuple(ToolCall(tool.name, _argument(tool, n)) for n in numbers))
        if numbers:
            return f"I have no tool to look up order {', '.join(numbers)} right now."
        return "I can help with your orders. Which order number is it about?"
