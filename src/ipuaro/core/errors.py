"""What the workspace's operations raise. Front ends catch these, never a store's, model
client's or agent's own exceptions; ``str(error)`` is one line for the user."""

from __future__ import annotations

from typing import Literal

from ipuaro.domain.errors import IpuaroError

OpenFailure = Literal["unreachable", "store", "session", "model"]


class WorkspaceError(IpuaroError):
    """Base: an operation could not be done; the message says what to do."""


class OpenError(WorkspaceError):
    """The workspace could not be opened: the model server does not answer (``unreachable``),
    the store cannot be opened (``store``), the session to resume is unknown (``session``),
    or the model server failed (``model``)."""

    def __init__(self, kind: OpenFailure, message: str, suggestion: str | None = None) -> None:
        super().__init__(f"{message} — {suggestion}" if suggestion else message)
        self.kind: OpenFailure = kind
        self.message = message
        self.suggestion = suggestion


class SessionMissing(WorkspaceError, LookupError):
    """No session with that id in this project (the message names the known ones)."""


class IndexFailed(WorkspaceError):
    """Indexing failed; the previous index (if any) still answers."""


class SessionsUnavailable(WorkspaceError):
    """A session could not be exported, imported or opened (a bad file, a clash, the store)."""


class WorkspaceBusy(WorkspaceError):
    """The agent is answering; the operation waits until it has (or it is interrupted)."""
