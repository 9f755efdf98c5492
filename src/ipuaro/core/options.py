"""How a workspace is opened: the command line's choices for one run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ipuaro.llm.protocol import ModelClient


@dataclass(frozen=True)
class WorkspaceOptions:
    """How to open: the command line's choices for this run."""

    auto_apply: bool = False
    allow_commands: bool = False
    """Headless: run commands the policy would ask about without asking."""
    session_id: str | None = None
    """Resume this session (``OpenError("session")`` when unknown)."""
    new_session: bool = False
    """Start a new session instead of resuming the last one."""
    unattended: bool = False
    """Nobody is there to confirm (headless): edits need ``auto_apply``, commands the policy
    would ask about need ``allow_commands``; anything else is refused with a message saying
    so, and ``ConfirmChange`` is never asked. Other questions still go to the decider."""
    prompt: str | None = None
    """Headless: the request this run will send, saved into the session before the first model
    call (a run killed in its first second keeps it)."""
    environ: Mapping[str, str] | None = None
    client: ModelClient | None = None
    """A ready model client (tests, benchmarks); by default one is made from the config."""
    project_trusted: bool = False
    """The user trusts this project: extensions it declares (MCP servers in ``.ipuaro.json``)
    may run. The user's own always may."""
