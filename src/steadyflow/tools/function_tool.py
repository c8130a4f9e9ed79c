"""``FunctionTool``: any Python callable as a tool, its schema from its signature.

The JSON schema is derived once, from type hints (through pydantic) and the
Google-style docstring (summary and ``Args:`` descriptions). A parameter
named ``tool_context`` receives the ``ToolContext`` and is hidden from the
model.

A signature the model cannot be told about is refused when the tool is
built, with a ``ToolDefinitionError`` naming the tool and the parameter,
rather than becoming a schema that silently says less than the function
takes: ``*args``/``**kwargs``, a parameter without a type hint (annotate it
``Any`` to accept any JSON value on purpose), a type pydantic cannot turn
into JSON schema, and a docstring ``Args:`` entry naming no parameter.

A plain (synchronous) function runs in a worker thread (``asyncio.to_thread``,
the context variables copied), so a tool that blocks holds up neither the
other sessions of a server nor the renewal of its own invocation's lease.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias, get_type_hints

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PydanticUserError,
    TypeAdapter,
    ValidationError,
    create_model,
)

from .._json import is_array, is_object
from ..context import ToolContext
from ..errors import ConfigurationError, ToolArgumentsError, ToolDefinitionError
from ..types import FunctionDeclaration
from .base_tool import BaseTool

__all__ = [
    "ConfirmationPredicate",
    "FunctionTool",
    "LongRunningFunctionTool",
    "idempotent",
]

ConfirmationPredicate: TypeAlias = Callable[[dict[str, Any], ToolContext], bool | Awaitable[bool]]
"""Decides per call whether a person must confirm it: ``(args, tool_context) -> bool``."""

_CONTEXT_PARAM = "tool_context"
# Result types that are never awaitable (exact types: a subclass may define __await__).
_PLAIN_RESULTS = frozenset({dict, list, str, int, float, bool, type(None)})
_ARG_LINE = re.compile(r"^\s{2,}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$")


def _split_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """The summary and the per-argument descriptions of a Google docstring."""
    summary: list[str] = []
    args: dict[str, str] = {}
    section = "summary"
    current: str | None = None
    for line in inspect.cleandoc(doc).splitlines():
        stripped = line.strip()
        if stripped.endswith(":") and stripped[:-1] in {"Args", "Arguments", "Parameters"}:
            section, current = "args", None
            continue
        if stripped.endswith(":") and stripped[:-1] in {"Returns", "Raises", "Yields", "Example"}:
            section = "other"
            continue
        if section == "summary":
            summary.append(line)
        elif section == "args":
            match = _ARG_LINE.match("  " + line if not line.startswith(" ") else line)
            if match and not line.startswith("      "):
                name: str = match.group(1)
                current = name
                args[name] = match.group(2).strip()
            elif current and stripped:
                args[current] = f"{args[current]} {stripped}".strip()
    return "\n".join(summary).strip(), args


def _strip_titles(schema: Any) -> Any:
    if is_object(schema):
        return {k: _strip_titles(v) for k, v in schema.items() if k != "title"}
    if is_array(schema):
        return [_strip_titles(v) for v in schema]
    return schema


class FunctionTool(BaseTool):
    """Wrap a sync or async function as a tool.

    Sync functions run on the event loop thread: keep them quick, or make
    them async. A non-dict return value reaches the model as
    ``{"result": value}``; pydantic models are dumped to dicts.
    ``idempotent=True`` lets a resumed invocation run again a call that was
    in flight when its process died (see ``BaseTool.is_idempotent``).

    ``require_confirmation=True`` pauses the invocation before every call
    until a person confirms or declines it (see ``docs/confirmation.md``);
    a ``ConfirmationPredicate`` ``(args, tool_context) -> bool`` (sync or
    async) decides per call, from the model's arguments.

    Raises:
        ToolDefinitionError: ``func``'s signature cannot be described to the
            model (see the module docstring); it names the parameter.
    """

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        idempotent: bool = False,
        require_confirmation: bool | ConfirmationPredicate = False,
    ) -> None:
        self.is_idempotent = idempotent
        self.require_confirmation = require_confirmation
        doc_summary, arg_docs = _split_docstring(func.__doc__ or "")
        super().__init__(
            name=name or str(getattr(func, "__name__", type(func).__name__)),
            description=description if description is not None else doc_summary,
        )
        self.func = func
        self._is_async = inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(
            getattr(func, "__call__", None)  # noqa: B004 - callable objects with async __call__
        )
        self._args_model, self._wants_context = self._build_args_model(func, arg_docs)
        self._arg_names = tuple(self._args_model.model_fields)  # read once, not per call
        self._declaration = FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters=_strip_titles(self._args_model.model_json_schema()),
        )

    def _build_args_model(
        self, func: Callable[..., Any], arg_docs: dict[str, str]
    ) -> tuple[type[BaseModel], bool]:
        try:
            signature = inspect.signature(func)
            hints = get_type_hints(func)
        except (TypeError, ValueError, NameError) as error:
            raise ToolDefinitionError(
                self.name, None, f"cannot read its signature: {error}"
            ) from error
        for documented in arg_docs:
            if documented not in signature.parameters:
                raise ToolDefinitionError(
                    self.name,
                    documented,
                    "the docstring describes it but the function has no such parameter",
                )
        fields: dict[str, Any] = {}
        wants_context = False
        for param in signature.parameters.values():
            if param.name == _CONTEXT_PARAM:
                wants_context = True
                continue
            fields[param.name] = (
                self._parameter_type(param, hints),
                Field(
                    ... if param.default is param.empty else param.default,
                    description=arg_docs.get(param.name),
                ),
            )
        try:
            model = create_model(
                f"{self.name}_args", __config__=ConfigDict(extra="forbid"), **fields
            )
            model.model_json_schema()
        except PydanticUserError as error:
            raise self._undescribable(fields, error) from error
        return model, wants_context

    def _parameter_type(self, param: inspect.Parameter, hints: dict[str, Any]) -> Any:
        """The type hint of ``param``, which the model fills with a JSON value."""
        if param.kind is param.VAR_POSITIONAL or param.kind is param.VAR_KEYWORD:
            star = "*" if param.kind is param.VAR_POSITIONAL else "**"
            raise ToolDefinitionError(
                self.name,
                param.name,
                f"{star}{param.name} cannot be described to the model; "
                "name each argument the model may send",
            )
        if param.name not in hints:
            raise ToolDefinitionError(
                self.name,
                param.name,
                f"it has no type hint; annotate it ({param.name}: str), "
                f"or {param.name}: Any to accept any JSON value",
            )
        return hints[param.name]

    def _undescribable(
        self, fields: dict[str, Any], error: PydanticUserError
    ) -> ToolDefinitionError:
        """The error naming the parameter whose type pydantic cannot describe."""
        for name, (annotation, _) in fields.items():
            try:
                TypeAdapter(annotation).json_schema()
            except PydanticUserError as cause:
                return ToolDefinitionError(
                    self.name,
                    name,
                    f"pydantic cannot describe its type {annotation!r} as JSON schema: "
                    f"{cause.message.splitlines()[0]}",
                )
        return ToolDefinitionError(self.name, None, f"no JSON schema for its arguments: {error}")

    @property
    def require_confirmation(self) -> bool | ConfirmationPredicate:
        """Whether calls wait for a person's confirmation: always, never, or a predicate's say."""
        return self._require_confirmation

    @require_confirmation.setter
    def require_confirmation(self, rule: bool | ConfirmationPredicate) -> None:
        if not isinstance(rule, bool) and not callable(rule):
            raise ConfigurationError(
                "require_confirmation must be a bool or a callable (args, tool_context) -> bool, "
                f"got {rule!r}"
            )
        self._require_confirmation = rule
        # Asked per call only when it may answer True (a subclass's own rule may).
        self.may_need_confirmation = rule is not False or (
            type(self).needs_confirmation is not FunctionTool.needs_confirmation
        )

    def declaration(self) -> FunctionDeclaration:
        """The declaration sent to the model."""
        return self._declaration

    async def needs_confirmation(self, *, args: dict[str, Any], tool_context: ToolContext) -> bool:
        """``require_confirmation`` for this call (the predicate asked, when it is one)."""
        rule = self.require_confirmation
        if isinstance(rule, bool):
            return rule
        verdict = rule(args, tool_context)
        if inspect.isawaitable(verdict):
            verdict = await verdict
        return bool(verdict)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Validate the model's arguments and call the function."""
        try:
            parsed = self._args_model.model_validate(args)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}"
                for e in error.errors()
            )
            raise ToolArgumentsError(
                f"invalid arguments for tool {self.name!r}: {problems}"
            ) from None
        kwargs: dict[str, Any] = {}
        for name in self._arg_names:  # a loop: a comprehension is one more frame per call
            kwargs[name] = getattr(parsed, name)
        if self._wants_context:
            kwargs[_CONTEXT_PARAM] = tool_context
        if self._is_async:
            return await self.func(**kwargs)
        # A plain function may block (I/O, a lock, a sleep): it runs in a worker
        # thread with this task's context, so the event loop (other sessions,
        # the lease renewer) goes on meanwhile.
        result = await asyncio.to_thread(self.func, **kwargs)
        # A plain JSON value (most tools' result) is never awaitable: no ABC check for it.
        if type(result) not in _PLAIN_RESULTS and inspect.isawaitable(result):
            result = await result
        return result


class LongRunningFunctionTool(FunctionTool):
    """A tool that starts work finishing later (an approval, a batch job).

    The turn does not wait: the call's id is listed in the event's
    ``long_running_tool_ids``. If the function returns None no response is
    sent now; the application sends the function response later as a new
    message.
    """

    is_long_running = True

    def __init__(
        self,
        func: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        idempotent: bool = False,
        require_confirmation: bool | ConfirmationPredicate = False,
    ) -> None:
        super().__init__(
            func,
            name=name,
            description=description,
            idempotent=idempotent,
            require_confirmation=require_confirmation,
        )
        note = (
            "NOTE: this is a long-running operation. Do not call it again if it "
            "has already returned a status."
        )
        self.description = f"{self.description}\n\n{note}".strip()
        self._declaration = self._declaration.model_copy(update={"description": self.description})


def idempotent(func: Callable[..., Any]) -> FunctionTool:
    """Decorator: ``func`` as a ``FunctionTool(func, idempotent=True)``.

    Use it on a plain function passed in ``LlmAgent(tools=[...])`` whose
    calls may safely run again after a crash::

        @idempotent
        def refund(order_id: str, tool_context: ToolContext) -> dict: ...
    """
    return FunctionTool(func, idempotent=True)
