"""The tool model: what a tool is, what it gets to run, and what it gives back.

A tool is a declarative object: a name, a description written for a small model, a pydantic
args model (which is also the JSON schema the model sees), two flags, and ``execute``. The
registry (``ipuaro.tools.registry``) turns every failure into a structured result; tools raise
:class:`ToolError` for "the call was wrong, here is how to fix it".
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
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
    "Tool",
    "ToolAborted",
    "ToolContext",
    "ToolError",
    "ToolOutcome",
    "ToolRefused",
]

if TYPE_CHECKING:
    from collections.abc import Callable

    from ipuaro.config.schema import Config
    from ipuaro.domain.checks import EditCheckReport
    from ipuaro.index.lsp import LanguageServers
    from ipuaro.memory import PatchReport
    from ipuaro.security.commands import CommandPolicy
    from ipuaro.security.paths import PathPolicy
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


class ToolError(Exception):
    """Raised inside a tool for a wrong call; becomes a failed ToolOutcome with this message."""


class ToolRefused(ToolError):
    """The user or the policy refused; reported with ``refused=True``."""


class ToolAborted(ToolRefused):
    """The user refused and chose to stop the whole request (Abort in a command's dialog)."""


@dataclass
class ToolContext:
    root: Path
    config: Config
    store: Store
    paths: PathPolicy
    commands: CommandPolicy
    session_id: str
    reindex: Reindex
    confirm: ConfirmCallback | None = None
    auto_apply: bool = False
    reads: ReadTracker = field(default_factory=ReadTracker)
    planner: EditPlanner | None = None
    cancel: asyncio.Event | None = None
    allowed_secrets: set[str] = field(default_factory=set)
    """Secret files the user allowed reading for the rest of the session."""
    headless_allow_commands: bool = False
    """Headless runs: commands the policy would ask about run without asking."""
    remember: Callable[[object, str], Awaitable[PatchReport]] | None = None
    """Checks a ``memory_patch``, asks the user and writes it (the core's
    ``propose_memory_patch``); None where nobody can confirm (``ipuaro tool``)."""
    shell: ShellHost | None = None
    """The session's persistent shell for ``run_command`` (None: a new process per call)."""
    progress: Callable[[str], None] | None = None
    """Where a running call sends output as it comes (set by the agent around a call that
    runs alone; None otherwise). Only a display: the result still carries everything."""
    language_servers: LanguageServers | None = None
    """``index.languageServers`` (None when none is configured): ``find_references`` and
    ``find_definition`` ask them first and fall back to the index."""


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
