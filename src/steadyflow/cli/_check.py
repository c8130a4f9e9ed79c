"""What ``run`` and ``serve`` check when they load an agent: every model can be called.

Without this check a missing API key shows up only at the first model call:
after a session was created, counted as an attempt, or (under ``serve``) as
a bare 500 on the first turn. Here each ``LlmAgent``'s model is resolved
(an unknown name suggests the closest known one; a missing SDK names the
extra to install) and asked ``check_configuration()`` (no request is made);
the problems become one ``CliError`` naming the variables to set.
``--no-check`` skips it, e.g. for a key that only the deployment injects.

A name the registry accepts may still be misspelt: ``claude-sonet-4``
matches ``claude-.*``, and the emulator answers any name. A bare name of
the OpenAI, Anthropic or Gemini families is therefore looked up in
``KNOWN_MODELS`` (a dated snapshot such as ``claude-sonnet-4-20250514`` counts
as its family's name): a name the list does not know is a warning on
stderr, with the closest known name, and the run goes on, since the list
cannot know every new model. Names with a provider prefix
(``openai/...``, ``groq/...``) are not looked up: they name deployments the
list cannot know.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator

from rich.markup import escape

from ..agents.base_agent import BaseAgent
from ..agents.llm_agent import LlmAgent
from ..errors import ConfigurationError, ModelNotFoundError
from ._console import make_console
from ._errors import CliError

__all__ = ["KNOWN_MODELS", "check_models", "llm_agents", "model_warning", "unknown_model"]

KNOWN_MODELS = (
    "gpt-4o",
    "gpt-4o-mini",
    "chatgpt-4o-latest",
    "gpt-4-turbo",
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-4.1-nano",
    "gpt-5",
    "gpt-5-mini",
    "gpt-5-nano",
    "o1",
    "o1-mini",
    "o3",
    "o3-mini",
    "o3-pro",
    "o4-mini",
    "claude-3-haiku",
    "claude-3-5-haiku",
    "claude-3-5-haiku-latest",
    "claude-3-5-sonnet-latest",
    "claude-3-7-sonnet",
    "claude-3-7-sonnet-latest",
    "claude-sonnet-4",
    "claude-sonnet-4-0",
    "claude-opus-4",
    "claude-opus-4-0",
    "claude-opus-4-1",
    "claude-sonnet-4-5",
    "claude-haiku-4-5",
    "claude-opus-4-5",
    "gemini-1.5-flash",
    "gemini-1.5-pro",
    "gemini-2.0-flash",
    "gemini-2.0-flash-lite",
    "gemini-2.5-flash",
    "gemini-2.5-flash-lite",
    "gemini-2.5-pro",
    "gemini-3-pro-preview",
)
"""The providers' model names steadyflow knows (snapshot dates left off).

Offered as suggestions for a misspelt name, and the list a bare name of the
OpenAI, Anthropic or Gemini families is checked against (a warning, never a
refusal). Any name the registry's patterns match can be run.
"""

_FAMILIES = re.compile(r"(gpt-|chatgpt-|o\d|claude-|gemini-)")
_SNAPSHOT = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2}|latest|preview(-[\w-]+)?|exp(-[\w-]+)?)$")
_FORMS = (
    "gpt-*, o1/o3/o4-*, openai/NAME, openai-responses/NAME, groq/NAME, claude-*, gemini-*, gemma-*"
)
_NO_KEY = "or pass --no-check to skip this check"
_EMULATOR = "or pass --emulator to use the provider emulator, "


def llm_agents(root: BaseAgent) -> Iterator[LlmAgent]:
    """Every ``LlmAgent`` of the tree under ``root`` (``root`` included)."""
    pending = [root]
    while pending:
        agent = pending.pop()
        if isinstance(agent, LlmAgent):
            yield agent
        pending.extend(reversed(agent.sub_agents))


def _closest(name: str) -> str:
    close = difflib.get_close_matches(name, KNOWN_MODELS, n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}? " if close else ""


def unknown_model(name: str) -> CliError:
    """The error for a model name no pattern matches, suggesting the closest known one."""
    return CliError(f"unknown model {name!r}: {_closest(name)}steadyflow resolves {_FORMS}")


def model_warning(name: str) -> str | None:
    """A warning for a bare provider name ``KNOWN_MODELS`` does not know; None when it does."""
    if not _FAMILIES.match(name) or name in KNOWN_MODELS:
        return None
    if _SNAPSHOT.sub("", name) in KNOWN_MODELS:
        return None
    hint = _closest(name) or "check the provider's model list? "
    return f"model {name!r} is not one steadyflow knows: {hint}it is used as given"


def _problem(agent: LlmAgent) -> tuple[str, bool] | None:
    """The agent's model problem, and whether a key or SDK (not the name) is missing."""
    try:
        agent.canonical_model.check_configuration()
    except ModelNotFoundError as error:
        if isinstance(agent.model, str):
            return str(unknown_model(agent.model)), False
        return str(error), False
    except (ImportError, ConfigurationError, ValueError) as error:
        return " ".join(str(error).split()), True
    return None


def check_models(root: BaseAgent, *, emulator: bool = False) -> None:
    """Resolve and check every agent's model; warn on stderr about names no list knows.

    Raises:
        CliError: naming each problem once (several agents often share a
            model) and, for a missing key or SDK, the ways out (never
            ``--emulator`` when it is on already).
    """
    problems: list[str] = []
    setup = False
    warnings: list[str] = []
    for agent in llm_agents(root):
        found = _problem(agent)
        if found is not None and found[0] not in problems:
            problems.append(found[0])
            setup = setup or found[1]
        name = agent.canonical_model.model if found is None else None
        warning = None if name is None else model_warning(name)
        if warning is not None and warning not in warnings:
            warnings.append(warning)
    console = make_console(stderr=True)
    for warning in warnings:
        console.print(f"[yellow]warning:[/] {escape(warning)}", soft_wrap=True)
    if problems:
        ways = f"; {'' if emulator else _EMULATOR}{_NO_KEY}" if setup else ""
        raise CliError(f"{'; '.join(problems)}{ways}")
