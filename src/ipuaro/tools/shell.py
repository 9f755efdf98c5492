"""Running a shell command for a tool: policy first, the user when the policy asks, then the
runner with a timeout and an output cap.

The command's environment is ours minus credentials
(:func:`~ipuaro.security.runner.secret_environment_names`): ``llm.apiKeyEnv``,
``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY`` and every variable named ``*_API_KEY``, ``*_TOKEN`` or
``*_SECRET``. So ``echo $OPENAI_API_KEY`` or ``cat /proc/self/environ`` run by the model cannot
put the model's own key into the conversation.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from ipuaro.tools.base import (
    ConfirmDecision,
    ConfirmRequest,
    ToolContext,
    ToolOutcome,
    ToolRefused,
)


async def check_command(ctx: ToolContext, command: str, purpose: str) -> None:
    """Raise ToolRefused unless the policy allows ``command`` or the user says run."""
    decision = ctx.commands.decide(command)
    if decision.verdict == "deny":
        raise ToolRefused(f"command refused by policy: {decision.reason}")
    if decision.verdict == "allow":
        return
    if ctx.confirm is None:
        if ctx.headless_allow_commands:
            return
        raise ToolRefused(
            f"command needs the user's approval ({decision.reason}) and nobody can be asked "
            "in this run; allow it in the whitelist or run interactively."
        )
    request = ConfirmRequest(
        kind="command",
        title=f"Run this command? ({purpose})",
        description=decision.reason,
        command=command,
    )
    answer = await ctx.confirm(request)
    choice = answer if isinstance(answer, ConfirmDecision) else ConfirmDecision(answer)
    if choice.choice == "reject":
        raise ToolRefused("the user declined to run the command.")
    if choice.choice == "always":
        allowed = ctx.commands.allowed_names
        for words in decision.segments:
            if not words or words[0] in allowed:
                continue
            # Not a plain name (a path, a blacklisted tool): it is simply asked again next time.
            with contextlib.suppress(ValueError):
                ctx.commands.allow_always(words[0])


async def run_checked(ctx: ToolContext, command: str, cwd: Path, purpose: str) -> ToolOutcome:
    from ipuaro.security.runner import (
        command_timeout,
        environment_without,
        run_shell,
        secret_environment_names,
    )

    await check_command(ctx, command, purpose)
    hidden = secret_environment_names([ctx.config.llm.api_key_env])
    outcome = await run_shell(
        command,
        cwd,
        command_timeout(ctx.config.commands),
        output_limit=ctx.config.commands.output_limit_bytes,
        env=environment_without(hidden),
        cancel=ctx.cancel,
    )
    status = f"exit code {outcome.exit_code}"
    if outcome.timed_out:
        status = f"stopped after {outcome.duration_s:.0f}s (timeout)"
    elif outcome.cancelled:
        status = "cancelled by the user"
    header = f"$ {command}\n[{status}, {outcome.duration_s:.1f}s]"
    body = outcome.output.rstrip("\n") or "(no output)"
    if outcome.truncated:
        body += (
            f"\n[output cut to {ctx.config.commands.output_limit_bytes} bytes: the head and the "
            "tail are kept; re-run with a filter (| grep, | tail -n 50) to see a part]"
        )
    text = f"{header}\n{body}"
    data = {
        "command": command,
        "exitCode": outcome.exit_code,
        "timedOut": outcome.timed_out,
        "cancelled": outcome.cancelled,
        "truncated": outcome.truncated,
        "durationS": round(outcome.duration_s, 3),
    }
    if outcome.exit_code == 0 and not outcome.timed_out and not outcome.cancelled:
        return ToolOutcome.ok(text, data=data)
    failed = ToolOutcome.fail(text)
    failed.data = data
    return failed
