"""``ipuaro run -p "…"``: the agent without a terminal UI, for scripts and CI.

It never waits for input. Edits are applied only with ``--auto-apply``; commands the policy
would ask about run only with ``--allow-commands``; a ``memory_patch`` (the ``remember`` tool, a
plan) is written only with ``--remember``; anything else that needs a human is refused.
A refusal is information, not the end: the model gets it as the tool's result ("refused:
REASON; choose another way or finish") and goes on; the result lists every refusal with the
flag that would have allowed it. Errors are answered by ``--on-error`` (default abort); a loop
is stopped.

Exit codes: 0 done · 1 error (model server, store, aborted; with ``--plan``: no valid plan) ·
3 refused: the run ended without an answer because of refusals · 4 a limit (``--max-turns``,
the loop guard).

``--plan``: plan mode (``ipuaro.core.plan_flow``); the plan is printed as text, or, with
``--output json``, the validated plan object is the result's ``plan`` (null when there is none).

``--apply`` applies the session's stored plan instead of sending a prompt: 0 applied (or a
``NO_CHANGES:`` plan) · 1 not applied: no stored plan, a check failed (the ``ERR_…`` codes), a
file changed since it was read, a write failed · 3 refused: it needs ``--auto-apply`` (the diff
it would write is printed).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TextIO

from pydantic import BaseModel
from pydantic.alias_generators import to_camel

from ipuaro.config.schema import Config, LlmConfig
from ipuaro.core.commands import is_command
from ipuaro.core.decisions import (
    ApplyMemory,
    ConfirmChange,
    LargeProject,
    LoopDetected,
    Question,
    RecoverError,
    ResolveConflict,
    TrustProject,
)
from ipuaro.core.events import (
    AgentEnd,
    AgentError,
    EndReason,
    ErrorChoice,
    ErrorRaised,
    Event,
    ExtensionWarning,
    MessageDelta,
    MessageEnd,
    PlanContextRound,
    PlanUpdated,
    ToolCallEnd,
    ToolCallOutput,
    ToolCallStart,
)
from ipuaro.domain import MessageStats

if TYPE_CHECKING:
    from ipuaro.core.workspace import Workspace

OutputMode = Literal["text", "json", "stream-json"]

EXIT_DONE = 0
EXIT_ERROR = 1
EXIT_REFUSED = 3
EXIT_LIMIT = 4
EXIT_CODES: dict[EndReason, int] = {
    "done": EXIT_DONE,
    "error": EXIT_ERROR,
    "aborted": EXIT_ERROR,
    "refused": EXIT_REFUSED,
    "limit": EXIT_LIMIT,
}
MAX_RETRIES = 2
"""``--on-error retry`` retries one failing step at most this many times, then aborts."""
COMMAND_TOOLS = frozenset({"run_command", "run_tests"})
"""Tools whose "ask" verdict --allow-commands lifts (a deny rule stays)."""
MEMORY_TOOLS = frozenset({"remember"})
"""Tools whose memory changes --remember lets through."""


@dataclass(frozen=True)
class HeadlessOptions:
    prompt: str
    output: OutputMode = "text"
    auto_apply: bool = False
    allow_commands: bool = False
    on_error: ErrorChoice = "abort"
    session_id: str | None = None
    new_session: bool = False
    evaluate: bool = False
    """``--eval``: check the answer's citations against the index, then have the model
    critique it (without a prompt: the session's last answer)."""
    trust_project: bool = False
    """``--trust-project``: the project's script tools and hooks run (and the trust is
    remembered, as a yes in the TUI would be); without it they stay off."""
    remember: bool = False
    """``--remember``: write the memory changes the model proposes (else they are refused)."""
    plan: bool = False
    """``--plan``: plan mode; the result carries the validated plan object."""
    apply: bool = False
    """``--apply``: apply the session's stored plan (``prompt`` is a note kept with it);
    written only with ``auto_apply``, else refused with the diff it would write."""


class HeadlessDecider:
    """Answers every question by policy, never by asking: errors by ``--on-error`` (a retry
    at most ``MAX_RETRIES`` times per failure), a conflict applied only with ``--auto-apply``,
    a loop stopped, a large project indexed, a memory patch written only with ``--remember``.
    Edits and commands are not asked at all: the workspace runs unattended (``--auto-apply`` /
    ``--allow-commands`` lift the refusal)."""

    def __init__(
        self,
        on_error: ErrorChoice,
        auto_apply: bool,
        trust_project: bool = False,
        remember: bool = False,
    ) -> None:
        self.on_error_choice = on_error
        self.auto_apply = auto_apply
        self.trust_project = trust_project
        self.remember = remember
        self.errors: list[AgentError] = []
        self._retries: dict[str, int] = {}

    async def decide(self, question: Question) -> str:
        if isinstance(question, RecoverError):
            return self._on_error(question)
        if isinstance(question, ResolveConflict):
            # Applying onto a changed file is what --auto-apply asked for; without it, nobody
            # agreed.
            return "apply" if self.auto_apply else "skip"
        if isinstance(question, LoopDetected):
            return "stop"
        if isinstance(question, LargeProject):
            return "continue"
        if isinstance(question, ConfirmChange):
            return "apply" if self.auto_apply else "reject"
        if isinstance(question, TrustProject):
            return "trust" if self.trust_project else question.safe
        if isinstance(question, ApplyMemory):
            return "apply" if self.remember else "reject"
        return question.safe

    def _on_error(self, question: RecoverError) -> str:
        error = question.error
        self.errors.append(error)
        choice = self.on_error_choice if self.on_error_choice in question.values() else "abort"
        if choice == "retry":
            key = f"{error.kind}:{error.message}"
            self._retries[key] = self._retries.get(key, 0) + 1
            if self._retries[key] > MAX_RETRIES:
                return "abort"
        return choice


def server_hint(llm: LlmConfig) -> str:
    """Exactly how to get a model server running, for the one-line 'not reachable' message."""
    if llm.provider == "ollama":
        url = llm.base_url or "http://localhost:11434"
        return (
            f"cannot reach the Ollama server at {url}. Start it with `ollama serve` and get the "
            f"model with `ollama pull {llm.model}` (or set llm.baseUrl / IPUARO_LLM__BASE_URL "
            "to a running server)."
        )
    url = llm.base_url or "http://localhost:8080/v1"
    return (
        f"cannot reach the OpenAI-compatible server at {url}. Start one there, e.g. "
        f"`llama-server -m MODEL.gguf --port 8080` (llama.cpp) or LM Studio's local server "
        f"with {llm.model} loaded, or set llm.baseUrl / IPUARO_LLM__BASE_URL to a running server."
    )


# --- output ---------------------------------------------------------------------------------


def to_jsonable(value: Any, *, camel: bool = False) -> Any:
    """An event as JSON values. Domain models are dumped by their camelCase aliases; with
    ``camel`` the events' own dataclass fields are camelCased too (``sessionId``,
    ``toolCalls``), so ``--output stream-json`` speaks one convention. Dict keys are never
    renamed: they are data — a tool call's ``parameters`` exactly as the model wrote them, a
    tool's result. Without ``camel`` the field names stay Python's (the golden traces record
    that form)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_none=True)
    if is_dataclass(value) and not isinstance(value, type):
        name = to_camel if camel else str
        return {
            name(f.name): to_jsonable(getattr(value, f.name), camel=camel) for f in fields(value)
        }
    if isinstance(value, list | tuple):
        return [to_jsonable(v, camel=camel) for v in value]
    if isinstance(value, dict):
        return {str(k): to_jsonable(v, camel=camel) for k, v in value.items()}
    return value


@dataclass
class RunReport:
    refusals: list[str] = field(default_factory=list)
    tool_errors: list[str] = field(default_factory=list)
    plan: dict[str, Any] | None = None
    """The validated plan object of a plan request (``PlanUpdated.document``)."""
    plan_schema: dict[str, Any] | None = None
    planning: bool = False
    """A ``--plan`` run: the result has ``plan`` (null when no valid plan came)."""
    checks: list[dict[str, Any]] = field(default_factory=list)
    """What applied edits broke (the after-edit check, ``EditCheckReport``), in call order."""


class Printer:
    def __init__(self, mode: OutputMode, out: TextIO, err: TextIO) -> None:
        self.mode = mode
        self.out = out
        self.err = err
        self._line_open = False

    def __call__(self, event: Event) -> None:
        if isinstance(event, ToolCallOutput):
            return  # live output is for screens; the result event carries the final output
        if self.mode == "stream-json":
            self.out.write(json.dumps(to_jsonable(event, camel=True), ensure_ascii=False) + "\n")
            self.out.flush()
            return
        if self.mode != "text":
            return
        if isinstance(event, MessageDelta):
            self.out.write(event.text)
            self.out.flush()
            self._line_open = not event.text.endswith("\n")
        elif isinstance(event, MessageEnd) and self._line_open:
            self.out.write("\n")
            self._line_open = False
        elif isinstance(event, ToolCallStart):
            self.err.write(f"→ {event.summary}\n")
        elif isinstance(event, ToolCallEnd) and not event.result.success:
            first = (event.result.error or "failed").strip().splitlines()[0][:200]
            self.err.write(f"  ✗ {first}\n")
        elif isinstance(event, ErrorRaised):
            self.err.write(f"ipuaro: {event.error.kind} error: {event.error.message}\n")
        elif isinstance(event, ExtensionWarning):
            self.err.write(f"ipuaro: warning: {event.message}\n")
        elif isinstance(event, PlanContextRound):
            what = "auto-context" if event.number == 0 else f"context round {event.number}"
            self.err.write(f"→ {what}: {', '.join(event.blocks) or 'nothing'}\n")
            for cut in event.cuts:
                self.err.write(f"  ✂ {cut}\n")

    def final(self, result: dict[str, Any]) -> None:
        if self.mode in ("json", "stream-json"):
            payload = result if self.mode == "json" else {"type": "result", **result}
            indent = 2 if self.mode == "json" else None
            self.out.write(json.dumps(payload, ensure_ascii=False, indent=indent) + "\n")
            self.out.flush()
            return
        stats = result["stats"]
        self.err.write(
            f"⏱ {stats['timeMs'] / 1000:.1f}s │ {stats['tokensIn']:,} in / "
            f"{stats['tokensOut']:,} out │ {_count(stats['toolCalls'], 'tool call')}\n"
        )
        if result["reason"] != "done":
            self.err.write(f"ipuaro: stopped ({result['reason']}): {result['detail']}\n")


def final_reason(end: AgentEnd, report: RunReport) -> tuple[EndReason, str | None]:
    """``refused`` only when the run ended without an answer because of refusals: no answer
    at all, or stopped by a limit (the model kept trying what was refused)."""
    if report.refusals and (
        (end.reason == "done" and not end.answer.strip()) or end.reason == "limit"
    ):
        detail = "; ".join(report.refusals)
        return "refused", f"ended without an answer after refusals: {detail}"
    return end.reason, end.detail


def result_payload(
    end: AgentEnd, session_id: str, model: str, window: int, report: RunReport
) -> dict[str, Any]:
    reason, detail = final_reason(end, report)
    return {
        "answer": end.answer,
        "reason": reason,
        "exitCode": EXIT_CODES[reason],
        "detail": detail,
        "sessionId": session_id,
        "model": model,
        "contextWindow": window,
        "stats": {
            "timeMs": end.stats.time_ms,
            "tokensIn": end.stats.tokens_in,
            "tokensOut": end.stats.tokens_out,
            "toolCalls": end.stats.tool_calls,
        },
        "changes": list(end.changes),
        "refusalCount": len(report.refusals),
        "refusals": report.refusals,
        "toolErrors": report.tool_errors,
        "checks": report.checks,
        **({"plan": report.plan, "planSchema": report.plan_schema} if report.planning else {}),
    }


# --- the run --------------------------------------------------------------------------------


def _hint(event: ToolCallEnd) -> str:
    """The flag that would have allowed this refusal (none for a deny rule or a protected
    path, which no flag lifts)."""
    if event.result.diff:
        return " (allow edits with --auto-apply)"  # only a refused edit has a diff here
    if event.call.name in MEMORY_TOOLS:
        return " (allow memory changes with --remember)"
    error = event.result.error or ""
    if event.call.name in COMMAND_TOOLS and not error.startswith("command refused by policy"):
        return " (allow commands with --allow-commands)"
    return ""


def _refusal_watcher(report: RunReport) -> Callable[[Event], None]:
    """Counts refusals and tool errors for the result; the run goes on (the model read the
    refusal as the tool's result)."""

    def watch(event: Event) -> None:
        if isinstance(event, PlanUpdated):
            report.plan = event.document
            report.plan_schema = {"version": event.schema_version, "hash": event.schema_hash}
            return
        if isinstance(event, ToolCallEnd) and event.result.check is not None:
            report.checks.append(
                {"callId": event.call.id, "tool": event.call.name}
                | event.result.check.model_dump(mode="json", by_alias=True)
            )
        if not isinstance(event, ToolCallEnd) or event.result.success:
            return
        message = (event.result.error or "").strip().splitlines()[0] if event.result.error else ""
        if event.result.refused:
            report.refusals.append(f"{event.call.name}: {message}{_hint(event)}")
        else:
            report.tool_errors.append(f"{event.call.name}: {message}")

    return watch


def _failed_before_start(
    message: str, config: Config, mode: OutputMode, out: TextIO, err: TextIO
) -> int:
    """The one-line message on stderr; with --output json|stream-json also the result object,
    so a program reading stdout gets its answer even when the agent never started."""
    err.write(f"ipuaro: {message}\n")
    if mode != "text":
        Printer(mode, out, err).final(
            {
                "answer": "",
                "reason": "error",
                "exitCode": EXIT_ERROR,
                "detail": message,
                "sessionId": None,
                "model": config.llm.model,
                "contextWindow": None,
                "stats": {"timeMs": 0, "tokensIn": 0, "tokensOut": 0, "toolCalls": 0},
                "changes": [],
                "refusalCount": 0,
                "refusals": [],
                "toolErrors": [],
            }
        )
    return EXIT_ERROR


async def run_headless(
    root: Path,
    config: Config,
    options: HeadlessOptions,
    out: TextIO | None = None,
    err: TextIO | None = None,
) -> int:
    from ipuaro.core.checks import model_server_reachable
    from ipuaro.core.errors import IndexFailed, OpenError
    from ipuaro.core.workspace import Workspace, WorkspaceOptions

    out = out or sys.stdout
    err = err or sys.stderr
    if not await model_server_reachable(config):
        return _failed_before_start(server_hint(config.llm), config, options.output, out, err)
    decider = HeadlessDecider(
        options.on_error, options.auto_apply, options.trust_project, options.remember
    )
    command = is_command(options.prompt)
    try:
        workspace = await Workspace.open(
            root,
            config,
            decider,
            WorkspaceOptions(
                auto_apply=options.auto_apply,
                allow_commands=options.allow_commands,
                session_id=options.session_id,
                new_session=options.new_session,
                unattended=True,
                # A slash command is not the request: its expansion is, once it runs; --apply
                # has no request (its -p is a note kept with the change).
                prompt=None if command or options.apply else options.prompt or None,
            ),
        )
    except OpenError as error:
        return _failed_before_start(str(error), config, options.output, out, err)
    try:
        for warning in workspace.warnings:
            err.write(f"ipuaro: warning: {warning}\n")
        try:
            await workspace.reindex()
        except IndexFailed as error:
            message = f"indexing failed: {error}"
            return _failed_before_start(message, config, options.output, out, err)
        report = RunReport(planning=options.plan)
        printer = Printer(options.output, out, err)
        workspace.subscribe(printer)
        workspace.subscribe(_refusal_watcher(report))
        applied: dict[str, Any] | None = None
        if options.apply:
            from ipuaro.core.plan_apply import apply_as_answer

            end, outcome = await apply_as_answer(workspace, "ipuaro run --apply", options.prompt)
            applied = outcome.as_json()
        else:
            end = await _run(workspace, options, err)
        window = workspace.window.tokens
        payload = result_payload(end, workspace.session_id, workspace.model, window, report)
        if applied is not None:
            payload["apply"] = applied
        printer.final(payload)
        return int(payload["exitCode"])
    finally:
        await workspace.aclose()


async def _run(workspace: Workspace, options: HeadlessOptions, err: TextIO) -> AgentEnd:
    """The prompt; with ``--eval`` then the citation check of its answer and the critique."""
    end: AgentEnd | None = None
    if options.plan:
        workspace.set_plan_mode(True)
    prompt = options.prompt
    if is_command(prompt):
        expanded = await _command_prompt(workspace, prompt, err)
        if isinstance(expanded, AgentEnd):
            return expanded
        prompt = expanded
    if prompt.strip():
        end = await workspace.send(prompt)
        if end.reason != "done" or not options.evaluate:
            return end
    evaluation = await workspace.evaluate()
    if evaluation is None:
        return AgentEnd(
            answer="",
            reason="error",
            stats=MessageStats(),
            detail="there is no answer to evaluate yet (pass -p, or --resume a session with one)",
        )
    err.write(evaluation.evidence() + "\n")
    return await workspace.send(evaluation.prompt)


async def _command_prompt(workspace: Workspace, text: str, err: TextIO) -> str | AgentEnd:
    """What ``-p "/NAME args"`` sends: a custom command's expanded template. A command that
    only answers (``/help``) ends the run with its text; an unknown one is an error."""
    from ipuaro.core.commands import CommandError, parse_command, run_operation

    try:
        command = parse_command(text)
    except CommandError as error:
        return AgentEnd(answer="", reason="error", stats=MessageStats(), detail=str(error))
    if command.spec.operation is None:
        return text  # a TUI command: the text goes to the model as it always has
    reply = await run_operation(workspace, command)
    if reply.kind == "error":
        return AgentEnd(answer="", reason="error", stats=MessageStats(), detail=reply.text)
    if reply.prompt is None:
        return AgentEnd(answer=reply.text, reason="done", stats=MessageStats())
    err.write(f"→ /{command.name}: sending its template ({len(reply.prompt):,} characters)\n")
    return reply.prompt


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" if number == 1 else f"{number:,} {noun}s"
