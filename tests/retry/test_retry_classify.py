from collections.abc import Collection

from steadyflow.errors import LlmCallsLimitExceededError, error_chain
from steadyflow.retry._classify import describe_failure
from steadyflow.testing import ScriptedLlm, caused_by, connection_error, http_error

CODES = frozenset({429, 503})


def describe(error: BaseException, llm: ScriptedLlm | None = None):
    return describe_failure(llm or ScriptedLlm([]), error, CODES, attempt=1, elapsed=0.0)


def test_chain_lists_cause_then_context_each_once() -> None:
    root = KeyError("root")
    cause = ValueError("cause")
    context = OSError("context")
    cause.__context__ = root
    top = RuntimeError("top")
    top.__cause__ = cause
    top.__context__ = context
    assert list(error_chain(top)) == [top, cause, root, context]


def test_chain_with_a_cycle_ends() -> None:
    first, second = ValueError("a"), ValueError("b")
    first.__cause__ = second
    second.__context__ = first
    assert list(error_chain(first)) == [first, second]


def test_error_that_is_its_own_cause_ends() -> None:
    error = ValueError("self")
    error.__cause__ = error
    assert list(error_chain(error)) == [error]


def test_retryable_error_wrapped_in_a_non_retryable_one_is_retryable() -> None:
    details = describe(caused_by(RuntimeError("sdk wrapper"), http_error(503)))
    assert details.retryable
    assert details.status_code == 503
    assert details.error_type == "RuntimeError"


def test_retryable_error_found_through_context() -> None:
    outer = ValueError("while handling")
    outer.__context__ = connection_error()
    assert describe(outer).retryable


def test_non_retryable_chain_with_a_cycle_is_not_retryable() -> None:
    first, second = ValueError("a"), TypeError("b")
    first.__cause__ = second
    second.__cause__ = first
    assert not describe(first).retryable


def test_status_not_in_the_configured_codes_is_not_retryable() -> None:
    assert not describe(http_error(500)).retryable


def test_hint_comes_from_the_inner_provider_error() -> None:
    details = describe(caused_by(RuntimeError("wrapper"), http_error(429, retry_after=3.0)))
    assert details.retry_after == 3.0


def test_call_limit_anywhere_in_the_chain_is_reported() -> None:
    error = caused_by(http_error(503), LlmCallsLimitExceededError(3))
    assert describe(error).call_limit_in_chain


def test_classifier_is_asked_about_each_link_until_one_says_yes() -> None:
    seen: list[BaseException] = []

    class Picky(ScriptedLlm):
        def is_exception_retryable(
            self, error: BaseException, retryable_status_codes: Collection[int]
        ) -> bool:
            seen.append(error)
            return isinstance(error, KeyError)

    inner, middle = KeyError("transient"), ValueError("middle")
    middle.__cause__ = inner
    outer = caused_by(RuntimeError("outer"), middle)
    assert describe(outer, Picky([])).retryable
    assert seen == [outer, middle, inner]


def test_classifier_that_raises_means_not_retryable(caplog) -> None:
    class Broken(ScriptedLlm):
        def is_exception_retryable(
            self, error: BaseException, retryable_status_codes: Collection[int]
        ) -> bool:
            raise RuntimeError("bug in the adapter")

    assert not describe(http_error(503), Broken([])).retryable
    assert "is_exception_retryable raised" in caplog.text


def test_negative_or_nan_hints_are_normalized() -> None:
    class Odd(ScriptedLlm):
        def __init__(self, hint: float) -> None:
            super().__init__([])
            self.hint = hint

        def retry_after(self, error: BaseException) -> float | None:
            return self.hint

    assert describe(http_error(503), Odd(-5.0)).retry_after == 0.0
    assert describe(http_error(503), Odd(float("nan"))).retry_after is None
