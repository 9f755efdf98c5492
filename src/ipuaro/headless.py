"""``ipuaro run -p "…"``: the agent without a terminal UI, for scripts and CI.

It never waits for input. Edits are applied only with ``--auto-apply``; commands the policy
would ask about run only with ``--allow-commands``; a ``memory_patch`` (the ``remember`` tool, a
plan) is written only with ``--remember``; anything else that needs a human is refused.
A refusal is information, not the end: the model gets it as the tool's result ("refused:
REASON; choose another way or finish") and goes on; the result lists every refusal with the
flag that would have allowed it. Errors are answered by ``--on-error`` (default abort); a loop
is stopped.

Exit codes: 0 done · 1 error (model server, store; with ``--plan``: no valid plan) ·
3 refused: the run ended without an answer because of refusals · 4 a limit (``--max-turns``,
the loop guard) · 130 interrupted (Ctrl+C): the result is still printed, ``reason: "aborted"``.

``--plan``: plan mode (``ipuaro.core.plan_flow``); the plan is printed as text, or, with
``--output json``, the validated plan object is the result's ``plan`` (null when there is none).
A plan with nothing to apply (``ERR_EMPTY_PLAN``: no actions, no patch, no ``NO_CHANGES:``
summary), which ``--apply`` always rejects, is no valid plan: exit 1, ``plan`` null, the
``ERR_…`` line in ``detail``.

``--apply`` applies the session's stored plan instead of sending a prompt: 0 applied (or a
``NO_CHANGES:`` plan) · 1 not applied: no stored plan, a check failed (the ``ERR_…`` codes), a
file changed since it was read, a write failed · 3 refused: it needs ``--auto-apply`` (the diff
it would write is printed).
"""

from __future__ import annotations

import asyncio
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from ipuaro.config.schema import Config
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
from ipuaro.core.events import AgentEnd, AgentError, ErrorChoice
from ipuaro.domain import MessageStats
from ipuaro.headless_report import (
    EXIT_ABORTED,
    EXIT_CODES,
    EXIT_DONE,
    EXIT_ERROR,
    EXIT_LIMIT,
    EXIT_REFUSED,
    OutputMode,
    Printer,
    RunReport,
    failed_before_start,
    refusal_watcher,
    result_payload,
    to_jsonable,
)

if TYPE_CHECKING:
    from ipuaro.core.interrupt import CtrlC
    from ipuaro.core.workspace import Workspace

__all__ = [
    "EXIT_ABORTED",
    "EXIT_CODES",
    "EXIT_DONE",
    "EXIT_ERROR",
    "EXIT_LIMIT",
    "EXIT_REFUSED",
    "HeadlessDecider",
    "HeadlessOptions",
    "run_headless",
    "to_jsonable",
]

MAX_RETRIES = 2
"""``--on-error retry`` retries one failing step at most this many times, then aborts."""


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


async def run_headless(
    root: Path,
    config: Config,
    options: HeadlessOptions,
    out: TextIO | None = None,
    err: TextIO | None = None,
    run: HeadlessRun | None = None,
) -> int:
    """One headless run; its exit code. ``run`` (the caller's, or a new one) tells how far it
    got: once ``run.exit_code`` is set the result is printed, and a Ctrl+C after that only
    hurries the end — it never prints a second result."""
    from ipuaro.core.interrupt import CtrlC

    out = out or sys.stdout
    err = err or sys.stderr
    run = run or HeadlessRun()
    with CtrlC() as ctrl_c:
        try:
            run.exit_code = await _headless(root, config, options, out, err, ctrl_c, run)
            return run.exit_code
        except asyncio.CancelledError:
            if not ctrl_c.pressed:
                raise
            ctrl_c.settle()
            if run.exit_code is not None:
                return run.exit_code  # pressed while closing: the result is out, and stands
            if run.workspace is not None and not run.workspace.closed:
                run.session_id = run.workspace.session_id
                await run.workspace.aclose()
            message = "interrupted by the user (Ctrl+C)"
            run.exit_code = failed_before_start(message, config, options.output, out, err,
                                                "aborted", run.session_id)  # fmt: skip
            return run.exit_code


