"""The emulator's Gemini dialect refuses what the Gemini API refuses, with its messages.

Over plain HTTP, so each check is seen exactly as a client meets it: unknown
fields, parts without data or with empty text in a model turn (a user part with
empty text passes, as on the real API), a function response that does
not follow its call, and (Gemini 3 models) function calls sent back without
the signature the model issued, with someone else's, or with a forged one.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from steadyflow.testing.emulator import ProviderEmulator, ToolCall

CALL = {"functionCall": {"name": "lookup_order", "args": {"order_id": "812"}}}
RESULT = {"functionResponse": {"name": "lookup_order", "response": {"status": "shipped"}}}


def user(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "parts": list(parts)}


def model(*parts: dict[str, Any]) -> dict[str, Any]:
    return {"role": "model", "parts": list(parts)}


async def generate(emu: ProviderEmulator, name: str, body: dict[str, Any]) -> httpx.Response:
    async with httpx.AsyncClient(base_url=emu.base_url) as client:
        return await client.post(f"/v1beta/models/{name}:generateContent", json=body)


def message(response: httpx.Response) -> str:
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    return str(error["message"])


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"contents": [user({"text": "hi"})], "temperature": 1}, 'Unknown name "temperature"'),
        ({"contents": [user({"text": "hi", "txt": "x"})]}, 'Unknown name "txt"'),
        ({"contents": [{"role": "user", "parts": [{"text": "hi"}], "x": 1}]}, 'Unknown name "x"'),
        ({"contents": [user({"text": "hi"}), model({"text": ""})]}, "empty text parameter"),
        ({"contents": [user({"thought": True})]}, "required oneof field 'data'"),
        ({"contents": [user({"text": "hi"}), user(RESULT)]}, "immediately after a function call"),
        (
            {"contents": [user({"text": "hi"}), model(CALL), user(RESULT, RESULT)]},
            "number of function response parts",
        ),
    ],
    ids=["top-level", "part", "content", "empty-text", "no-data", "orphan-result", "count"],
)
async def test_a_request_the_api_refuses_gets_its_400(body: dict[str, Any], expected: str) -> None:
    async with ProviderEmulator(["never sent"]) as emu:
        assert expected in message(await generate(emu, "gemini-2.5-flash", body))
        assert emu.script_remaining == 1


async def test_a_user_part_with_empty_text_is_accepted_as_the_real_api_does() -> None:
    body = {"contents": [user({"text": ""})], "systemInstruction": {"parts": [{"text": "Go."}]}}
    async with ProviderEmulator(["ok"]) as emu:
        assert (await generate(emu, "gemini-2.5-flash", body)).status_code == 200


async def test_snake_case_field_names_are_read_like_camel_case() -> None:
    body = {"contents": [user({"text": "hi"})], "system_instruction": {"parts": [{"text": "s"}]}}
    async with ProviderEmulator(["ok"]) as emu:
        assert (await generate(emu, "gemini-2.5-flash", body)).status_code == 200


async def signed_call(emu: ProviderEmulator, name: str) -> dict[str, Any]:
    answer = await generate(emu, name, {"contents": [user({"text": "Where is 812?"})]})
    part: dict[str, Any] = answer.json()["candidates"][0]["content"]["parts"][0]
    return part


def follow_up(call_part: dict[str, Any]) -> dict[str, Any]:
    return {"contents": [user({"text": "Where is 812?"}), model(call_part), user(RESULT)]}


async def test_gemini_3_signs_its_call_and_accepts_it_back() -> None:
    async with ProviderEmulator([ToolCall("lookup_order", {"order_id": "812"}), "Shipped."]) as emu:
        part = await signed_call(emu, "gemini-3-test")
        assert part["thoughtSignature"]
        answer = await generate(emu, "gemini-3-test", follow_up(part))
        assert answer.status_code == 200
        assert answer.json()["candidates"][0]["content"]["parts"][0]["text"] == "Shipped."


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda part: part.pop("thoughtSignature"), "Function call is missing a thought_signature"),
        (lambda part: part.update(thoughtSignature="Zm9yZ2Vk"), "Corrupted thought signature"),
        (lambda part: part["functionCall"]["args"].update(order_id="9"), "Corrupted thought"),
    ],
    ids=["missing", "forged", "other-part"],
)
async def test_gemini_3_refuses_a_call_without_its_own_signature(
    change: Any, expected: str
) -> None:
    async with ProviderEmulator([ToolCall("lookup_order", {"order_id": "812"}), "x"]) as emu:
        part = await signed_call(emu, "gemini-3-test")
        change(part)
        assert expected in message(await generate(emu, "gemini-3-test", follow_up(part)))


async def test_a_signature_is_refused_by_any_other_model() -> None:
    async with ProviderEmulator([ToolCall("lookup_order", {"order_id": "812"}), "x"]) as emu:
        part = await signed_call(emu, "gemini-3-test")
        response = await generate(emu, "gemini-3-other", follow_up(part))
        assert "Corrupted thought signature" in message(response)


async def test_googles_placeholder_signature_is_accepted_for_calls_no_gemini_3_made() -> None:
    async with ProviderEmulator(["ok"]) as emu:
        part = {**CALL, "thoughtSignature": "skip_thought_signature_validator"}
        assert (await generate(emu, "gemini-3-test", follow_up(part))).status_code == 200


async def test_older_models_issue_no_signatures_and_need_none() -> None:
    async with ProviderEmulator([ToolCall("lookup_order", {"order_id": "812"}), "x"]) as emu:
        part = await signed_call(emu, "gemini-2.5-flash")
        assert "thoughtSignature" not in part
        assert (await generate(emu, "gemini-2.5-flash", follow_up(part))).status_code == 200


async def test_an_earlier_turns_unsigned_call_is_not_checked() -> None:
    # Gemini 3 validates the current turn only (since the last user text).
    body = follow_up(CALL)
    body["contents"] += [model({"text": "Shipped."}), user({"text": "Thanks"})]
    async with ProviderEmulator(["ok"]) as emu:
        assert (await generate(emu, "gemini-3-test", body)).status_code == 200
