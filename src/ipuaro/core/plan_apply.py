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
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ipuaro.core.replies import Reply, ReplyKind

if TYPE_CHECKING:
    from ipuaro.core.events import AgentEnd, EndReason
    from ipuaro.core.workspace import Workspace
    from ipuaro.domain.edits import ConfirmCallback, ConfirmDecision, ConfirmRequest
    from ipuaro.domain.plan import PlanRecord
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


async def route_apply(workspace: Workspace, text: str) -> AgentEnd | None:
    """``Workspace.send``'s first step: run apply for a trigger (a bare word only when a plan
    is stored), drawn as the answer to ``text`` through the usual events; None otherwise."""
    note = apply_trigger(text)
    if note is None:
        return None
    bare = not text.strip().casefold().startswith(APPLY_PREFIX)
    if bare and workspace.stored_plan() is None:
        return None
    return await answer_with_apply(workspace, text, note)


async def answer_with_apply(workspace: Workspace, text: str, note: str) -> AgentEnd:
    """Apply the stored plan as the answer to the user's ``text``: the exchange is kept in
    the session (so the model knows what was applied) and drawn like any answer."""
    return (await apply_as_answer(workspace, text, note))[0]


async def apply_as_answer(
    workspace: Workspace, text: str, note: str
) -> tuple[AgentEnd, ApplyReport]:
    """:func:`answer_with_apply` with the report itself (``ipuaro run --apply``'s JSON); a
    task of the workspace's runner: ``busy`` from the start to the end, confirmation included."""
    return await workspace._tasks.run(
        "apply", text, lambda: _apply_as_answer(workspace, text, note)
    )


async def _apply_as_answer(
    workspace: Workspace, text: str, note: str
) -> tuple[AgentEnd, ApplyReport]:
    from ipuaro.agent.context.history import assistant_message, user_message
    from ipuaro.core.events import AgentEnd, AgentStart, MessageDelta, MessageEnd
    from ipuaro.domain import MessageStats

    ctx = workspace.ctx
    workspace._emit(AgentStart(workspace.session_id, text))
    try:
        report = await apply_plan(workspace, None, note, ())
    except Exception as error:  # a bug must not leave a front end waiting for the end
        log.exception("apply failed")
        report = ApplyReport("failed", f"applying failed: {type(error).__name__}: {error}")
    answer = report.text()
    workspace._emit(MessageDelta(answer))
    workspace._emit(MessageEnd(answer))
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
    workspace._emit(end)
    return end, report


async def apply_command(workspace: Workspace, args: tuple[str, ...]) -> Reply:
    """``/apply [NOTE]``."""
    report = await workspace.apply_plan(note=" ".join(args))
    return Reply(report.text(), _REPLY_KINDS.get(report.status, "error"))


async def check_stored_plan(workspace: Workspace) -> ApplyReport | None:
    """The checks ``--apply`` makes, without asking or writing: the refusal a stored plan
    would get now (``ipuaro run --plan`` must not accept a plan apply always rejects), or
    None when it would apply (or says ``NO_CHANGES:``, or there is none)."""
    from ipuaro.planning.actions import PlanInvalid
    from ipuaro.planning.apply import prepare

    record = workspace.stored_plan()
    if record is None or record.plan.no_changes:
        return None
    try:
        await asyncio.to_thread(prepare, record, workspace.ctx.tool_ctx.paths, None)
    except PlanInvalid as invalid:
        message = "The plan cannot be applied:\n" + str(invalid)
        return ApplyReport("invalid", message, codes=tuple(invalid.codes))
    return None


async def apply_plan(
    workspace: Workspace,
    record: PlanRecord | None,
    note: str,
    default_commands: Sequence[str],
) -> ApplyReport:
    from ipuaro.planning.actions import PlanInvalid
    from ipuaro.planning.apply import prepare

    record = record if record is not None else workspace.stored_plan()
    if record is None:
        return ApplyReport("no_plan", NO_PLAN, codes=("ERR_NO_PLAN",))
    plan = record.plan
    if plan.no_changes:
        return ApplyReport("no_changes", f"Nothing to apply. {plan.summary}", note=note)
    ctx = workspace.ctx
    try:
        prepared = await asyncio.to_thread(prepare, record, ctx.tool_ctx.paths, ctx.store)
    except PlanInvalid as invalid:
        message = "The plan was not applied; nothing was written:\n" + str(invalid)
        return ApplyReport("invalid", message, codes=tuple(invalid.codes), note=note)
    decided = await _confirm(workspace, prepared, note)
    if isinstance(decided, ApplyReport):
        return decided
    prepared = decided
    from ipuaro.planning.apply import commit, stale_files

    stale = stale_files(prepared)
    if stale:
        return _report(
            prepared,
            "stale",
            "ERR_STALE_BASE: "
            + ", ".join(stale)
            + " changed on disk while the change waited for confirmation; nothing was written. "
            "Plan again so the change is made to the current text",
            note,
            codes=("ERR_STALE_BASE",),
        )
    description = _description(prepared, note)
    committed = await asyncio.to_thread(
        commit,
        prepared,
        ctx.store,
        workspace.session_id,
        ctx.tool_ctx.reindex,
        ctx.config.undo.stack_size,
        description,
    )
    if not committed.ok:
        return _report(prepared, "failed", committed.message, note)
    _remember_writes(workspace, prepared)
    workspace.forget_plan()
    commands = plan.proposed_changes.commands_to_run or tuple(default_commands)
    if not commands:  # the remembered test and lint commands (still checked by the policy)
        from ipuaro.memory import default_commands_to_run

        commands = default_commands_to_run(workspace.root)
    runs = await _offer_commands(workspace, commands)
    lines = [f"Applied the plan as one change (one /undo reverts it): {description}"]
    lines.append(prepared.summary())
    lines += [f"note: {n}" for n in prepared.notes]
    if committed.reindex_note:
        lines.append(committed.reindex_note)
    return _report(prepared, "applied", "\n".join(lines), note, runs=runs)


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