@dataclass
class HeadlessRun:
    """How far a run got, for a Ctrl+C that cancels it: the workspace (closed on the way out,
    so its session is noted while open) and the exit code once the result is printed."""

    workspace: Workspace | None = None
    session_id: str | None = None
    exit_code: int | None = None


async def _headless(
    root: Path,
    config: Config,
    options: HeadlessOptions,
    out: TextIO,
    err: TextIO,
    ctrl_c: CtrlC,
    run: HeadlessRun,
) -> int:
    from ipuaro.core.checks import model_server_reachable
    from ipuaro.core.errors import IndexFailed, OpenError
    from ipuaro.core.server_advice import cannot_reach
    from ipuaro.core.workspace import Workspace, WorkspaceOptions

    if not await model_server_reachable(config):
        return failed_before_start(cannot_reach(config.llm), config, options.output, out, err)
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
        return failed_before_start(str(error), config, options.output, out, err)
    run.workspace, run.session_id = workspace, workspace.session_id
    try:
        for warning in workspace.warnings:
            err.write(f"ipuaro: warning: {warning}\n")
        try:
            await workspace.reindex()
        except IndexFailed as error:
            message = f"indexing failed: {error}"
            run.exit_code = failed_before_start(message, config, options.output, out, err)
            return run.exit_code
        report = RunReport(planning=options.plan)
        printer = Printer(options.output, out, err)
        workspace.subscribe(printer)
        workspace.subscribe(refusal_watcher(report))
        applied: dict[str, Any] | None = None
        ctrl_c.request(workspace)
        if options.apply:
            from ipuaro.core.plan_apply import apply_as_answer

            end, outcome = await apply_as_answer(workspace, "ipuaro run --apply", options.prompt)
            applied = outcome.as_json()
        else:
            end = await _run(workspace, options, out, err)
            if options.plan and end.reason == "done" and report.plan is not None:
                end = await _check_plan(workspace, end, report)
        ctrl_c.request(None)
        window = workspace.window.tokens
        payload = result_payload(end, workspace.session_id, workspace.model, window, report)
        if applied is not None:
            payload["apply"] = applied
            codes = [line for line in end.answer.splitlines() if line.startswith("ERR_")]
            if codes:  # the whole refusal, not its heading line
                payload["detail"] = "\n".join(codes)
        printer.final(payload)
        run.exit_code = int(payload["exitCode"])
        return run.exit_code
    finally:
        if not workspace.closed:
            run.session_id = workspace.session_id
            await workspace.aclose()


async def _check_plan(workspace: Workspace, end: AgentEnd, report: RunReport) -> AgentEnd:
    """A plan ``--apply`` always rejects (``ERR_EMPTY_PLAN``) is not a valid plan: exit 1 with
    the code, as for a plan that never came."""
    from ipuaro.core.plan_apply import check_stored_plan

    refusal = await check_stored_plan(workspace)
    # Only a plan with nothing to apply is refused here: the other checks (a file the plan did
    # not read, a protected path) belong to the plan validator, which asks the model again.
    if refusal is None or "ERR_EMPTY_PLAN" not in refusal.codes:
        return end
    report.plan = None
    detail = " ".join(refusal.message.splitlines()[1:]) or refusal.message
    return AgentEnd(end.answer, "error", end.stats, end.changes, detail=detail)


async def _run(
    workspace: Workspace, options: HeadlessOptions, out: TextIO, err: TextIO
) -> AgentEnd:
    """The prompt; with ``--eval`` then the citation check of its answer and the critique."""
    end: AgentEnd | None = None
    if options.plan:
        workspace.set_plan_mode(True)
    prompt = options.prompt
    if is_command(prompt):
        expanded = await _command_prompt(workspace, prompt, err)
        if isinstance(expanded, AgentEnd):
            if options.output == "text" and expanded.answer:  # json carries it in the result
                out.write(expanded.answer.rstrip("\n") + "\n")  # nothing streamed it
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
        command = parse_command(text, workspace.commands)
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
