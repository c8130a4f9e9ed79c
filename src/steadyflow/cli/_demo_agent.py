"""The order-support agent the demo runs: one tool over a small order table.

The same agent as ``examples/order_support.py``, kept inside the package so
``steadyflow demo`` works from an installed wheel.
"""

from __future__ import annotations

from typing import Any

from ..agents.llm_agent import LlmAgent
from ..models.base import BaseLlm

__all__ = ["ORDERS", "build_demo_agent", "lookup_order"]

ORDERS: dict[str, dict[str, Any]] = {
    "812": {"status": "shipped", "carrier": "DHL", "eta": "2026-12-03"},
    "977": {"status": "processing", "carrier": None, "eta": "2026-12-08"},
}


def lookup_order(order_id: str) -> dict[str, Any]:
    """Look up an order's status by its id.

    Args:
        order_id: the order number, digits only, e.g. "812".
    """
    order = ORDERS.get(order_id.lstrip("#"))
    if order is None:
        return {"error": f"no order {order_id!r}"}
    return {"order_id": order_id, **order}


def build_demo_agent(model: BaseLlm) -> LlmAgent:
    """The order_support agent on ``model``."""
    return LlmAgent(
        name="order_support",
        model=model,
        instruction="Answer questions about the customer's orders. Use lookup_order.",
        description="Answers questions about orders.",
        tools=[lookup_order],
        disallow_transfer_to_parent=True,
        disallow_transfer_to_peers=True,
    )
