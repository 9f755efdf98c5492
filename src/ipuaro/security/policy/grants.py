"""What the user allowed "for the rest of the session": one object, one place to ask.

A question about a command, a secret file, an MCP tool or an edit offers **Always allow**;
that answer becomes a grant here, and the next call that would ask the same question asks
this object instead of the user:

- **commands**: a command name (``pytest``) that counts as whitelisted — only the
  "not on any list" question goes away; the command policy's deny rules, its other questions
  and the sandbox stay
  (:meth:`CommandPolicy.decide <ipuaro.security.policy.commands.CommandPolicy.decide>` reads
  :attr:`Grants.commands` as extra whitelist names);
- **secrets**: a project path (``.env``) whose content may reach the model;
- **MCP tools**: ``mcp__SERVER__TOOL`` runs without asking (``mcp.deny`` still refuses it);
- **edits**: edits apply without a question (undo still works).

Grants belong to one session. A new session, or one loaded from the store, starts with none:
they are never saved, so loading a session does not bring them back. What carries over is what
the user *configured* rather than answered: ``edit.autoApply``, ``--auto-apply`` and the
``/auto-apply`` switch (:meth:`Grants.set_auto_apply`), kept by :meth:`Grants.fresh`.

A grant never widens the path policy or the sandbox: it only answers a question that would
otherwise be put to the user.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Grants", "GrantsView"]


@dataclass(frozen=True)
class GrantsView:
    """The grants at one moment, for ``/status`` and tests."""

    commands: tuple[str, ...] = ()
    secrets: tuple[str, ...] = ()
    mcp_tools: tuple[str, ...] = ()
    auto_apply: bool = False
    """Edits apply without asking (the configured switch or the session's "always")."""
    auto_apply_always: bool = False
    """``auto_apply`` comes from an edit answered "always" in this session."""

    def lines(self) -> list[str]:
        """One line per kind that holds something (empty when nothing was granted)."""
        out: list[str] = []
        if self.commands:
            out.append("commands: " + ", ".join(self.commands))
        if self.secrets:
            out.append("secret files: " + ", ".join(self.secrets))
        if self.mcp_tools:
            out.append("MCP tools: " + ", ".join(self.mcp_tools))
        if self.auto_apply_always:
            out.append("edits: applied without asking (answered always)")
        return out


class Grants:
    """The session's "always" answers (see the module docstring)."""

    def __init__(self, *, auto_apply: bool = False) -> None:
        self._auto_apply_configured = auto_apply
        self._edits_always = False
        self._commands: set[str] = set()
        self._secrets: set[str] = set()
        self._mcp_tools: set[str] = set()

    def fresh(self) -> Grants:
        """The grants a new (or loaded) session starts with: none, except the configured
        auto-apply switch."""
        return Grants(auto_apply=self._auto_apply_configured)

    # --- commands -------------------------------------------------------------------------

    @property
    def commands(self) -> frozenset[str]:
        """Command names answered "always" (normalised by the command policy)."""
        return frozenset(self._commands)

    def grant_command(self, name: str) -> None:
        """Record ``name`` (already checked with ``CommandPolicy.grantable``)."""
        self._commands.add(name)

    # --- secret files ---------------------------------------------------------------------

    def allows_secret(self, rel: str) -> bool:
        return rel in self._secrets

    def grant_secret(self, rel: str) -> None:
        self._secrets.add(rel)

    @property
    def secrets(self) -> frozenset[str]:
        return frozenset(self._secrets)

    # --- MCP tools ------------------------------------------------------------------------

    def allows_mcp_tool(self, name: str) -> bool:
        return name in self._mcp_tools

    def grant_mcp_tool(self, name: str) -> None:
        self._mcp_tools.add(name)

    # --- edits ----------------------------------------------------------------------------

    @property
    def auto_apply(self) -> bool:
        """Edits apply without a question: configured, switched on, or answered "always"."""
        return self._auto_apply_configured or self._edits_always

    def grant_edits(self) -> None:
        """The user answered "always" to an edit: the session's later edits apply unasked."""
        self._edits_always = True

    def set_auto_apply(self, on: bool) -> None:
        """The ``/auto-apply`` switch: kept by :meth:`fresh`; off also drops an "always"."""
        self._auto_apply_configured = on
        if not on:
            self._edits_always = False

    def view(self) -> GrantsView:
        return GrantsView(
            commands=tuple(sorted(self._commands)),
            secrets=tuple(sorted(self._secrets)),
            mcp_tools=tuple(sorted(self._mcp_tools)),
            auto_apply=self.auto_apply,
            auto_apply_always=self._edits_always and not self._auto_apply_configured,
        )
