"""Apply the stored plan: one confirmed multi-file diff, one transaction, one undo step.

Triggers, every front end alike: after a plan is stored, a message that is only ``ok``,
``ок``, ``apply``, ``применяй`` or ``да`` (any case, trimmed); ``apply: NOTE`` (a note kept with
the change); the ``/apply [NOTE]`` command; ``ipuaro run --apply`` (headless). Without a stored
plan the words go to the model as usual, and the prefix, the command and ``run --apply`` say
there is no plan (``ERR_NO_PLAN``).

:meth:`Workspace.apply_plan` checks the plan (``planning.apply.prepare``: every error code of
``planning.actions``), asks once through the front end's decider — the request holds the whole
diff, the risks with the index's "may break" list, and every file so the TUI can reject some —
writes the change as one transaction with one undo step and refreshes the index, then offers
``commands_to_run`` (or the remembered ``default_commands`` when the plan names none) one by one
through the command policy, as ``run_command`` runs them. Unattended (headless) it applies only
with ``--auto-apply``, and commands run as the policy and ``--allow-commands`` say.

The change is written by ``edits.EditEngine.commit`` like every edit (one write path: the
confirmation, the stale check, the undo step, the transaction, the re-index); this module
builds the plan's changeset and reports what happened in the plan's words (``ERR_…`` codes).
It receives what it uses (:class:`~ipuaro.core.plan_flow.PlanPorts`: the services, the event
emitter, the task runner), never the workspace.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from ipuaro.core.plan_flow import PlanPorts, forget_plan, stored_plan
from ipuaro.core.replies import Reply, ReplyKind

if TYPE_CHECKING:
    from ipuaro.core.events import AgentEnd, EndReason
    from ipuaro.core.wiring import AppContext
    from ipuaro.domain.edits import ConfirmCallback, ConfirmRequest
    from ipuaro.domain.plan import PlanRecord
    from ipuaro.edits.engine import EditResult
    from ipuaro.planning.apply import PreparedApply

log = logging.getLogger(__name__)

APPLY_WORDS = frozenset({"ok", "ок", "apply", "применяй", "да"})
APPLY_PREFIX = "apply:"
ApplyStatus = Literal[
    "applied", "no_changes", "invalid", "rejected", "refused", "stale", "failed", "no_plan"
]
_REASONS: dict[str, EndReason] = {
    "applied": "done",
    "no_changes": "done",
    "rejected": "refused",
    "refused": "refused",
}
_REPLY_KINDS: dict[str, ReplyKind] = {
    "applied": "success",
    "no_changes": "info",
    "rejected": "warning",
    "refused": "warning",
}
NO_PLAN = (
    "ERR_NO_PLAN: there is no stored plan to apply in this session; make one first "
    "(/plan, or a request starting with 'plan:'), then say ok"
)
NEEDS_FLAG = (
    "the plan's change needs the user's confirmation and nobody can be asked in this run "
    "(apply it with --auto-apply)"
)


@dataclass(frozen=True)
class CommandRun:
    command: str
    ran: bool
    success: bool
    output: str
    """What the command printed (capped), or why it did not run."""


@dataclass(frozen=True)
class ApplyReport:
    status: ApplyStatus
    message: str
    """The whole account for the user and the model (errors one per line)."""
    codes: tuple[str, ...] = ()
    """Error codes (``ERR_…``) when the plan was not applied because of them."""
    files: tuple[str, ...] = ()
    """Files written (or that would have been), in order."""
    folders: tuple[str, ...] = ()
    diff: str = ""
    risks: tuple[str, ...] = ()
    commands: tuple[CommandRun, ...] = ()
    note: str = ""

    @property
    def applied(self) -> bool:
        return self.status == "applied"

    @property
    def reason(self) -> EndReason:
        return _REASONS.get(self.status, "error")

    def as_json(self) -> dict[str, object]:
        """For ``ipuaro run --apply --output json``."""
        return {
            "status": self.status,
            "codes": list(self.codes),
            "files": list(self.files),
            "folders": list(self.folders),
            "risks": list(self.risks),
            "commands": [
                {"command": c.command, "ran": c.ran, "success": c.success, "output": c.output}
                for c in self.commands
            ],
            "note": self.note,
            "diff": self.diff,
        }

    def text(self) -> str:
        parts = [self.message]
        if self.status == "refused" and self.diff:
            parts.append(self.diff.rstrip("\n"))  # what would have been applied
        if self.risks:
            parts.append("Risks:\n" + "\n".join(f"- {risk}" for risk in self.risks))
        for run in self.commands:
            verdict = "ran" if run.ran else "not run"
            if run.ran:
                verdict += ", ok" if run.success else ", failed"
            parts.append(f"$ {run.command} ({verdict})\n{run.output}".rstrip())
        return "\n\n".join(part for part in parts if part)


def apply_trigger(text: str) -> str | None:
    """The note (``""`` for a bare word) when ``text`` asks to apply the stored plan."""
    stripped = text.strip()
    if stripped.casefold() in APPLY_WORDS:
        return ""
    if stripped[: len(APPLY_PREFIX)].casefold() == APPLY_PREFIX:
        return stripped[len(APPLY_PREFIX) :].strip()
    return None


class PlanApplier(Protocol):
    """What ``/apply`` needs: the workspace's apply (a task of its runner)."""

    async def apply_plan(
        self,
        record: PlanRecord | None = None,
        note: str = "",
        default_commands: tuple[str, ...] = (),
    ) -> ApplyReport: ...


