"""The ``RunConfig`` of a command's turns: the agent file's ``run_config``, then the flags.

An agent file may carry its run settings (``run_config = RunConfig(...)`` at
module level, see ``_loader``); without one, the command line's defaults
apply: 500 attempts per turn and 3 attempts per model call. Each flag given
overrides one field and leaves the others as the file set them (a
``--max-cost`` adds to the file's token limits rather than replacing them).

A continued invocation (``resume``, ``confirm``) keeps the budget and the
usage limits it started with, as ``Runner.resume_async`` does: its earlier
attempts and tokens count against them. Flags still override them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..errors import ConfigurationError
from ..retry._config import RetryConfig
from ..run_config import RunConfig, StreamingMode
from ..sessions import InvocationRecord
from ..usage import UsageLimits
from ..usage._meter import UsageMeter
from ..usage.limits import to_money
from ._errors import user_errors

__all__ = ["DEFAULT_RETRY_ATTEMPTS", "RunFlags", "run_config_for"]

DEFAULT_RETRY_ATTEMPTS = 3


@dataclass(frozen=True)
class RunFlags:
    """The run-setting flags of one command, in the order the commands declare them.

    None: not given.
    """

    max_llm_calls: int | None = None
    retry_attempts: int | None = None
    stream: bool | None = None
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    max_total_tokens: int | None = None
    max_cost: str | None = None
    max_tool_calls: int | None = None
    max_calls_per_tool: tuple[str, ...] = ()

    def usage(self) -> dict[str, Any]:
        """The usage limits given, by ``UsageLimits`` field.

        Raises:
            ConfigurationError: ``--max-cost`` is not an amount of money, or a
                ``--max-calls-per-tool`` is not ``TOOL=N``.
        """
        given: dict[str, Any] = {
            "max_input_tokens": self.max_input_tokens,
            "max_output_tokens": self.max_output_tokens,
            "max_total_tokens": self.max_total_tokens,
            "max_tool_calls": self.max_tool_calls,
        }
        if self.max_cost is not None:
            given["max_cost"] = to_money("steadyflow", "--max-cost", self.max_cost)
        if self.max_calls_per_tool:
            given["max_calls_per_tool"] = _per_tool(self.max_calls_per_tool)
        return {name: value for name, value in given.items() if value is not None}


def _per_tool(specs: tuple[str, ...]) -> dict[str, int]:
    """``("refund_order=1", ...)`` as ``{"refund_order": 1}``."""
    counts: dict[str, int] = {}
    for spec in specs:
        name, sep, count = spec.partition("=")
        if not sep or not name.strip() or not count.strip().isdigit():
            raise ConfigurationError(
                f"--max-calls-per-tool takes TOOL=N (a tool name and a whole number), got {spec!r}"
            )
        counts[name.strip()] = int(count)
    return counts


def run_config_for(
    file_config: RunConfig | None, flags: RunFlags, record: InvocationRecord | None = None
) -> RunConfig:
    """The settings of the command's turns (see the module docstring).

    Raises:
        CliError: a flag's value is invalid (naming the field).
    """
    base = file_config or RunConfig(retry_config=RetryConfig(max_attempts=DEFAULT_RETRY_ATTEMPTS))
    changes: dict[str, Any] = {}
    if record is not None:
        changes["max_llm_calls"] = record.max_llm_calls
        changes["usage_limits"] = UsageMeter.stored_limits(record.usage)
    if flags.max_llm_calls is not None:
        changes["max_llm_calls"] = flags.max_llm_calls
    if flags.retry_attempts is not None:
        changes["retry_config"] = replace(base.retry_config, max_attempts=flags.retry_attempts)
    if flags.stream is not None:
        changes["streaming_mode"] = StreamingMode.SSE if flags.stream else StreamingMode.NONE
    with user_errors():
        usage = flags.usage()
        if usage:
            limits = changes.get("usage_limits", base.usage_limits) or UsageLimits()
            changes["usage_limits"] = replace(limits, **usage)
        return replace(base, **changes)