async def _confirm(
    workspace: Workspace, prepared: PreparedApply, note: str
) -> PreparedApply | ApplyReport:
    """The user's one decision on the whole change (some files may be rejected)."""
    from ipuaro.domain.edits import ConfirmDecision, ConfirmRequest
    from ipuaro.planning.apply import without

    ctx = workspace.ctx
    if workspace.auto_apply:
        return prepared
    confirm = ctx.tool_ctx.confirm
    if confirm is None:
        return _report(prepared, "refused", NEEDS_FLAG, note)
    folders = [f"+ folder {d}/" for d in prepared.dirs_created]
    folders += [f"- folder {d}/" for d in prepared.dirs_removed]
    diff = prepared.diff + "".join(line + "\n" for line in folders)
    count = len(prepared.changes)
    request = ConfirmRequest(
        kind="edit",
        title=f"Apply the plan: {count} file{'s' if count != 1 else ''}"
        + (f", {len(folders)} folder(s)" if folders else ""),
        description=confirm_text(prepared, note),
        diff=diff,
        files=list(prepared.changes),
        per_file=True,
    )
    answer = await confirm(request)
    decision = answer if isinstance(answer, ConfirmDecision) else ConfirmDecision(answer)
    if decision.choice == "reject":
        return _report(prepared, "rejected", "The user rejected the plan's change.", note)
    rejected = set(decision.rejected) & set(prepared.paths)
    if rejected:
        prepared = without(prepared, rejected)
        if not prepared.changes and not prepared.dirs_created and not prepared.dirs_removed:
            return _report(prepared, "rejected", "The user rejected every file.", note)
    if decision.edited:
        edited = _with_user_text(prepared, decision)
        if isinstance(edited, str):
            return _report(prepared, "refused", edited, note)
        prepared = edited
    return prepared


def _with_user_text(prepared: PreparedApply, decision: ConfirmDecision) -> PreparedApply | str:
    from ipuaro.edits.diffs import unified_diff
    from ipuaro.security.content import ContentRefused, check_text

    assert decision.edited is not None
    changes = []
    for change in prepared.changes:
        text = decision.edited.get(change.path)
        if text is None or change.new_text is None:
            changes.append(change)
            continue
        try:
            check_text(text, change.path)
        except ContentRefused as refused:
            return f"the edited text was refused: {refused}"
        changes.append(dataclasses.replace(change, new_text=text))
    diff = "".join(unified_diff(c.path, c.old_text, c.new_text) for c in changes)
    return dataclasses.replace(prepared, changes=changes, diff=diff)


def _remember_writes(workspace: Workspace, prepared: PreparedApply) -> None:
    """The model's reads move to the new text, as after any edit (later line edits refer to
    what the plan wrote)."""
    from ipuaro.edits.text import Lines, text_hash

    reads = workspace.ctx.tool_ctx.reads
    for change in prepared.changes:
        if change.new_text is None:
            reads.forget(change.path)
        else:
            reads.record(change.path, text_hash(change.new_text), Lines.of(change.new_text).lines)


async def _offer_commands(workspace: Workspace, commands: Sequence[str]) -> tuple[CommandRun, ...]:
    """Each command offered to the user (a yes runs it through the policy, as
    ``run_command``); unattended the policy and ``--allow-commands`` decide alone."""
    from ipuaro.domain.edits import ConfirmDecision, ConfirmRequest
    from ipuaro.tools.base import ToolRefused
    from ipuaro.tools.shell import run_checked

    runs: list[CommandRun] = []
    tool_ctx = workspace.ctx.tool_ctx
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


def finish_interrupted(workspace: Workspace) -> list[str]:
    """At opening: a plan's change a kill cut short (the store's ``applying`` key names its
    session) is completed — all files new — or, if it wrote nothing yet, dropped — all files
    old. Returns the notice of a completed change for the start-up warnings."""
    from ipuaro.edits.undo import UndoManager
    from ipuaro.store.protocol import StoreError

    ctx = workspace.ctx
    try:
        marker = ctx.store.get_config("applying")
        if not isinstance(marker, dict) or not isinstance(marker.get("session"), str):
            return []
        manager = UndoManager(
            ctx.store, marker["session"], ctx.root, ctx.tool_ctx.reindex, ctx.config.undo.stack_size
        )
        if any(e.pending is not None for e in ctx.store.list_undo(marker["session"])):
            notices = [n for n in manager.settle() if "complete" in n]
            if any(e.pending is not None for e in ctx.store.list_undo(marker["session"])):
                return notices  # its writer is still alive: another ipuaro is applying it
        else:
            notices = []
        ctx.store.set_config("applying", None)
    except StoreError as error:
        return [f"could not check for an interrupted plan apply: {error}"]
    return notices
