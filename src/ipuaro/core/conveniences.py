"""What the user does in a line of their own, beside a request: ``!command``, ``/compact``.

``!git status`` runs the command as the model's ``run_command`` would — the same tool, so the
same command policy (deny list, questions for unknown commands), the same sandbox and the
session's persistent shell — as one task of the workspace (``busy`` meanwhile). Its output is
the reply every front end draws, and it joins the conversation as a user message (command and
capped output), so the model sees it with the next request.

Front ends reach it through the command table: :func:`ipuaro.core.commands.parse_command`
reads a line starting with ``!`` as ``/shell`` with the rest of the line, untouched, as its one
argument.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ipuaro.core.replies import Reply

if TYPE_CHECKING:
    from ipuaro.core.ports import CommandHost

NOTE_PREFIX = "I ran `"
"""How the conversation note of a ``!command`` starts (``/rewind`` lists requests only)."""
CONVERSATION_CAP_CHARS = 4000
"""Of a ``!command``'s output, the conversation keeps at most this much (head and tail)."""


def capped(text: str, limit: int = CONVERSATION_CAP_CHARS) -> str:
    """``text`` within ``limit`` characters: its head and tail, with what was dropped said."""
    if len(text) <= limit:
        return text
    half = limit // 2
    dropped = len(text) - 2 * half
    return f"{text[:half]}\n[… {dropped:,} characters left out …]\n{text[-half:]}"


def conversation_note(command: str, output: str, ok: bool) -> str:
    """The user message that tells the model what the user ran and what it printed."""
    state = "" if ok else " (it failed)"
    return f"{NOTE_PREFIX}{command}` myself{state}. Its output:\n```\n{capped(output)}\n```"


async def run_user_command(workspace: CommandHost, command: str) -> Reply:
    """Run ``command`` (what followed ``!``) through ``run_command``'s policy and sandbox; the
    reply is its output, and the conversation gets it too (not when the policy refused it).
    It runs as the workspace's task: ``busy`` meanwhile."""
    command = command.strip()
    if not command:
        return Reply("type a command after '!', e.g. !git status", "error")
    return await workspace.tasks.run("command", f"!{command}", lambda: _run(workspace, command))


async def _run(workspace: CommandHost, command: str) -> Reply:
    from ipuaro.agent.context.history import user_message

    ctx = workspace.ctx
    call = ctx.user_call("run_command")  # its own cancel event: Workspace.abort sets it
    outcome = await ctx.registry.call_outcome("run_command", {"command": command}, call)
    if outcome.refused:
        return Reply(f"!{command}: {outcome.refusal}", "error")
    output = outcome.content if outcome.success else (outcome.error or outcome.content)
    session = ctx.agent.session
    session.history.append(user_message(conversation_note(command, output, outcome.success)))
    return Reply(f"$ {command}\n{output}", "info" if outcome.success else "error")


async def compact_now(workspace: CommandHost, focus: str | None) -> Reply:
    """``/compact [focus]``: summarise the conversation now (keeping the last exchange), the
    summary favouring ``focus``; a task like a request."""
    agent = workspace.ctx.agent
    outcome = await workspace.tasks.run(
        "compact", "/compact", lambda: agent.compact(focus), announce=True
    )
    if outcome is None:
        return Reply("nothing to compact yet: the conversation is only its last exchange")
    event = outcome.event
    return Reply(
        f"compacted: {outcome.note}; context "
        f"{event.tokens_before:,} → {event.tokens_after:,} tokens"
    )
