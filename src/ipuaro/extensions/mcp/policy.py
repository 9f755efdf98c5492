"""Tool names as the model sees them, and whether a call may run: ``mcp.deny`` beats
``mcp.allow`` beats the session's "always" answers (``ctx.grants``,
:class:`~ipuaro.security.policy.grants.Grants`) beats asking the user (through the same confirmation
as a shell command)."""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ipuaro.config.schema import McpConfig
from ipuaro.tools.base import (
    ConfirmDecision,
    ConfirmRequest,
    ToolAborted,
    ToolContext,
    ToolRefused,
)

PREFIX = "mcp__"
MAX_NAME = 64
"""Longest tool name OpenAI-compatible servers accept."""
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")

Verdict = Literal["allow", "deny", "ask"]


def tool_name(server: str, tool: str) -> str | None:
    """``mcp__SERVER__TOOL`` with characters models reject replaced by ``_``; None when it
    would be longer than :data:`MAX_NAME` (such a tool stays reachable through ``mcp_call``)."""
    name = f"{PREFIX}{server}__{_UNSAFE.sub('_', tool)}"
    return name if len(name) <= MAX_NAME else None


@dataclass(frozen=True)
class CallPolicy:
    """The configured lists only; what the user answered "always" is a session grant."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    @classmethod
    def from_config(cls, config: McpConfig) -> CallPolicy:
        return cls(tuple(config.allow), tuple(config.deny))

    def verdict(
        self, server: str, tool: str, granted: Callable[[str], bool] | None = None
    ) -> Verdict:
        """``granted``: whether the session allowed a tool (``Grants.allows_mcp_tool``)."""
        names = (f"{PREFIX}{server}__{tool}", *filter(None, [tool_name(server, tool)]))
        if _matches(names, self.deny):
            return "deny"
        if _matches(names, self.allow) or (granted is not None and granted(names[0])):
            return "allow"
        return "ask"

    async def check(
        self, ctx: ToolContext, server: str, tool: str, arguments: dict[str, Any]
    ) -> None:
        """Return when the call may run; raise :class:`ToolRefused` saying why not."""
        shown = f"{PREFIX}{server}__{tool}"
        verdict = self.verdict(server, tool, ctx.grants.allows_mcp_tool)
        if verdict == "deny":
            raise ToolRefused(f"{shown} is denied by mcp.deny in the configuration.")
        if verdict == "allow":
            return
        if ctx.confirm is None:
            if ctx.headless_allow_commands:
                return
            raise ToolRefused(
                f"{shown} needs the user's approval and nobody can be asked in this run; add it "
                "to mcp.allow in the user config, or run interactively."
            )
        text = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
        request = ConfirmRequest(
            kind="command",
            title=f"Call tool {tool!r} of MCP server {server!r}?",
            description=(
                "an MCP server's tool runs code outside ipuaro's sandbox; allow it for good "
                "with mcp.allow in your user config"
            ),
            command=f"{shown} {text}",
        )
        answer = await ctx.confirm(request)
        choice = answer if isinstance(answer, ConfirmDecision) else ConfirmDecision(answer)
        if choice.choice == "abort":
            raise ToolAborted(f"the user declined to call {shown} and stopped the request.")
        if choice.choice == "reject":
            raise ToolRefused(f"the user declined to call {shown}.")
        if choice.choice == "always":
            ctx.grants.grant_mcp_tool(shown)


def _matches(names: tuple[str, ...], patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for name in names for pattern in patterns)