class HasPlanPorts(Protocol):
    @property
    def plan_ports(self) -> PlanPorts: ...


class HasServices(Protocol):
    @property
    def ctx(self) -> AppContext: ...


async def route_apply(ports: PlanPorts, text: str) -> AgentEnd | None:
    """``Workspace.send``'s first step: run apply for a trigger (a bare word only when a plan
    is stored), drawn as the answer to ``text`` through the usual events; None otherwise."""
    note = apply_trigger(text)
    if note is None:
        return None
    bare = not text.strip().casefold().startswith(APPLY_PREFIX)
    if bare and stored_plan(ports.services()) is None:
        return None
    return (await _apply_task(ports, text, note))[0]


async def apply_as_answer(
    workspace: HasPlanPorts, text: str, note: str
) -> tuple[AgentEnd, ApplyReport]:
    """Apply the stored plan as the answer to the user's ``text`` (``ipuaro run --apply``; the
    report itself for its JSON): the exchange is kept in the session (so the model knows what
    was applied) and drawn like any answer."""
    return await _apply_task(workspace.plan_ports, text, note)


async def _apply_task(ports: PlanPorts, text: str, note: str) -> tuple[AgentEnd, ApplyReport]:
    """A task of the runner: ``busy`` from the start to the end, confirmation included."""
    return await ports.tasks.run("apply", text, lambda: _apply_as_answer(ports, text, note))


async def _apply_as_answer(ports: PlanPorts, text: str, note: str) -> tuple[AgentEnd, ApplyReport]:
    from ipuaro.agent.context.history import assistant_message, user_message
    from ipuaro.core.events import AgentEnd, AgentStart, MessageDelta, MessageEnd
    from ipuaro.domain import MessageStats

    ctx = ports.services()
    ports.emit(AgentStart(ctx.session.id, text))
    try:
        report = await apply_plan(ports, None, note, ())
    except Exception as error:  # a bug must not leave a front end waiting for the end
        log.exception("apply failed")
        report = ApplyReport("failed", f"applying failed: {type(error).__name__}: {error}")
    answer = report.text()
    ports.emit(MessageDelta(answer))
    ports.emit(MessageEnd(answer))
    session = ctx.session
    session.history.append(user_message(text))
    session.history.append(assistant_message(answer, []))  # saved when the task ends
    end = AgentEnd(
        answer=answer,
        reason=report.reason,
        stats=MessageStats(),
        changes=report.files if report.applied else (),
        detail=None if report.reason == "done" else report.message.splitlines()[0],
    )
    ports.emit(end)
    return end, report


async def apply_command(workspace: PlanApplier, args: tuple[str, ...]) -> Reply:
    """``/apply [NOTE]``."""
    report = await workspace.apply_plan(note=" ".join(args))
    return Reply(report.text(), _REPLY_KINDS.get(report.status, "error"))


