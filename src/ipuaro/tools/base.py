"""The tool model: what a tool is, what it gets to run, and what it gives back.

A tool is a declarative object: a name, a description written for a small model, a pydantic
args model (which is also the JSON schema the model sees), two flags, and ``execute``. The
registry (``ipuaro.tools.registry``) turns every failure into a structured result; tools raise
:class:`ToolError` for "the call was wrong, here is how to fix it".
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from pydantic import BaseModel, ConfigDict

from ipuaro.domain.edits import (  # re-exported: the tools' own vocabulary
    ConfirmCallback,
    ConfirmChoice,
    ConfirmDecision,
    ConfirmKind,
    ConfirmRequest,
    Conflict,
    EditPlanner,
    FileChange,
    LineEdit,
    ReadRecord,
    ReadTracker,
    Reindex,
)
from ipuaro.domain.errors import IpuaroError
from ipuaro.security.policy.grants import Grants

__all__ = [
    "ArgsModel",
    "BaseTool",
    "ConfirmCallback",
    "ConfirmChoice",
    "ConfirmDecision",
    "ConfirmKind",
    "ConfirmRequest",
    "Conflict",
    "EditPlanner",
    "FileChange",
    "LineEdit",
    "ReadRecord",
    "ReadTracker",
    "Reindex",
    "SessionScope",
    "Tool",
    "ToolAborted",
    "ToolContext",
    "ToolError",
    "ToolOutcome",
    "ToolRefused",
    "ToolServices",
]

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.domain.checks import EditCheckReport
    from ipuaro.index.lsp import LanguageServers
    from ipuaro.memory import PatchReport
    from ipuaro.security.policy.commands import CommandPolicy
    from ipuaro.security.policy.paths import PathPolicy
    from ipuaro.store.protocol import Store
    from ipuaro.tools.shell_host import ShellHost


@dataclass
class ToolOutcome:
    success: bool
    content: str
    """What the model reads (or the error it should fix)."""
    data: Any = None
    """Structured result (occurrences, matches…) for programs and ``ipuaro tool``."""
    error: str | None = None
    details: dict[str, Any] | None = None
    """Extra output for programs (``ipuaro tool`` JSON: a tree, the edit's files); no layer
    reads it for the typed fields below."""
    conflict: Conflict | None = None
    refused: bool = False
    """The user (or the policy) said no; not a mistake the model can fix by retrying."""
    aborted: bool = False
    """The user said no and stopped the whole request: no later call of the batch runs."""
    error_kind: Literal["store", "file", "command"] | None = None
    """Set when the failure is the environment's (a row of the agent's error matrix: the user
    picks retry / skip / abort), not the model's to fix."""
    diff: str | None = None
    """The unified diff of the change this call made (or proposed, when it was refused)."""
    changed: list[str] = field(default_factory=list)
    """Project paths this call wrote (empty unless an edit was applied)."""
    check: EditCheckReport | None = None
    """What the applied edit broke (``edits.aftercheck``); None when clean or no edit."""

    @property
    def refusal(self) -> str | None:
        """Why the call was refused, or None when it was not."""
        return (self.error or self.content) if self.refused else None

    @classmethod
    def ok(
        cls,
        content: str,
        data: Any = None,
        details: dict[str, Any] | None = None,
        *,
        diff: str | None = None,
        changed: list[str] | None = None,
    ) -> ToolOutcome:
        return cls(True, content, data=data, details=details, diff=diff, changed=changed or [])

    @classmethod
    def fail(
        cls,
        error: str,
        *,
        refused: bool = False,
        details: dict[str, Any] | None = None,
        diff: str | None = None,
    ) -> ToolOutcome:
        return cls(False, error, error=error, refused=refused, details=details, diff=diff)


class ToolError(IpuaroError):
    """Raised inside a tool for a wrong call; becomes a failed ToolOutcome with this message."""


class ToolRefused(ToolError):
    """The user or the policy refused; reported with ``refused=True``."""


class ToolAborted(ToolRefused):
    """The user refused and chose to stop the whole request (Abort in a command's dialog)."""


@dataclass(frozen=True)
class ToolServices:
    """The project's services every call shares, built once by the wiring (``/model`` builds
    a new one with the new configuration and planner; nothing writes its fields)."""

    root: Path
    config: Config
    store: Store
    paths: PathPolicy
    commands: CommandPolicy
    reindex: Reindex
    planner: EditPlanner | None = None
    shell: ShellHost | None = None
    """The workspace's persistent shell for ``run_command`` (None: a new process per call)."""
    remember: Callable[[object, str], Awaitable[PatchReport]] | None = None
    """Checks a ``memory_patch``, asks the user and writes it (the core's
    ``propose_memory_patch``); None where nobody can confirm (``ipuaro tool``)."""
    headless_allow_commands: bool = False
    """Headless runs: commands the policy would ask about run without asking."""
    language_servers: LanguageServers | None = None
    """``index.languageServers`` (None when none is configured): ``find_references`` and
    ``find_definition`` ask them first and fall back to the index."""


