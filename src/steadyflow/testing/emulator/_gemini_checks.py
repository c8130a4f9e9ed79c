"""What the Gemini API refuses, checked the way it checks, and its thought signatures.

The real API answers HTTP 400 with its own message for an unknown field, a
part with no data or (in a model turn) an empty text, a function response that does not
answer the call just before it, and (Gemini 3) a function call sent back
without the ``thoughtSignature`` the model issued with it, or with another
one. The emulator makes the same checks, so an adapter that would fail
against Google fails here first.

Signatures are opaque to clients: an HMAC, under a key drawn per emulator,
of the model name and the part it signs. Only the model that issued one
accepts it back, and only on the same part.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import os
from typing import Any

from ..._json import is_object
from ._dialect import WireError

__all__ = [
    "SKIP_SIGNATURES",
    "SignatureIssuer",
    "check_request",
    "is_gemini_3",
    "signed_call",
    "signed_text",
]

# What Google documents to send for a function call no Gemini 3 model issued.
SKIP_SIGNATURES = frozenset(
    {"skip_thought_signature_validator", "context_engineering_is_the_way_to_go"}
)

_REQUEST_FIELDS = frozenset(
    {
        "contents",
        "tools",
        "toolConfig",
        "safetySettings",
        "systemInstruction",
        "generationConfig",
        "cachedContent",
        "labels",
        "serviceTier",
        "model",
    }
)
_CONTENT_FIELDS = frozenset({"role", "parts"})
_DATA_FIELDS = frozenset(
    {
        "text",
        "inlineData",
        "functionCall",
        "functionResponse",
        "fileData",
        "executableCode",
        "codeExecutionResult",
    }
)
_PART_FIELDS = _DATA_FIELDS | {"thought", "thoughtSignature", "videoMetadata", "partMetadata"}
_CALL_FIELDS = frozenset({"id", "name", "args"})
_RESPONSE_FIELDS = frozenset({"id", "name", "response", "willContinue", "scheduling", "parts"})
_MISSING = (
    "Function call is missing a thought_signature in functionCall parts. This is required "
    "for tools to work correctly, and missing thought_signature may lead to degraded model "
    "performance. Additional data, function call `default_api:{name}` , position {position}. "
    "Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
)


def is_gemini_3(model: str) -> bool:
    """Whether ``model`` is emulated as a Gemini 3 model (it issues and checks signatures)."""
    return model.removeprefix("models/").startswith("gemini-3")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(word.title() for word in rest)


def _unknown(fields: dict[str, Any], known: frozenset[str], where: str) -> None:
    # Proto JSON accepts the lowerCamel and the original snake_case names alike.
    for name in fields:
        if _camel(name) not in known:
            raise WireError(
                f"Invalid JSON payload received. Unknown name \"{name}\" at '{where}': "
                "Cannot find field."
            )


class SignatureIssuer:
    """Issues and verifies one emulator's thought signatures (base64 text on the wire)."""

    def __init__(self) -> None:
        self._key = os.urandom(16)

    def issue(self, model: str, signed: str) -> str:
        """The signature ``model`` attaches to the part whose content is ``signed``."""
        mac = hmac.new(self._key, f"{model}\0{signed}".encode(), hashlib.sha256).digest()
        return base64.b64encode(b"emu-sig:" + mac[:24]).decode()

    def valid(self, model: str, signed: str, signature: Any) -> bool:
        """Whether ``signature`` is the one ``model`` issued for ``signed``.

        Either base64 alphabet is read (the SDK sends the URL-safe one), and
        Google's documented placeholders for calls no Gemini 3 model made pass.
        """
        text = str(signature)
        if text in SKIP_SIGNATURES:
            return True
        try:
            given = base64.b64decode(text.replace("-", "+").replace("_", "/"), validate=True)
        except (binascii.Error, ValueError):
            return False
        expected = base64.b64decode(self.issue(model, signed))
        return hmac.compare_digest(given, expected)


def signed_call(name: str, args: Any) -> str:
    """What a function-call signature covers: the call's name and arguments."""
    return "call:" + json.dumps([name, args], sort_keys=True, separators=(",", ":"))


def signed_text(text: str) -> str:
    """What a text signature covers: the whole text of the answer."""
    return "text:" + text


