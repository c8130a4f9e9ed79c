"""``steadyflow demo``: the order-support agent through a real provider SDK, under faults.

No API key and no network: the provider emulator serves the chosen
provider's wire format on loopback, and the official SDK (through
steadyflow's adapter) talks to it. The emulator answers the first request
with 429 and a Retry-After, the second with 503, and breaks the stream of the
fourth before its first chunk (without ``--stream``, the fourth request's
connection is reset instead). Retries are on, every attempt counts against
a budget of 8 attempts, the session is stored in SQLite, progress is shown
live, and the run ends with the invocation's timeline read back from the
database.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from rich.console import Console
from rich.markup import escape

from ..models.base import BaseLlm
from ..retry._config import RetryConfig
from ..run_config import RunConfig, StreamingMode
from ..runner import Runner
from ..testing.emulator import ProviderEmulator
from ..trace_record import InvocationTrace
from ._console import make_console
from ._demo_agent import build_demo_agent
from ._emulator import parse_faults
from ._errors import FAILED, CliError
from ._live import LiveReporter, ObservedLlm
from ._next import next_steps
from ._render import EventPrinter
from ._store import find_session, open_store, shown_url
from ._timeline import count, model_calls, render_timeline

__all__ = ["DEMO_QUESTION", "PROVIDERS", "DemoOptions", "default_faults", "run_demo"]

DEMO_QUESTION = "Where is order 812?"
DEMO_APP, DEMO_USER = "order_support", "demo"
PROVIDERS = {
    "openai": ("gpt-4o-mini", "openai"),
    "anthropic": ("claude-3-5-haiku-latest", "anthropic"),
    "gemini": ("gemini-2.0-flash", "google-genai"),
}
_BUDGET = 8
_RETRY = RetryConfig(max_attempts=4, initial_backoff=0.5, max_backoff=2.0)


@dataclass(frozen=True, kw_only=True)
class DemoOptions:
    """Everything ``steadyflow demo`` was told."""

    provider: str
    faults: str | None
    stream: bool
    seed: int
    session_db: str
    chunk_delay: float = 0.03
    """Seconds between streamed chunks, so the stream is visible (0 in tests)."""


def default_faults(stream: bool) -> str:
    """The demo's fault script: a 429 with Retry-After, a 503, a broken stream."""
    third = "break@4,after=0" if stream else "reset@4"
    return f"429@1,retry_after=1 503@2 {third}"


def _adapter(provider: str, emulator: ProviderEmulator) -> BaseLlm:
    model = PROVIDERS[provider][0]
    try:
        if provider == "openai":
            from ..models.openai import OpenAI

            return OpenAI(model, api_key="steadyflow-demo", base_url=emulator.openai_base_url)
        if provider == "anthropic":
            from ..models.anthropic import Anthropic

            return Anthropic(model, api_key="steadyflow-demo", base_url=emulator.base_url)
        from ..models.gemini import Gemini

        return Gemini(model, api_key="steadyflow-demo", base_url=emulator.base_url)
    except ImportError as error:
        raise CliError(str(error)) from error


async def run_demo(options: DemoOptions) -> None:
    """Run the demo end to end; raises ``CliError`` if the turn fails."""
    if options.provider not in PROVIDERS:
        known = ", ".join(PROVIDERS)
        raise CliError(f"--provider {options.provider!r} is not one of: {known}")
    script = default_faults(options.stream) if options.faults is None else options.faults
    faults = parse_faults(script.split(), "--faults")
    random.seed(options.seed)  # the retry jitter draws from the global generator
    console = make_console()
    reporter = LiveReporter(console)
    started = time.perf_counter()
    async with (
        open_store(options.session_db) as service,
        ProviderEmulator(
            faults=faults, seed=options.seed, chunk_delay=options.chunk_delay
        ) as emulator,
    ):
        llm = ObservedLlm(_adapter(options.provider, emulator), reporter)
        agent = build_demo_agent(llm)
        runner = Runner(app_name=DEMO_APP, agent=agent, session_service=service)
        _header(console, options, emulator.base_url, script)
        session = await runner.create_session(user_id=DEMO_USER)
        config = RunConfig(
            max_llm_calls=_BUDGET,
            streaming_mode=StreamingMode.SSE if options.stream else StreamingMode.NONE,
            retry_config=_RETRY,
        )
        console.print(f"\n[bold]user:[/] {DEMO_QUESTION}")
        failure = await _turn(runner, session.id, config, EventPrinter(console, reporter=reporter))
        stored = await find_session(service, options.session_db, session.id, DEMO_APP, DEMO_USER)
        records = await service.list_invocations(
            app_name=DEMO_APP, user_id=DEMO_USER, session_id=stored.id
        )
    traces = [r.trace for r in records if r.trace is not None]
    _footer(console, traces, session.id, options.session_db, time.perf_counter() - started)
    if failure is not None:
        text = " ".join(str(failure).split())
        raise CliError(f"the demo turn failed: {type(failure).__name__}: {text}", FAILED)


async def _turn(
    runner: Runner, session_id: str, config: RunConfig, printer: EventPrinter
) -> Exception | None:
    assert printer.reporter is not None
    try:
        with printer.reporter.retry_logs():
            events = runner.run_async(
                user_id=DEMO_USER,
                session_id=session_id,
                new_message=DEMO_QUESTION,
                run_config=config,
            )
            async for event in events:
                printer.show(event)
    except Exception as error:
        return error
    printer.summary(None, session_id)
    return None


def _header(console: Console, options: DemoOptions, base_url: str, script: str) -> None:
    model, sdk = PROVIDERS[options.provider]
    console.print(f"[bold]steadyflow demo[/] · order_support agent · {options.provider} {model}")
    console.print(f"  provider: the official {sdk} SDK → emulator on {base_url}, no key needed")
    console.print(f"  faults:   {escape(script) or 'none'}")
    console.print(
        f"  policy:   up to {_RETRY.max_attempts} attempts per model call"
        f" · budget {_BUDGET} attempts"
        f" · {'streaming' if options.stream else 'not streaming'} · seed {options.seed}"
    )
    console.print(f"  sessions: {escape(shown_url(options.session_db))}")


def _footer(
    console: Console, traces: list[InvocationTrace], session_id: str, url: str, elapsed: float
) -> None:
    if not traces:
        console.print("[red]no trace was stored[/]")
        return
    trace = traces[-1]
    console.print("\n[bold]timeline[/] (read back from the session database)")
    console.print(render_timeline(console, trace))
    budget = f"{trace.budget_used} of {trace.budget_limit}"
    console.print(
        f"[bold]budget:[/] {budget} attempts used ({count(model_calls(trace), 'model call')}, "
        f"{count(trace.retries, 'retry', 'retries')}) · "
        f"{trace.input_tokens + trace.output_tokens} tokens"
    )
    console.print(
        f"[bold]stored:[/] session {session_id} in {escape(shown_url(url))} "
        f"(app {DEMO_APP}, user {DEMO_USER}) · demo took {elapsed:.1f} s"
    )
    console.print(next_steps(session_id, url))