@dataclass(frozen=True)
class SessionScope:
    """What belongs to one session: its id, the files read in it and its grants. A session
    change makes a new scope (no grants but the configured ones, no reads)."""

    session_id: str
    grants: Grants = field(default_factory=Grants)
    reads: ReadTracker = field(default_factory=ReadTracker)

    def next(self, session_id: str) -> SessionScope:
        return SessionScope(session_id, self.grants.fresh())


_SERVICE_FIELDS = frozenset(f.name for f in fields(ToolServices))
_SCOPE_FIELDS = frozenset({"session_id", "grants", "reads"})


@dataclass(frozen=True)
class ToolContext:
    """What one tool call gets: the shared services, the session's scope, and the call's own
    parts (its id, cancel event, progress display, and the way to ask the user).

    The agent's dispatch makes one per call (:meth:`for_call`); nobody writes its fields —
    :meth:`replace` makes a changed copy. The services' and the scope's fields read through
    (``ctx.root``, ``ctx.grants``…), so a tool names what it uses, not where it lives."""

    services: ToolServices
    scope: SessionScope
    confirm: ConfirmCallback | None = None
    cancel: asyncio.Event | None = None
    progress: Callable[[str], None] | None = None
    """Where a running call sends output as it comes (set by the agent for a call that runs
    alone; None otherwise). Only a display: the result still carries everything."""
    call_id: str = ""
    """The tool call's id ("" outside the agent: ``ipuaro tool``, a ``!command``)."""

    # --- the services --------------------------------------------------------------------
    @property
    def root(self) -> Path:
        return self.services.root

    @property
    def config(self) -> Config:
        return self.services.config

    @property
    def store(self) -> Store:
        return self.services.store

    @property
    def paths(self) -> PathPolicy:
        return self.services.paths

    @property
    def commands(self) -> CommandPolicy:
        return self.services.commands

    @property
    def reindex(self) -> Reindex:
        return self.services.reindex

    @property
    def planner(self) -> EditPlanner | None:
        return self.services.planner

    @property
    def shell(self) -> ShellHost | None:
        return self.services.shell

    @property
    def remember(self) -> Callable[[object, str], Awaitable[PatchReport]] | None:
        return self.services.remember

    @property
    def headless_allow_commands(self) -> bool:
        return self.services.headless_allow_commands

    @property
    def language_servers(self) -> LanguageServers | None:
        return self.services.language_servers

    # --- the session ---------------------------------------------------------------------
    @property
    def session_id(self) -> str:
        return self.scope.session_id

    @property
    def grants(self) -> Grants:
        return self.scope.grants

    @property
    def reads(self) -> ReadTracker:
        return self.scope.reads

    @property
    def auto_apply(self) -> bool:
        """Edits apply without asking (``Grants.auto_apply``)."""
        return self.scope.grants.auto_apply

    # --- copies --------------------------------------------------------------------------
    def replace(self, **changes: Any) -> ToolContext:
        """A copy with ``changes``, each routed to the services, the scope or the call's own
        fields by name (``ctx.replace(confirm=..., planner=...)``)."""
        services = {k: v for k, v in changes.items() if k in _SERVICE_FIELDS}
        scope = {k: v for k, v in changes.items() if k in _SCOPE_FIELDS}
        own = {k: v for k, v in changes.items() if k not in _SERVICE_FIELDS | _SCOPE_FIELDS}
        return dataclasses.replace(
            self,
            services=dataclasses.replace(self.services, **services) if services else self.services,
            scope=dataclasses.replace(self.scope, **scope) if scope else self.scope,
            **own,
        )

    def for_session(self, session_id: str) -> ToolContext:
        """The context for another session: no grants but the configured ones, no reads."""
        return dataclasses.replace(self, scope=self.scope.next(session_id))

    def for_call(
        self,
        call_id: str,
        *,
        cancel: asyncio.Event | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> ToolContext:
        """One tool call's context (the agent's dispatch makes one per call)."""
        return dataclasses.replace(
            self, call_id=call_id, cancel=cancel or self.cancel, progress=progress
        )


class ArgsModel(BaseModel):
    """Base of every tool's arguments: unknown fields are errors the model can read."""

    model_config = ConfigDict(extra="forbid")


class Tool(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str:
        """Written for a small model: what it does, when to use it, one example call."""
        ...

    @property
    def args_model(self) -> type[BaseModel]:
        """Validates the arguments; its JSON schema is what the model sees."""
        ...

    @property
    def read_only(self) -> bool: ...
    @property
    def needs_confirmation(self) -> bool: ...

    async def execute(self, args: Any, ctx: ToolContext) -> ToolOutcome: ...


class BaseTool:
    """Convenience base: subclasses set the class attributes and implement ``run``."""

    name: ClassVar[str]
    description: ClassVar[str]
    args_model: ClassVar[type[BaseModel]]
    read_only: ClassVar[bool] = True
    needs_confirmation: ClassVar[bool] = False
    path_fields: ClassVar[tuple[str, ...]] = ()
    """Argument names holding a project path (the registry maps ``file_path`` etc. onto them)."""