def check_request(body: dict[str, Any], model: str, issuer: SignatureIssuer) -> None:
    """Refuse ``body`` as the Gemini API would.

    Raises:
        WireError: with the API's own message.
    """
    _unknown(body, _REQUEST_FIELDS, "")
    contents = body["contents"]
    for index, content in enumerate(contents):
        where = f"contents[{index}]"
        if is_object(content):
            _unknown(content, _CONTENT_FIELDS, where)
        by_model = content.get("role") == "model"
        for number, part in enumerate(content.get("parts") or ()):
            _check_part(part, f"{where}.parts[{number}]", by_model)
            _check_signature(part, model, issuer)
        if index and _results(content):
            _check_answers(contents[index - 1], content)
    if is_gemini_3(model):
        _check_current_turn(contents)


def _check_part(part: Any, where: str, by_model: bool) -> None:
    if not is_object(part):
        raise WireError(f"Invalid value at '{where}': a part must be an object")
    _unknown(part, _PART_FIELDS, where)
    data = [name for name in part if _camel(name) in _DATA_FIELDS]
    if not data:
        raise WireError(
            f"* GenerateContentRequest.{where}.data: "
            "required oneof field 'data' must have one initialized field"
        )
    text = part.get("text")
    signed = part.get("thoughtSignature") or part.get("thought_signature")
    # Recorded traffic: a user part with empty text is accepted (an instruction-only turn).
    if by_model and text is not None and not text and not signed:
        raise WireError(
            "Unable to submit request because it has an empty text parameter. "
            "Add a value to the parameter and try again."
        )
    call = part.get("functionCall") or part.get("function_call")
    if is_object(call):
        _unknown(call, _CALL_FIELDS, f"{where}.function_call")
    result = part.get("functionResponse") or part.get("function_response")
    if is_object(result):
        _unknown(result, _RESPONSE_FIELDS, f"{where}.function_response")


def _call_of(part: dict[str, Any]) -> dict[str, Any] | None:
    call = part.get("functionCall") or part.get("function_call")
    return call if is_object(call) else None


def _calls(content: Any) -> list[dict[str, Any]]:
    parts = content.get("parts") if is_object(content) else None
    return [c for p in parts or () if is_object(p) and (c := _call_of(p)) is not None]


def _results(content: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    parts: list[Any] = (content.get("parts") or []) if is_object(content) else []
    for part in parts:
        result = part.get("functionResponse") or part.get("function_response")
        if is_object(result):
            found.append(result)
    return found


def _check_answers(previous: Any, content: Any) -> None:
    calls, results = _calls(previous), _results(content)
    if not calls or previous.get("role") != "model":
        raise WireError(
            "Please ensure that function response turn comes immediately after a "
            "function call turn."
        )
    if len(calls) != len(results):
        raise WireError(
            "Please ensure that the number of function response parts is equal to the "
            "number of function call parts of the function call turn."
        )
    if sorted(str(c.get("name")) for c in calls) != sorted(str(r.get("name")) for r in results):
        raise WireError("Function response names do not match the function calls of the turn.")


def _check_signature(part: dict[str, Any], model: str, issuer: SignatureIssuer) -> None:
    signature = part.get("thoughtSignature") or part.get("thought_signature")
    if signature is None:
        return
    call = _call_of(part)
    if call is not None:
        signed = signed_call(str(call.get("name")), call.get("args") or {})
    else:
        signed = signed_text(str(part.get("text") or ""))
    if not issuer.valid(model, signed, signature):
        raise WireError("Corrupted thought signature.")


def _check_current_turn(contents: list[Any]) -> None:
    # The current turn starts after the last user message that is not only
    # function responses; each of its model steps must return its signature.
    start = 0
    for index, content in enumerate(contents):
        parts: list[Any] = content.get("parts") or [] if is_object(content) else []
        if content.get("role") != "model" and any(
            is_object(p) and not (p.get("functionResponse") or p.get("function_response"))
            for p in parts
        ):
            start = index
    for index in range(start, len(contents)):
        content = contents[index]
        if content.get("role") != "model":
            continue
        for part in content.get("parts") or ():
            call = _call_of(part)
            if call is None:
                continue
            if not (part.get("thoughtSignature") or part.get("thought_signature")):
                raise WireError(_MISSING.format(name=call.get("name"), position=index + 1))
            break  # only the first call of a step carries the signature