async def check_stored_plan(workspace: HasPlanPorts) -> ApplyReport | None:
    """The checks ``--apply`` makes, without asking or writing: the refusal a stored plan
    would get now (``ipuaro run --plan`` must not accept a plan apply always rejects), or
    None when it would apply (or says ``NO_CHANGES:``, or there is none)."""
    from ipuaro.planning.actions import PlanInvalid
    from ipuaro.planning.apply import prepare

    ctx = workspace.plan_ports.services()
    record = stored_plan(ctx)
    if record is None or record.plan.no_changes:
        return None
    try:
        await asyncio.to_thread(prepare, record, ctx.tool_ctx.paths, None)
    except PlanInvalid as invalid:
        message = "The plan cannot be applied:\n" + str(invalid)
        return ApplyReport("invalid", message, codes=tuple(invalid.codes))
    return None


async def apply_plan(
    ports: PlanPorts,
    record: PlanRecord | None,
    note: str,
    default_commands: Sequence[str],
) -> ApplyReport:
    from ipuaro.edits.engine import EditEngine
    from ipuaro.planning.actions import PlanInvalid
    from ipuaro.planning.apply import prepare

    ctx = ports.services()
    record = record if record is not None else stored_plan(ctx)
    if record is None:
        return ApplyReport("no_plan", NO_PLAN, codes=("ERR_NO_PLAN",))
    plan = record.plan
    if plan.no_changes:
        return ApplyReport("no_changes", f"Nothing to apply. {plan.summary}", note=note)
    try:
        prepared = await asyncio.to_thread(prepare, record, ctx.tool_ctx.paths, ctx.store)
    except PlanInvalid as invalid:
        message = "The plan was not applied; nothing was written:\n" + str(invalid)
        return ApplyReport("invalid", message, codes=tuple(invalid.codes), note=note)
    description = _description(prepared, note)
    count = len(prepared.changes)
    folders = len(prepared.dirs_created) + len(prepared.dirs_removed)
    title = f"Apply the plan: {count} file{'s' if count != 1 else ''}" + (
        f", {folders} folder(s)" if folders else ""
    )
    changeset = prepared.changeset(description, title=title, summary=confirm_text(prepared, note))
    result = await EditEngine(ctx.tool_ctx).commit(changeset)
    if result.changeset is not None:
        prepared = prepared.written(result.changeset, result.rejected)
    if not result.applied:
        return _not_applied(prepared, result, note)
    forget_plan(ctx)
    commands = plan.proposed_changes.commands_to_run or tuple(default_commands)
    if not commands:  # the remembered test and lint commands (still checked by the policy)
        from ipuaro.memory import default_commands_to_run

        commands = default_commands_to_run(ctx.root)
    runs = await _offer_commands(ctx, commands)
    lines = [f"Applied the plan as one change (one /undo reverts it): {description}"]
    lines.append(prepared.summary())
    lines += [f"note: {n}" for n in prepared.notes]
    if result.notes:
        lines.append(result.notes)
    return _report(prepared, "applied", "\n".join(lines), note, runs=runs)


def _not_applied(prepared: PreparedApply, result: EditResult, note: str) -> ApplyReport:
    """The engine's reason in the plan's words."""
    if result.status == "stale":
        return _report(
            prepared,
            "stale",
            "ERR_STALE_BASE: "
            + ", ".join(result.stale)
            + " changed on disk while the change waited for confirmation; nothing was written. "
            "Plan again so the change is made to the current text",
            note,
            codes=("ERR_STALE_BASE",),
        )
    if result.status == "rejected":
        every = result.rejected and not prepared.changes
        message = (
            "The user rejected every file." if every else "The user rejected the plan's change."
        )
        return _report(prepared, "rejected", message, note)
    if result.status == "unconfirmed":
        return _report(prepared, "refused", NEEDS_FLAG, note)
    if result.status in ("invalid", "unchanged"):
        return _report(prepared, "refused", result.message, note)
    message = result.message
    if not message.startswith("nothing was applied"):
        message = f"nothing was applied: {message}"
    return _report(prepared, "failed", message, note)


