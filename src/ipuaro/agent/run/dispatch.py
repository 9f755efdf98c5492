"""Run one turn's tool calls: read-only calls concurrently, everything else in order.

Every call ends with a result the model can read, whatever happens: an unknown tool, bad
arguments or a failing tool come back as failed results from the registry. Failures that are
not the model's doing go to the user first (the concept's error matrix): an edit conflict offers
apply / skip / regenerate; an I/O failure (``file``), a store failure (``store``) or a timed-out
command (``command``) offers retry / skip / abort. An abort leaves every unfinished call with a
``cancelled`` result so the history never holds a call without its answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ipuaro.agent.events import (
    AgentError,
    AgentEvent,
    AgentHandlers,
    ConflictChoice,
    ErrorChoice,
    ErrorKind,
    ErrorRaised,
    ToolCallEnd,
    ToolCallOutput,
    ToolCallStart,
)
from ipuaro.domain import ToolCall, ToolResult
from ipuaro.domain.edits import Conflict
from ipuaro.domain.errors import IpuaroError
from ipuaro.tools.base import Tool, ToolContext, ToolOutcome

NOT_EDITS = frozenset({"run_command", "run_tests", "git_commit"})
"""Tools that are not read-only but do not edit files (no "changed paths", no edit stats)."""

_FILE_FAILURES = (
    "OSError",
    "PermissionError",
    "FileNotFoundError",
    "IsADirectoryError",
    "NotADirectoryError",
    "TransactionFailed",
    "UnicodeDecodeError",
)
_STORE_FAILURES = ("StoreError", "StoreUnavailable", "CorruptRecord", "SchemaMismatch", "sqlite3")
log = logging.getLogger(__name__)
CANCELLED = "cancelled: the user interrupted before this call finished"


class ToolSet(Protocol):
    """The part of ``ipuaro.tools.registry.ToolRegistry`` the agent uses."""

    def specs(self, plan_mode: bool = False, window: int | None = None) -> list[dict[str, Any]]: ...
    @property
    def revision(self) -> int:
        """Changes whenever the tools offered change (an MCP server started or was lost)."""
        ...

    async def prepare(self) -> None:
        """Before each model turn: start what starts lazily (never raises)."""
        ...

    def resolve_name(self, name: str) -> str | None: ...
    def accepted_names(self) -> set[str]: ...
    def get(self, name: str) -> Tool | None: ...
    async def call_outcome(
        self, name: str, arguments: Any, ctx: ToolContext, *, plan_mode: bool = False
    ) -> ToolOutcome: ...
    async def apply_conflict(self, conflict: Conflict, ctx: ToolContext) -> ToolOutcome: ...


class ToolHooks(Protocol):
    """What runs around each call (the user's and trusted project's hooks)."""

    async def before_tool(self, call: ToolCall) -> str | None:
        """Why the call must not run (handed to the model), or None to run it."""
        ...

    async def after_tool(self, call: ToolCall, result: ToolResult) -> None: ...


@dataclass
class CallRecord:
    call: ToolCall
    result: ToolResult
    content: str
    """What the model reads (capped)."""
    duration_s: float
    truncated: bool = False
    refused: bool = False
    edit: bool = False
    """An editing tool (for session stats and the list of changes)."""
    changed: list[str] = field(default_factory=list)


@dataclass
class Dispatched:
    records: list[CallRecord]
    aborted: str | None = None
    """Why the batch stopped early (user interrupt, or abort chosen in an error dialog)."""


class AbortRequested(IpuaroError):
    """The user chose abort in an error dialog."""


def call_summary(call: ToolCall) -> str:
    """``get_function src/auth/login.ts login`` — one compact line for the chat."""
    parts = [call.name]
    for value in call.parameters.values():
        if isinstance(value, str):
            text = value.strip().splitlines()[0] if value.strip() else '""'
            parts.append(text if len(text) <= 48 else text[:47] + "…")
        elif isinstance(value, bool | int | float):
            parts.append(str(value))
        if len(parts) >= 5:
            break
    return " ".join(parts)


def failure_kind(outcome: ToolOutcome, tool_name: str) -> ErrorKind | None:
    """Which row of the error matrix a failed outcome belongs to, or None when it is the
    model's to fix (wrong arguments, missing path, failing tests)."""
    if outcome.success or outcome.refused:
        return None
    if outcome.error_kind is not None:
        return outcome.error_kind
    data = outcome.data if isinstance(outcome.data, dict) else {}
    if data.get("timedOut"):
        return "command"
    error = outcome.error or outcome.content
    if error.startswith(f"{tool_name} failed: "):
        if any(name in error for name in _STORE_FAILURES):
            return "store"
        if any(name in error for name in _FILE_FAILURES):
            return "file"
    return None


