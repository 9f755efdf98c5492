"""Running a shell command for a tool: policy first, the user when the policy asks, then the
runner with a timeout and an output cap.

The command's environment is ours minus credentials
(:func:`~ipuaro.security.process.runner.secret_environment_names`): ``llm.apiKeyEnv``,
``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY`` and every variable named ``*_API_KEY``, ``*_TOKEN`` or
``*_SECRET``. So ``echo $OPENAI_API_KEY`` or ``cat /proc/self/environ`` run by the model cannot
put the model's own key into the conversation.

Every command runs in the kernel sandbox of :func:`sandbox_profile` (``sandbox.profile`` in the
configuration): with the network off unless the command needs it and the user agrees (or
``sandbox.network`` is on). Where the machine has no sandbox engine, every command the policy
does not know to be read-only is asked about, however the policy judged it.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.security.policy.command_needs import needs_network, only_reads
from ipuaro.security.policy.commands import CommandDecision
from ipuaro.security.sandboxing.sandbox import SandboxProfile, engine
from ipuaro.tools.base import (
    ConfirmDecision,
    ConfirmRequest,
    ToolAborted,
    ToolContext,
    ToolOutcome,
    ToolRefused,
)

if TYPE_CHECKING:
    from ipuaro.security.process.runner import CommandOutcome

_log = logging.getLogger(__name__)
_DENIED_WORDS = ("permission denied", "eacces", "operation not permitted", "eperm")
"""How programs report what the sandbox refused (``cat``, Node, Python, git ...)."""
_PROFILES: dict[tuple[object, ...], SandboxProfile] = {}
_WARNED: set[str] = set()


def sandbox_profile(ctx: ToolContext) -> SandboxProfile:
    """The session's sandbox for ``ctx.root`` (one private temp folder per project and
    settings). Says once, in the log, when the machine has no engine."""
    config = ctx.config.sandbox
    key = (ctx.root, config.profile, config.network, *config.readable, "|", *config.writable)
    profile = _PROFILES.get(key)
    if profile is None:
        profile = _PROFILES[key] = SandboxProfile.for_project(ctx.root, config)
        if profile.name != "off" and engine() is None and "engine" not in _WARNED:
            _WARNED.add("engine")
            _log.warning("%s", profile.describe())
    return profile


async def check_command(
    ctx: ToolContext,
    command: str,
    purpose: str,
    *,
    cwds: Sequence[Path] = (),
    confine_cd: bool = False,
) -> CommandDecision:
    """The policy's decision once the user settled any question; ToolRefused otherwise.
    ``cwds`` and ``confine_cd``: see
    :meth:`~ipuaro.security.policy.commands.CommandPolicy.decide`."""
    decision = ctx.commands.decide(
        command, cwds=cwds, confine_cd=confine_cd, granted=ctx.grants.commands
    )
    if decision.verdict == "deny":
        raise ToolRefused(f"command refused by policy: {decision.reason}")
    profile = sandbox_profile(ctx)
    if (
        decision.verdict == "allow"
        and profile.name != "off"
        and not profile.active
        and not only_reads(command, decision.segments)
    ):
        decision = CommandDecision(
            "ask",
            "ask: this machine has no sandbox engine (Landlock), so commands that may write "
            "are asked about",
            decision.segments,
        )
    if decision.verdict == "allow":
        return decision
    if ctx.confirm is None:
        if ctx.headless_allow_commands and not decision.secret:
            return decision
        if decision.secret:  # as get_lines refuses a secret file in a run nobody watches
            raise ToolRefused(
                f"command needs the user's approval ({decision.reason}) and nobody can be asked "
                "in this run; --allow-commands does not cover secrets. Work without the secret, "
                "or run interactively."
            )
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
    if choice.choice == "abort":
        raise ToolAborted("the user declined to run the command and stopped the request.")
    if choice.choice == "reject":
        raise ToolRefused("the user declined to run the command.")
    if choice.choice == "always":
        allowed = ctx.commands.allowed_names | ctx.grants.commands
        for words in decision.segments:
            if not words or words[0] in allowed:
                continue
            # Not a plain name (a path, a blacklisted tool): it is simply asked again next time.
            with contextlib.suppress(ValueError):
                ctx.grants.grant_command(ctx.commands.grantable(words[0]))
    return decision


async def network_allowed(ctx: ToolContext, decision: CommandDecision) -> bool:
    """Whether this command may use the network: always when the profile allows it; when it
    needs it (``npm install``), if the user agrees; otherwise not."""
    profile = sandbox_profile(ctx)
    if profile.network or not profile.active:
        return True
    wanted = needs_network(decision.segments)
    if not wanted:
        return False
    if ctx.confirm is None:
        if ctx.headless_allow_commands:
            return True
        raise ToolRefused(
            f"`{wanted}` needs the network, which the sandbox keeps off, and nobody can be "
            "asked in this run; set sandbox.network to true or run interactively."
        )
    answer = await ctx.confirm(
        ConfirmRequest(
            kind="command",
            title="Let this command use the network?",
            description=f"`{wanted}` reaches the network; commands run offline otherwise.",
        )
    )
    choice = answer if isinstance(answer, ConfirmDecision) else ConfirmDecision(answer)
    if choice.choice == "abort":
        raise ToolAborted(
            f"the user did not let `{wanted}` use the network and stopped the request."
        )
    if choice.choice == "reject":
        raise ToolRefused(f"the user did not let `{wanted}` use the network.")
    return True


async def run_checked(
    ctx: ToolContext, command: str, cwd: Path, purpose: str, *, tests: bool = False
) -> ToolOutcome:
    """Ask the policy (and the user) about ``command``, then run it in the sandbox within
    ``commands.timeout`` (``commands.testTimeout`` when ``tests``)."""
    from ipuaro.security.process.runner import (
        command_timeout,
        environment_without,
        run_shell,
        secret_environment_names,
    )

    decision = await check_command(ctx, command, purpose)
    online = await network_allowed(ctx, decision)
    sandbox = sandbox_profile(ctx)
    hidden = secret_environment_names([ctx.config.llm.api_key_env])
    timeout = command_timeout(ctx.config.commands, tests=tests)
    outcome = await run_shell(
        command,
        cwd,
        timeout,
        output_limit=ctx.config.commands.output_limit_bytes,
        env=environment_without(hidden),
        cancel=ctx.cancel,
        sandbox=sandbox.with_network(online) if sandbox.active else None,
    )
    return command_report(ctx, command, outcome, sandbox, online, timeout=timeout)


def command_report(
    ctx: ToolContext,
    command: str,
    outcome: CommandOutcome,
    sandbox: SandboxProfile,
    online: bool,
    *,
    where: str | None = None,
    notes: Sequence[str] = (),
    data: dict[str, object] | None = None,
    timeout: float | None = None,
) -> ToolOutcome:
    """What the model reads about a command that ran: ``$ command``, exit code and time (and
    ``where`` it ran, when not the root), the capped output, then ``notes``."""
    status = f"exit code {outcome.exit_code}"
    if outcome.timed_out:
        limit = timeout if timeout is not None else outcome.duration_s
        status = (
            f"timed out after {limit:g} s: killed with its process group "
            "(commands.timeout / commands.testTimeout set the limit)"
        )
    elif outcome.cancelled:
        status = "cancelled by the user"
    place = f", in {where}" if where else ""
    header = f"$ {command}\n[{status}, {outcome.duration_s:.1f}s{place}]"
    body = outcome.output.rstrip("\n") or "(no output)"
    if outcome.truncated:
        body += (
            f"\n[output cut to {ctx.config.commands.output_limit_bytes} bytes: the head and the "
            "tail are kept; re-run with a filter (| grep, | tail -n 50) to see a part]"
        )
    lowered = outcome.output.lower()
    if sandbox.active and outcome.exit_code != 0 and any(w in lowered for w in _DENIED_WORDS):
        network = "on for this command" if online else "off"
        body += (
            f"\n[ipuaro: commands run in a sandbox ({sandbox.name}): they write only inside the "
            f"project, cannot read secrets outside it, and the network is {network}; a "
            "'Permission denied' above may come from it]"
        )
    for note in notes:
        body += f"\n{note}"
    text = f"{header}\n{body}"
    facts: dict[str, object] = {
        "command": command,
        "exitCode": outcome.exit_code,
        "timedOut": outcome.timed_out,
        "cancelled": outcome.cancelled,
        "truncated": outcome.truncated,
        "durationS": round(outcome.duration_s, 3),
        "sandbox": sandbox.name if sandbox.active else "none",
        **(data or {}),
    }
    if outcome.exit_code == 0 and not outcome.timed_out and not outcome.cancelled:
        return ToolOutcome.ok(text, data=facts)
    failed = ToolOutcome.fail(text)
    failed.data = facts
    return failed