def _description(prepared: PreparedApply, note: str) -> str:
    summary = prepared.record.plan.summary.strip().splitlines()
    head = summary[0] if summary else "apply the plan"
    head = head if len(head) <= 100 else head[:97] + "..."
    return f"plan: {head}" + (f" ({note})" if note else "")


def _report(
    prepared: PreparedApply,
    status: ApplyStatus,
    message: str,
    note: str,
    *,
    codes: tuple[str, ...] = (),
    runs: tuple[CommandRun, ...] = (),
) -> ApplyReport:
    return ApplyReport(
        status,
        message,
        codes=codes,
        files=tuple(prepared.paths),
        folders=(*prepared.dirs_created, *prepared.dirs_removed),
        diff=prepared.diff,
        risks=tuple(prepared.risks()),
        commands=runs,
        note=note,
    )


def confirm_text(prepared: PreparedApply, note: str) -> str:
    """What the user reads above the diff: the plan's summary, every file, the risks."""
    plan = prepared.record.plan
    parts = [plan.summary.strip()]
    if note:
        parts.append(f"note: {note}")
    parts.append(prepared.summary())
    risks = prepared.risks()
    if risks:
        parts.append("Risks:\n" + "\n".join(f"- {risk}" for risk in risks))
    parts += [f"note: {n}" for n in prepared.notes]
    commands = plan.proposed_changes.commands_to_run
    if commands:
        parts.append("Then offered, one by one: " + "; ".join(commands))
    return "\n\n".join(p for p in parts if p)


async def _offer_commands(services: AppContext, commands: Sequence[str]) -> tuple[CommandRun, ...]:
    """Each command offered to the user (a yes runs it through the policy, as
    ``run_command``); unattended the policy and ``--allow-commands`` decide alone."""
    from ipuaro.domain.edits import ConfirmDecision, ConfirmRequest
    from ipuaro.tools.base import ToolRefused
    from ipuaro.tools.shell import run_checked

    runs: list[CommandRun] = []
    tool_ctx = services.tool_ctx
    for command in (c.strip() for c in commands):
        if not command:
            continue
        ctx = tool_ctx
        if tool_ctx.confirm is not None:
            answer = await tool_ctx.confirm(
                ConfirmRequest(
                    kind="command",
                    title="Run the plan's command?",
                    description="The plan asks to run this after its change.",
                    command=command,
                )
            )
            decision = answer if isinstance(answer, ConfirmDecision) else ConfirmDecision(answer)
            if decision.choice == "abort":
                runs.append(CommandRun(command, False, False, "the user stopped the commands"))
                break
            if decision.choice == "reject":
                runs.append(CommandRun(command, False, False, "skipped by the user"))
                continue
            ctx = dataclasses.replace(tool_ctx, confirm=_agreed(command, tool_ctx.confirm))
        try:
            outcome = await run_checked(ctx, command, tool_ctx.root, "the plan's command")
        except ToolRefused as refused:
            runs.append(CommandRun(command, False, False, f"refused: {refused}"))
            continue
        text = outcome.content if outcome.success else (outcome.error or outcome.content)
        runs.append(CommandRun(command, True, outcome.success, text.strip()))
    return tuple(runs)


def _agreed(command: str, confirm: ConfirmCallback) -> ConfirmCallback:
    """A confirm callback that already has the user's yes for ``command`` (the policy's own
    question about it is not asked twice); anything else (the network) is still asked."""
    from ipuaro.domain.edits import ConfirmDecision

    async def decide(request: ConfirmRequest) -> ConfirmDecision:
        if request.command == command:
            return ConfirmDecision("apply")
        answer = await confirm(request)
        return answer if isinstance(answer, ConfirmDecision) else ConfirmDecision(answer)

    return decide


def finish_interrupted(opened: HasServices) -> list[str]:
    """At opening: a plan's change a kill cut short (the store's ``applying`` key names its
    session) is completed — all files new — or, if it wrote nothing yet, dropped — all files
    old. Returns the notice of a completed change for the start-up warnings."""
    from ipuaro.edits.undo import finish_interrupted as finish

    ctx = opened.ctx
    return finish(ctx.store, ctx.root, ctx.tool_ctx.reindex, ctx.config.undo.stack_size)