class Dispatcher:
    def __init__(
        self,
        tools: ToolSet,
        ctx: ToolContext,
        handlers: AgentHandlers,
        emit: Callable[[AgentEvent], None],
        cap: Callable[[str], tuple[str, bool]],
        *,
        plan_mode: bool = False,
        on_record: Callable[[CallRecord], None] | None = None,
        hooks: ToolHooks | None = None,
    ) -> None:
        """``on_record`` sees each result as soon as it exists (the agent saves it at once, so
        an edit's result survives a crash during a later, slow call of the same batch)."""
        self.on_record = on_record
        self.tools = tools
        self.ctx = ctx
        """The session's context; each call runs on its own copy (:meth:`ToolContext.for_call`:
        the call's id, the request's cancel event, its progress display)."""
        self._cancel: asyncio.Event | None = None
        self.handlers = handlers
        self.emit = emit
        self.cap = cap
        self.plan_mode = plan_mode
        self.hooks = hooks

    def is_read_only(self, call: ToolCall) -> bool:
        tool = self.tools.get(call.name)
        # An unknown name fails at once without side effects: safe to run with the reads.
        return tool is None or tool.read_only

    async def run(self, calls: Sequence[ToolCall], cancel: asyncio.Event) -> Dispatched:
        records: dict[str, CallRecord] = {}
        aborted: str | None = None
        self._cancel = cancel
        try:
            for group in self._groups(calls):
                if cancel.is_set():
                    break
                if len(group) > 1:
                    await _race(_run_all([self._run_one(c, records) for c in group]), cancel)
                else:
                    await _race(self._run_one(group[0], records, stream=True), cancel)
        except _Cancelled:
            aborted = "interrupted by the user"
        except AbortRequested as abort:
            aborted = str(abort)
        out: list[CallRecord] = []
        for call in calls:
            record = records.get(call.id)
            if record is None:
                result = ToolResult(call_id=call.id, success=False, error=CANCELLED)
                record = CallRecord(call, result, CANCELLED, 0.0)
                self.emit(ToolCallEnd(call, result, 0.0))
                if self.on_record is not None:
                    self.on_record(record)
            out.append(record)
        return Dispatched(out, aborted)

    def _groups(self, calls: Sequence[ToolCall]) -> list[list[ToolCall]]:
        groups: list[list[ToolCall]] = []
        for call in calls:
            if self.is_read_only(call) and groups and self.is_read_only(groups[-1][0]):
                groups[-1].append(call)
            else:
                groups.append([call])
        return groups

    async def _run_one(
        self, call: ToolCall, records: dict[str, CallRecord], *, stream: bool = False
    ) -> None:
        """``stream``: the call runs alone, so its output may go to the display as it comes
        (:class:`ToolCallOutput`); calls that run side by side get no ``progress``."""
        progress = (lambda text: self.emit(ToolCallOutput(call, text))) if stream else None
        ctx = self.ctx.for_call(call.id, cancel=self._cancel, progress=progress)
        self.emit(ToolCallStart(call, call_summary(call)))
        started = time.perf_counter()
        blocked = await self.hooks.before_tool(call) if self.hooks is not None else None
        if blocked is not None:
            outcome = ToolOutcome.fail(f"blocked by a pre_tool hook: {blocked}", refused=True)
        while blocked is None:
            try:
                outcome = await self.tools.call_outcome(
                    call.name, call.parameters, ctx, plan_mode=self.plan_mode
                )
            except Exception as error:  # the registry should not raise; if it does, the
                # call still gets a result and the rest of the batch goes on
                log.exception("tool call %s raised", call.name)
                outcome = ToolOutcome.fail(
                    f"{call.name} failed: internal error {type(error).__name__}: {error}"
                )
            if outcome.conflict is not None:
                outcome = await self._resolve_conflict(outcome.conflict, ctx)
            kind = failure_kind(outcome, self.tools.resolve_name(call.name) or call.name)
            if kind is None:
                break
            choice = await self._ask(
                AgentError(kind, f"{call_summary(call)}: {outcome.error or outcome.content}")
            )
            if choice == "retry":
                continue
            if choice == "abort":
                raise AbortRequested(f"aborted after an error: {outcome.error or outcome.content}")
            break
        duration = time.perf_counter() - started
        record = self._record(call, outcome, duration)
        records[call.id] = record
        if self.on_record is not None:
            self.on_record(record)
        self.emit(ToolCallEnd(call, record.result, duration))
        if self.hooks is not None:
            await self.hooks.after_tool(call, record.result)
        if outcome.aborted:
            raise AbortRequested(f"aborted by the user: {outcome.error or outcome.content}")

    async def _ask(self, error: AgentError) -> ErrorChoice:
        choices: tuple[ErrorChoice, ...] = ("retry", "skip", "abort")
        self.emit(ErrorRaised(error, choices))
        return await self.handlers.on_error(error, choices)

    async def _resolve_conflict(self, conflict: Conflict, ctx: ToolContext) -> ToolOutcome:
        choices: tuple[ConflictChoice, ...] = (
            ("apply", "skip", "regenerate") if conflict.rebased else ("skip", "regenerate")
        )
        self.emit(ErrorRaised(AgentError("conflict", conflict.message), choices))
        choice = await self.handlers.on_conflict(conflict.path, conflict.description, choices)
        if choice == "apply":
            return await self.tools.apply_conflict(conflict, ctx)
        if choice == "skip":
            # Headless answers "skip" by policy, nobody is asked: say what happened (the file
            # changed, which lines to re-read), never that a user decided.
            return ToolOutcome.fail(
                f"{conflict.message} This edit was skipped and not applied; redo it against the "
                "current text only if it is still needed.",
                refused=True,
            )
        return ToolOutcome.fail(
            f"{conflict.path} changed since you read it ({conflict.message}). Read the file "
            "again and redo the edit against its current content."
        )

    def _record(self, call: ToolCall, outcome: ToolOutcome, duration: float) -> CallRecord:
        from ipuaro.tools.registry import to_result

        content, truncated = self.cap(outcome.content if outcome.success else _error_text(outcome))
        result = to_result(outcome, call.id)
        result.truncated = truncated
        tool = self.tools.get(call.name)
        edit = (
            tool is not None
            and not tool.read_only
            and tool.name not in NOT_EDITS
            and not getattr(tool, "executes", False)  # a script tool runs a program
            and getattr(tool, "edits_files", True)  # an MCP tool runs, it edits nothing here
        )
        changed: list[str] = []
        if edit and outcome.success:
            changed = list(outcome.changed)
        return CallRecord(
            call=call,
            result=result,
            content=content,
            duration_s=duration,
            truncated=truncated,
            refused=outcome.refused,
            edit=edit,
            changed=changed,
        )


