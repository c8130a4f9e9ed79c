"""What ``run`` and ``serve`` check when they load an agent: every model can be called.

Without this check a missing API key shows up only at the first model call:
after a session was created, counted as an attempt, or (under ``serve``) as
a bare 500 on the first turn. Here each ``LlmAgent``'s model is resolved
(an unknown name suggests the closest known one; a missing SDK names the
extra to install) and asked ``check_configuration()`` (no request is made);
the problems become one ``CliError`` naming the variables to set.
``--no-check`` skips it, e.g. for a key that only the deployment injects.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from ..agents.base_agent import BaseAgent
from ..agents.llm_agent import LlmAgent
from ..errors import ConfigurationError, ModelNotFoundError
from ._errors import CliError

__all__ = ["KNOWN_MODELS", "check_models", "llm_agents", "unknown_model"]

KNOWN_MODELS = (
    "gpt-4o",
    "gpt-4o-mini",
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-4.1-nano",
    "gpt-5",
    "gpt-5-mini",
    "o3",
    "o3-mini",
    "o4-mini",
    "claude-3-5-haiku-latest",
    "claude-3-7-sonnet-latest",
    "claude-sonnet-4-0",
    "claude-opus-4-0",
    "gemini-2.0-flash",
    "gemini-2.5-flash",
    "gemini-2.5-pro",
)
"""Names offered as suggestions; any name the registry's patterns match works."""

_FORMS = (
    "gpt-*, o1/o3/o4-*, openai/NAME, openai-responses/NAME, groq/NAME, claude-*, gemini-*, gemma-*"
)
_WAYS_OUT = "or pass --emulator to use the provider emulator, or --no-check to skip this check"


def llm_agents(root: BaseAgent) -> Iterator[LlmAgent]:
    """Every ``LlmAgent`` of the tree under ``root`` (``root`` included)."""
    pending = [root]
    while pending:
        agent = pending.pop()
        if isinstance(agent, LlmAgent):
            yield agent
        pending.extend(reversed(agent.sub_agents))


def unknown_model(name: str) -> CliError:
    """The error for a model name no pattern matches, suggesting the closest known one."""
    close = difflib.get_close_matches(name, KNOWN_MODELS, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return CliError(f"unknown model {name!r}: {hint}steadyflow resolves {_FORMS}")


def _problem(agent: LlmAgent) -> str | None:
    try:
        agent.canonical_model.check_configuration()
    except ModelNotFoundError as error:
        return str(unknown_model(str(agent.model))) if isinstance(agent.model, str) else str(error)
    except (ImportError, ConfigurationError, ValueError) as error:
        return " ".join(str(error).split())
    return None


def check_models(root: BaseAgent) -> None:
    """Resolve and check every agent's model.

    Raises:
        CliError: naming each problem once (several agents often share a
            model) and the ways out.
    """
    problems: list[str] = []
    for agent in llm_agents(root):
        problem = _problem(agent)
        if problem is not None and problem not in problems:
            problems.append(problem)
    if problems:
        raise CliError(f"{'; '.join(problems)}; {_WAYS_OUT}")
