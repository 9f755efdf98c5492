"""Whether a shell command may run: ``allow``, ``ask`` the user, or ``deny``.

The command is parsed (:mod:`ipuaro.security.shell.shell_syntax`) into every simple command it would
run — across ``;``, ``&&``, ``||``, pipes, ``&``, newlines, subshells, ``$(...)``, backticks,
here-documents, ``bash -c``/``sh -c``, ``eval``, and wrappers such as ``env``, ``nohup``,
``timeout``, ``xargs``, ``exec`` — and each one is checked
(:mod:`ipuaro.security.policy.command_check`). Deny beats ask beats allow:

- **deny**: blacklist patterns with normalised flags (shipped ``blacklist.json``,
  ``blacklist.user``, ``BUILTIN_DENY``), privilege escalation, writes outside the project or
  into protected paths, look-alike or invisible characters, command names known only at run
  time, code piped into a shell, anything that does not parse;
- **ask**: commands on no list, inline interpreter code (``python -c``), reading secret files
  (``/proc/*/environ`` too), printing the environment (``env``, ``printenv``, ``export -p``:
  :mod:`~ipuaro.security.policy.command_environment`), reading a path known only at run time
  (``cat $f``, ``xargs cat``) or walking a folder (``grep -r``, ``rg``, ``cp -r``, ``tar c``,
  ``find -exec cat``) when the project or that folder holds a secret file
  (:mod:`~ipuaro.security.policy.secret_scan`), expanding a credential-like variable
  (``$OPENAI_API_KEY``, ``$..._TOKEN``) — these secret reads are
  :attr:`CommandDecision.secret` —, ``find -delete``, settings that make git run commands,
  arguments known only at run time that could complete a blacklist pattern;
- **allow**: names on the whitelist (shipped + ``whitelist.user`` + the session's "always
  allow" names, :class:`~ipuaro.security.policy.grants.Grants`) or the built-in safe list
  (:data:`~ipuaro.security.policy.command_rules.SAFE_COMMANDS`).

:func:`authorize` turns ``ask`` into a final answer with the user's callback; without one
(headless) the command is refused with the reason. The policy comes from configuration and the
user only: text read from the repository never changes it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ipuaro.security.policy.command_findings import Verdict
from ipuaro.security.policy.command_rules import (
    BUILTIN_DENY,
    command_name,
    load_shipped_lists,
    parse_pattern,
)
from ipuaro.security.policy.lookalike import hidden_characters
from ipuaro.security.policy.paths import PathPolicy
from ipuaro.security.shell.shell_syntax import ShellSyntaxError, parse_script

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.security.policy.command_check import Analysis

__all__ = ["AskUser", "CommandDecision", "CommandPolicy", "Verdict", "authorize"]

MAX_COMMAND_CHARS = 65_536
_RANK = {"allow": 0, "ask": 1, "deny": 2}


@dataclass(frozen=True)
class CommandDecision:
    """The verdict, one human-readable reason naming the offending segment, and the words of
    every simple command that was checked (nested ones included)."""

    verdict: Verdict
    reason: str
    segments: list[list[str]] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    """Command names asked about only because no list has them: what "always allow" should
    grant (:meth:`CommandPolicy.grantable`, then ``Grants.grant_command``)."""
    secret: bool = False
    """An ``ask`` because the command may read a secret (a secret file, the environment, a
    credential-like variable): only a person may allow it (``ipuaro run --allow-commands``
    does not)."""


AskUser = Callable[[CommandDecision], Awaitable[bool]]
"""Shows an ``ask`` decision to the user; True means run it."""


class CommandPolicy:
    """Decides commands for one project from configuration alone: it keeps no state between
    calls (the session's "always allow" names live in :class:`~ipuaro.security.policy.grants.Grants`
    and come in through ``decide(granted=...)``)."""

    def __init__(
        self,
        root: Path,
        blacklist: list[str],
        whitelist: list[str],
        path_policy: PathPolicy | None = None,
        *,
        ask_for_unknown: bool = True,
    ) -> None:
        if path_policy is None:
            from ipuaro.config.schema import ProjectConfig

            path_policy = PathPolicy(root, list(ProjectConfig().protected_paths))
        self.paths = path_policy
        self.root = path_policy.root
        self.ask_for_unknown = ask_for_unknown
        self._blacklist = [(parse_pattern(text), "blacklist") for text in blacklist]
        self._blacklist += [(parse_pattern(text), "built-in rule") for text in BUILTIN_DENY]
        self._whitelist = frozenset(command_name(name) for name in whitelist if name.strip())

    @classmethod
    def from_config(cls, root: Path, config: Config) -> CommandPolicy:
        """Shipped lists plus ``blacklist.user`` / ``whitelist.user`` from ``config``."""
        shipped_black, shipped_white = load_shipped_lists()
        return cls(
            root,
            [*shipped_black, *config.blacklist.user],
            [*shipped_white, *config.whitelist.user],
            PathPolicy.from_config(root, config),
            ask_for_unknown=config.whitelist.ask_for_unknown,
        )

    @property
    def allowed_names(self) -> frozenset[str]:
        """The configured whitelist (shipped and ``whitelist.user``), normalised."""
        return self._whitelist

    def grantable(self, name: str) -> str:
        """``name`` normalised for an "always allow" grant (it then counts as whitelisted for
        the session); ValueError when it is no plain command name or is on the blacklist.

        Only the unknown-command question goes away; deny rules and other questions stay.
        """
        if not name or not name.strip() or any(c in name for c in " \t\n/;&|$`'\"\\="):
            raise ValueError(
                f"allow_always needs a plain command name such as 'pytest', got {name!r}"
            )
        normalised = command_name(name)
        if any(
            pattern.name == normalised and not pattern.subcommands and not pattern.flags
            for pattern, _ in self._blacklist
        ):
            raise ValueError(f"{name!r} is on the blacklist and cannot be allowed")
        return normalised

    def decide(
        self,
        command: str,
        *,
        cwds: Sequence[Path] = (),
        confine_cd: bool = False,
        granted: frozenset[str] = frozenset(),
    ) -> CommandDecision:
        """allow / ask / deny for one command line, with the reason.

        ``cwds``: where the command starts (a persistent shell's directory, logical and
        physical; the project root when empty). ``confine_cd``: the shell keeps its directory
        after the command, so a ``cd``/``pushd`` that leaves the project (or goes where only
        run time knows: ``cd -``, ``cd ~``, bare ``cd``) is refused. ``granted``: the
        session's "always allow" names (``Grants.commands``), counted as whitelisted.
        """
        refused = _refuse_text(command)
        if refused:
            return CommandDecision("deny", f"denied: {refused}")
        try:
            script = parse_script(command)
        except ShellSyntaxError as error:
            return CommandDecision(
                "deny", f"denied: cannot parse the command ({error}); fix the quoting"
            )
        except RecursionError:
            return CommandDecision("deny", "denied: the command is nested too deeply to check")
        # the checker (git, make, package scripts, reads...) is needed by the first command
        # only, not by a start (issue 27)
        from ipuaro.security.policy.command_check import Analysis

        analysis = Analysis(
            self.root,
            self.paths,
            self._blacklist,
            self._whitelist | granted,
            self.ask_for_unknown,
            start=[Path(c) for c in cwds],
            confine_cd=confine_cd,
        )
        try:
            analysis.run(script)
        except RecursionError:
            return CommandDecision("deny", "denied: the command is nested too deeply to check")
        return _combine(analysis)


async def authorize(decision: CommandDecision, ask: AskUser | None) -> CommandDecision:
    """Resolve ``ask`` with the user; with no one to ask (headless) the command is refused."""
    if decision.verdict != "ask":
        return decision
    question = decision.reason.removeprefix("ask: ")
    if ask is None:
        return CommandDecision(
            "deny",
            f"denied: needs the user's approval, but nobody can be asked (headless): {question}",
            decision.segments,
            decision.unknown,
        )
    if await ask(decision):
        return CommandDecision(
            "allow", f"allowed by the user: {question}", decision.segments, decision.unknown
        )
    return CommandDecision(
        "deny", f"denied by the user: {question}", decision.segments, decision.unknown
    )


def _refuse_text(command: object) -> str:
    if not isinstance(command, str):
        return f"the command must be text, got {type(command).__name__}"
    if not command.strip():
        return "the command is empty"
    if len(command) > MAX_COMMAND_CHARS:
        return f"the command is longer than {MAX_COMMAND_CHARS} characters"
    if "\x00" in command:
        return "the command contains a NUL byte"
    hidden = hidden_characters(command)
    if hidden:
        return (
            f"the command contains control or invisible characters ({', '.join(hidden[:5])}); "
            "remove them (look-alike characters hide what really runs)"
        )
    return ""


def _combine(analysis: Analysis) -> CommandDecision:
    from ipuaro.security.policy.command_reads import SECRET_ALLOWANCE

    findings = analysis.findings
    if not findings:
        return CommandDecision("allow", "allowed: nothing to run", analysis.segments)
    worst = max(findings, key=lambda f: _RANK[f.verdict]).verdict
    same = [f for f in findings if f.verdict == worst]
    if worst == "allow":
        reasons = list(dict.fromkeys(f.reason.removeprefix("allowed: ") for f in same))
        reason = "allowed: " + "; ".join(reasons[:4]) + ("; ..." if len(reasons) > 4 else "")
    else:
        reason = same[0].reason
        others = len({f.reason for f in same}) - 1
        if others > 0:
            reason += f" (and {others} more {'problem' if others == 1 else 'problems'})"
    secret = any(f.verdict == "ask" and SECRET_ALLOWANCE in f.reason for f in findings)
    return CommandDecision(worst, reason, analysis.segments, analysis.unknown, secret)