def _error_text(outcome: ToolOutcome) -> str:
    text = outcome.error or outcome.content or "the tool failed without a message"
    if outcome.refused:  # information, not the end: the model can route around it
        reason = text.removeprefix("refused: ").rstrip(". ")
        return f"refused: {reason}; choose another way or finish"
    return text if text.lower().startswith(("error", "refused")) else f"Error: {text}"


class _Cancelled(IpuaroError):
    pass


async def _run_all(works: Sequence[Coroutine[Any, Any, None]]) -> None:
    """Run ``works`` concurrently. Unlike ``asyncio.gather``, the first failure (an abort
    chosen in a dialog) or a cancellation from outside cancels the siblings and waits for
    them, so no call keeps running after its batch has ended."""
    tasks = [asyncio.ensure_future(work) for work in works]
    try:
        _, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    except BaseException:
        await _cancel_all(tasks)
        raise
    await _cancel_all(pending)
    for task in tasks:
        error = task.exception() if task.done() and not task.cancelled() else None
        if error is not None:
            raise error


async def _cancel_all(tasks: Iterable[asyncio.Future[None]]) -> None:
    waiting = [task for task in tasks if not task.done()]
    for task in waiting:
        task.cancel()
    if waiting:
        await asyncio.wait(waiting)


async def _race(work: Awaitable[Any], cancel: asyncio.Event) -> None:
    """Run ``work`` until it ends or ``cancel`` is set (then cancel it and raise _Cancelled)."""
    task = asyncio.ensure_future(work)
    waiter = asyncio.ensure_future(cancel.wait())
    try:
        done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
    if task in done:
        task.result()
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await task
    raise _Cancelled
