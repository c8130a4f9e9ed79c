"""Opaque tokens the emulator issues and later checks: signatures, encrypted content.

Providers hand clients data they must send back unchanged (Anthropic thinking
signatures and redacted thinking, OpenAI encrypted reasoning, Gemini thought
signatures), and refuse it when it was altered or issued for another model.
The emulator seals the facts a token vouches for with a key that lives as
long as the process, and unseals them to check.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
from typing import Any

from ..._json import is_object

__all__ = ["seal", "unseal"]

_KEY = os.urandom(32)


def _mac(payload: bytes) -> str:
    return hmac.new(_KEY, payload, hashlib.sha256).hexdigest()[:32]


def seal(facts: dict[str, Any]) -> str:
    """An opaque token vouching for ``facts`` (JSON-serializable)."""
    payload = json.dumps(facts, sort_keys=True, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(payload).decode() + "." + _mac(payload)


def unseal(token: object) -> dict[str, Any] | None:
    """The facts ``token`` vouches for; None when this process did not issue it unchanged."""
    if not isinstance(token, str) or token.count(".") != 1:
        return None
    encoded, mac = token.split(".")
    try:
        payload = base64.urlsafe_b64decode(encoded.encode())
        facts = json.loads(payload)
    except ValueError:
        return None
    if not hmac.compare_digest(mac, _mac(payload)) or not is_object(facts):
        return None
    return facts
