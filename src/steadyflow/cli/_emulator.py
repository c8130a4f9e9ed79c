"""``--emulator`` on ``run`` and ``serve``: one's own agent against the provider emulator.

The emulator starts on loopback in a background thread before the agent is
loaded, and the provider variables (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``,
``ANTHROPIC_*``, ``GOOGLE_GEMINI_BASE_URL``...) point at it for the whole
command, so an agent naming ``gpt-4o-mini``, ``claude-...`` or ``gemini-...``
talks to it through the official SDK with no key and no network. They
override what the shell set: ``--emulator`` means no real provider is
called. Models resolved before are dropped from the registry's cache, so
none keeps a real provider's address. The emulator answers with its
rule-based order-support model (it looks up order numbers with the agent's
tool and summarizes the result); ``--emulator-fault SPEC`` injects faults.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Generator, Sequence
from contextlib import contextmanager

from ..models.registry import LlmRegistry
from ..testing.emulator import Fault, ProviderEmulator, parse_fault
from ._errors import CliError

__all__ = ["parse_faults", "provider_emulator"]


def parse_faults(specs: Sequence[str], flag: str) -> list[Fault]:
    """The faults ``specs`` name; a bad one is a ``CliError`` naming ``flag``."""
    try:
        return [parse_fault(spec) for spec in specs]
    except ValueError as error:
        raise CliError(f"{flag}: {error}") from error


@contextmanager
def provider_emulator(
    enabled: bool, faults: Sequence[str] = (), *, announce: bool = True
) -> Generator[ProviderEmulator | None, None, None]:
    """Run the emulator and point every provider variable at it (nothing when not ``enabled``).

    The variables are restored on exit. ``announce`` prints where the
    emulator listens on stderr (so ``--jsonl`` output stays clean).
    """
    if not enabled:
        if faults:
            raise CliError("--emulator-fault needs --emulator")
        yield None
        return
    emulator = ProviderEmulator(faults=parse_faults(faults, "--emulator-fault"))
    with emulator.running_in_thread():
        saved = {name: os.environ.get(name) for name in emulator.env()}
        os.environ.update(emulator.env())
        LlmRegistry.clear_cache()
        if announce:
            print(
                f"provider emulator on {emulator.base_url} (no API key, no network)",
                file=sys.stderr,
                flush=True,
            )
        try:
            yield emulator
        finally:
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value
            LlmRegistry.clear_cache()
