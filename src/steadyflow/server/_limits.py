"""``ServerLimits``: what the operator allows, and each request's ``RunConfig`` within it.

A request may choose its call budget, streaming mode, retry attempts and
usage limits (tokens, cost); the operator sets the ceilings once at
start-up. Values outside them are refused with a 422 naming the field,
never silently clamped: a client that asked for 500 calls should learn it
gets at most 50. A usage limit a request leaves out is the server's default
(``default_usage``, e.g. from the agent file's ``run_config``), else the
ceiling, so with a ceiling set no invocation runs without that limit. Spend
limits and prices are the operator's alone and apply to every turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .._response_cap import DEFAULT_MAX_RESPONSE_BYTES
from ..agents.base_agent import BaseAgent
from ..agents.llm_agent import LlmAgent
from ..models import BaseLlm
from ..retry._config import RetryConfig
from ..run_config import RunConfig, StreamingMode
from ..usage import ModelPrice, SpendLimit, UsageLimits, find_price, output_ceiling
from ..usage.limits import to_money
from ._errors import ApiError, FieldError
from ._schemas import RunOptions, UsageLimitOptions

__all__ = ["ServerLimits", "check_usage_limits", "unbounded_models", "unpriced_models"]

_USAGE_FIELDS = ("max_input_tokens", "max_output_tokens", "max_total_tokens", "max_cost")


def _positive(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"ServerLimits.{name} must be an int >= 1, got {value!r}")
    return value


@dataclass(frozen=True, kw_only=True)
class ServerLimits:
    """Ceilings and defaults the operator sets when the server starts.

    Attributes:
        max_llm_calls: the largest ``run_config.max_llm_calls`` a request may
            ask for. A request cannot turn the budget off.
        default_max_llm_calls: the budget of a request that names none.
        max_retry_attempts: the largest ``run_config.retry_max_attempts``.
        retry_config: the retry policy turns run under; a request may change
            only its ``max_attempts`` (the default is this config's).
        max_body_bytes: larger request bodies are refused with 413.
        sse_ping_interval: seconds of silence after which ``/run_sse`` sends
            a keep-alive comment (proxies drop idle streams).
        max_response_bytes: the largest model response a turn may receive
            (``Runner(max_response_bytes=)``; past it the turn fails with 502).
        max_usage: per-invocation ceilings on tokens and cost
            (``serve --max-cost-per-invocation`` and its siblings): a request
            may ask for less, never more.
        default_usage: the usage limits of a request that names none (each
            at most its ceiling); a limit set in neither is the ceiling.
        spend_limits: caps on what a session, a user or the app spends over
            a window, applied to every turn (``RunConfig.spend_limits``).
        prices: model prices for cost limits (``RunConfig.prices``).
    """

    max_llm_calls: int = 100
    default_max_llm_calls: int = 25
    max_retry_attempts: int = 5
    retry_config: RetryConfig = field(default_factory=RetryConfig.disabled)
    max_body_bytes: int = 1_048_576
    sse_ping_interval: float = 15.0
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES
    max_usage: UsageLimits | None = None
    default_usage: UsageLimits | None = None
    spend_limits: Sequence[SpendLimit] = ()
    prices: Mapping[str, ModelPrice] | None = None

    def __post_init__(self) -> None:
        for name in ("max_llm_calls", "default_max_llm_calls", "max_retry_attempts"):
            _positive(name, getattr(self, name))
        _positive("max_body_bytes", self.max_body_bytes)
        _positive("max_response_bytes", self.max_response_bytes)
        if self.default_max_llm_calls > self.max_llm_calls:
            raise ValueError(
                f"ServerLimits.default_max_llm_calls ({self.default_max_llm_calls}) must be "
                f"<= ServerLimits.max_llm_calls ({self.max_llm_calls})"
            )
        if not isinstance(self.retry_config, RetryConfig):
            raise ValueError(f"ServerLimits.retry_config must be a RetryConfig, got {self!r}")
        if self.retry_config.max_attempts > self.max_retry_attempts:
            raise ValueError(
                f"ServerLimits.retry_config.max_attempts ({self.retry_config.max_attempts}) "
                f"must be <= ServerLimits.max_retry_attempts ({self.max_retry_attempts})"
            )
        self._check_usage()
        interval = self.sse_ping_interval
        if isinstance(interval, bool) or not isinstance(interval, int | float) or interval <= 0:
            raise ValueError(
                f"ServerLimits.sse_ping_interval must be > 0 seconds, got {interval!r}"
            )

    def _check_usage(self) -> None:
        for name in ("max_usage", "default_usage"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, UsageLimits):
                raise ValueError(f"ServerLimits.{name} must be a UsageLimits, got {value!r}")
        # RunConfig checks the spend limits and prices the way every turn will meet them.
        checked = RunConfig(spend_limits=self.spend_limits, prices=self.prices)
        object.__setattr__(self, "spend_limits", checked.spend_limits)
        if self.default_usage is None or self.max_usage is None:
            return
        for name in _USAGE_FIELDS:
            value, ceiling = getattr(self.default_usage, name), getattr(self.max_usage, name)
            if value is not None and ceiling is not None and value > ceiling:
                raise ValueError(
                    f"ServerLimits.default_usage.{name} ({value}) must be <= "
                    f"ServerLimits.max_usage.{name} ({ceiling})"
                )

    def usage_limits(
        self, asked: UsageLimitOptions | None, started_with: UsageLimits | None = None
    ) -> tuple[UsageLimits | None, list[FieldError]]:
        """The usage limits of one request, and the fields above the ceilings.

        ``started_with``: the limits a resumed invocation started with, used
        (within today's ceilings) where the request names none.
        """
        errors: list[FieldError] = []
        chosen: dict[str, Any] = {}
        fallback = started_with or self.default_usage
        for name in _USAGE_FIELDS:
            ceiling = None if self.max_usage is None else getattr(self.max_usage, name)
            value = None if asked is None else getattr(asked, name)
            if value is not None:
                value = (
                    to_money("run_config.usage_limits", name, value)
                    if name == "max_cost"
                    else value
                )
                if ceiling is not None and value > ceiling:
                    errors.append(_ceiling(name, value, ceiling))
            else:
                value = None if fallback is None else getattr(fallback, name)
                if value is None or (ceiling is not None and value > ceiling):
                    value = ceiling
            chosen[name] = value
        limits = UsageLimits(**chosen)
        return (None if limits.is_empty else limits), errors

    def run_config(
        self,
        options: RunOptions | None,
        default_mode: StreamingMode,
        started_with: UsageLimits | None = None,
    ) -> RunConfig:
        """The ``RunConfig`` for one request (``started_with``: see ``usage_limits``).

        Raises:
            ApiError: 422 naming each field outside the operator's limits.
        """
        options = options or RunOptions()
        errors: list[FieldError] = []
        calls = options.max_llm_calls
        if calls is None:
            calls = self.default_max_llm_calls
        elif not 1 <= calls <= self.max_llm_calls:
            errors.append(_range("max_llm_calls", calls, self.max_llm_calls))
        attempts = options.retry_max_attempts
        if attempts is None:
            attempts = self.retry_config.max_attempts
        elif not 1 <= attempts <= self.max_retry_attempts:
            errors.append(_range("retry_max_attempts", attempts, self.max_retry_attempts))
        usage, usage_errors = self.usage_limits(options.usage_limits, started_with)
        errors.extend(usage_errors)
        if errors:
            raise ApiError.invalid(errors)
        mode = default_mode if options.streaming_mode is None else options.streaming_mode
        retry = replace(self.retry_config, max_attempts=attempts)
        return RunConfig(
            max_llm_calls=calls,
            streaming_mode=StreamingMode(mode),
            retry_config=retry,
            on_pending_confirmation=options.on_pending_confirmation or "supersede",
            usage_limits=usage,
            spend_limits=self.spend_limits,
            prices=self.prices,
        )


def _range(name: str, value: int, ceiling: int) -> FieldError:
    return FieldError(
        f"run_config.{name}",
        f"must be between 1 and {ceiling} (the server's limit), got {value}",
    )


def _ceiling(name: str, value: object, ceiling: object) -> FieldError:
    return FieldError(
        f"run_config.usage_limits.{name}",
        f"must be at most {ceiling} (the server's limit), got {value}",
    )


def _tree_models(agent: BaseAgent) -> list[tuple[LlmAgent, BaseLlm]]:
    """Each LLM agent of ``agent``'s tree with its model.

    A model that cannot be resolved here (no SDK, an unknown name) is left
    out, to fail where it is called.
    """
    found: list[tuple[LlmAgent, BaseLlm]] = []
    pending = [agent]
    while pending:
        current = pending.pop()
        pending.extend(current.sub_agents)
        if not isinstance(current, LlmAgent) or not current.model:
            continue
        try:
            found.append((current, current.canonical_model))
        except (ImportError, ValueError):
            continue
    return found


def unpriced_models(agent: BaseAgent, prices: Mapping[str, ModelPrice] | None) -> list[str]:
    """The models of ``agent``'s tree with no known price: a cost limit cannot bound them."""
    missing: list[str] = []
    for _, llm in _tree_models(agent):
        if find_price(llm.provider, llm.model, prices) is None and llm.model not in missing:
            missing.append(llm.model)
    return missing


def unbounded_models(agent: BaseAgent, prices: Mapping[str, ModelPrice] | None) -> list[str]:
    """The models of ``agent``'s tree whose answers have no known length bound.

    A hard token or cost limit reserves the most an answer may write: the
    agent's ``max_output_tokens``, else the model's output ceiling
    (``steadyflow.usage.output_ceiling``). Without either it refuses the call
    (``UnboundedOutputError``), so the server checks before a turn starts.
    """
    missing: list[str] = []
    for current, llm in _tree_models(agent):
        config = current.generate_content_config
        if config is not None and config.max_output_tokens is not None:
            continue
        if output_ceiling(llm.provider, llm.model, prices) is None and llm.model not in missing:
            missing.append(llm.model)
    return missing


def _counts_output(limits: UsageLimits) -> bool:
    """Whether ``limits`` hold a hard bound that counts what an answer writes."""
    bounds = (limits.max_output_tokens, limits.max_total_tokens, limits.max_cost)
    return not limits.allow_overshoot and any(bound is not None for bound in bounds)


def check_usage_limits(run_config: RunConfig, agent: BaseAgent, asked: bool) -> None:
    """422 when a usage limit the request asked for cannot be enforced for the agent's models.

    ``asked``: the request itself set usage limits (the operator's are
    checked at start). A cost limit needs a price for every model, and a hard
    token or cost limit needs a bound on every model's answers.

    Raises:
        ApiError: naming the field and the models.
    """
    limits = run_config.usage_limits
    if not asked or limits is None:
        return
    if limits.max_cost is not None and (missing := unpriced_models(agent, run_config.prices)):
        names = ", ".join(repr(name) for name in missing)
        message = f"no price is known for model {names}: this server cannot enforce a cost limit"
        raise ApiError.invalid([FieldError("run_config.usage_limits.max_cost", message)])
    if _counts_output(limits) and (missing := unbounded_models(agent, run_config.prices)):
        names = ", ".join(repr(name) for name in missing)
        message = (
            f"no bound on an answer's length is known for model {names} (its agent sets no "
            "max_output_tokens and the model has no known output ceiling): this server "
            "cannot enforce a token or cost limit"
        )
        raise ApiError.invalid([FieldError("run_config.usage_limits", message)])
