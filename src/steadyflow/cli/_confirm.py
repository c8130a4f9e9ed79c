"""Confirmation on the command line: ask the person in chat, say how to answer otherwise.

A turn that pauses for a person (docs/confirmation.md) ends with
confirmation requests. In chat mode (``run AGENT`` without a QUERY) each is
asked on the spot: the tool, its arguments and the hint, then
``allow? [y/N]``. ``y`` or ``yes`` allows; ``n``, ``no`` or an empty line
declines, the safe answer; any other line is a new message, which
supersedes the waiting requests as a new message does anywhere (each is
declined "superseded by a new message" and the line starts a new turn);
Ctrl-D leaves the request waiting and prints how to answer it later. In
one-shot mode (``run AGENT QUERY``, ``resume``, ``confirm``) nobody is
there to ask: the requests are printed with the exact
``steadyflow confirm`` lines that allow or decline them, and the command
exits 0 (the turn did not fail, it waits).

``steadyflow confirm AGENT SESSION_ID`` answers the requests the session's
waiting invocation holds (all of them, or the one ``--request`` names;
``--decline`` says no, ``--payload JSON`` sends data to the tool) and shows
the rest of the turn as ``run`` does.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.markup import escape

from ..sessions import DEFAULT_SESSION_URL, BaseSessionService, InvocationStatus, Session
from ..tools import (
    REQUEST_CONFIRMATION_NAME,
    ConfirmationRequest,
    confirmation_answer,
    confirmation_requests,
)
from ..types import Content, Part
from ._errors import CliError

__all__ = ["Answer", "answer_commands", "ask", "pending_requests", "show_waiting"]

_YES = ("y", "yes")
_NO = ("", "n", "no")


@dataclass(frozen=True)
class Answer:
    """How ``confirm`` answers: allow or decline, with an optional payload for the tool."""

    confirmed: bool
    payload: Any = None

    @classmethod
    def from_flags(cls, decline: bool, payload: str | None) -> Answer:
        """The answer ``--decline`` and ``--payload JSON`` describe."""
        if payload is None:
            return cls(not decline)
        try:
            return cls(not decline, json.loads(payload))
        except ValueError as error:
            raise CliError(f"--payload is not JSON: {error}") from None

    def message(self, requests: list[ConfirmationRequest]) -> Content:
        """One message answering every request of ``requests`` this way."""
        parts = [
            part
            for request in requests
            for part in confirmation_answer(
                request.id, confirmed=self.confirmed, payload=self.payload
            ).parts
        ]
        return Content.from_parts(*parts)


def _describe(request: ConfirmationRequest) -> str:
    args = ", ".join(f"{name}={value!r}" for name, value in request.call.args.items())
    return f"{request.call.name}({args})"


def _show_request(console: Console, request: ConfirmationRequest) -> None:
    console.print(f"[bold yellow]confirm:[/] {escape(_describe(request))}", soft_wrap=True)
    if request.hint:
        console.print(f"  {escape(request.hint)}", soft_wrap=True)
    if request.payload is not None:
        console.print(f"  payload: {escape(json.dumps(request.payload))}", soft_wrap=True)


def ask(console: Console, requests: list[ConfirmationRequest]) -> Content | None:
    """Ask the person about each request; their answers as one message (None: Ctrl-D).

    A reply that is neither yes nor no is the person's next message: it is
    returned as it is, and the runner supersedes the requests with it.
    """
    parts: list[Part] = []
    for request in requests:
        _show_request(console, request)
        try:
            reply = console.input("  allow? \\[y/N] ").strip()
        except (EOFError, KeyboardInterrupt):
            console.print()
            return None
        if reply.lower() not in _YES + _NO:
            console.print("  [yellow]a new message: the waiting requests are superseded[/]")
            return Content.from_parts(Part(text=reply))
        confirmed = reply.lower() in _YES
        console.print("  [green]allowed[/]" if confirmed else "  [yellow]declined[/]")
        parts.extend(Answer(confirmed).message([request]).parts)
    return Content.from_parts(*parts)


def answer_commands(
    command: str, agent: str, session_id: str, url: str, *, emulator: bool
) -> tuple[str, str] | None:
    """The command lines that allow and decline; None when the session is not stored."""
    if url.startswith("memory:"):
        return None
    line = f"{command} confirm {shlex.quote(agent)} {session_id}"
    if url != DEFAULT_SESSION_URL:
        line += f" --session-db {shlex.quote(url)}"
    if emulator:
        line += " --emulator"
    return line, f"{line} --decline"


def show_waiting(
    console: Console, requests: list[ConfirmationRequest], commands: tuple[str, str] | None
) -> None:
    """Print the requests a turn waits on and how to answer them."""
    for request in requests:
        _show_request(console, request)
    if commands is None:
        console.print(
            "the session lived in memory (--session-db memory://) and is gone with this "
            "process: run with a session database to answer later"
        )
        return
    allow, decline = commands
    console.print("waiting for a person; answer with:")
    console.print(f"  {escape(allow)}   # allow", soft_wrap=True)
    console.print(f"  {escape(decline)}   # decline", soft_wrap=True)


async def pending_requests(
    service: BaseSessionService, session: Session
) -> list[ConfirmationRequest]:
    """The unanswered requests of the session's waiting invocations, oldest first."""
    records = await service.list_invocations(
        app_name=session.app_name, user_id=session.user_id, session_id=session.id
    )
    waiting = {r.id for r in records if r.status is InvocationStatus.WAITING}
    asked: list[ConfirmationRequest] = []
    answered: set[str] = set()
    for event in session.events:
        if event.invocation_id in waiting:
            asked.extend(confirmation_requests(event))
        for response in event.get_function_responses():
            if response.name == REQUEST_CONFIRMATION_NAME and response.id:
                answered.add(response.id)
    return [request for request in asked if request.id not in answered]
