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

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.security.commands import CommandPolicy
    from ipuaro.security.paths import PathPolicy
    from ipuaro.store.protocol import Store

ConfirmKind = Literal["edit", "command", "read_secret", "delete"]
ConfirmChoice = Literal["apply", "reject", "always"]


@dataclass(frozen=True)
class FileChange:
    """One file's proposed change. ``old_text`` None: the file is created; ``new_text`` None:
    it is deleted. For the engine, ``old_text`` is also what the file must still contain."""

    path: str
    old_text: str | None
    new_text: str | None


@dataclass(frozen=True)
class ConfirmRequest:
    kind: ConfirmKind
    title: str
    description: str
    diff: str | None = None
    """Unified diff of every file (edits and deletes)."""
    files: list[FileChange] = field(default_factory=list)
    """Per-file old/new text for the UI's own diff view."""
    command: str | None = None


@dataclass(frozen=True)
class ConfirmDecision:
    choice: ConfirmChoice
    edited: dict[str, str] | None = None
    """Path -> replacement new text the user typed ([E] Edit); validated again before writing."""


ConfirmCallback = Callable[[ConfirmRequest], Awaitable["ConfirmDecision | ConfirmChoice"]]


@dataclass(frozen=True)
class LineEdit:
    """Replace lines ``start_line..end_line`` (1-based, inclusive) with ``replacement``.
    ``end_line == start_line - 1`` inserts before ``start_line`` without removing anything."""

    start_line: int
    end_line: int
    replacement: str


class EditPlanner(Protocol):
    """The edit-file sub-agent: turns an instruction plus a sketch into exact line edits."""

    async def plan(self, file_text: str, instructions: str, code_edit: str) -> list[LineEdit]: ...


@dataclass(frozen=True)
class ReadRecord:
    hash: str
    lines: tuple[str, ...]
    """The lines the model saw, so an edit made against them can be moved onto a newer file."""


class ReadTracker:
    """What this session's model has read: path -> the version it saw."""

    def __init__(self) -> None:
        self._seen: dict[str, ReadRecord] = {}

    def record(self, path: str, file_hash: str, lines: list[str]) -> None:
        self._seen[path] = ReadRecord(file_hash, tuple(lines))

    def get(self, path: str) -> ReadRecord | None:
        return self._seen.get(path)

    def forget(self, path: str) -> None:
        self._seen.pop(path, None)

    def paths(self) -> list[str]:
        return sorted(self._seen)


@dataclass(frozen=True)
class Conflict:
    """The file changed between the model's read and its edit. The caller offers
    apply (``rebased``, when the edited region is intact) / skip / regenerate."""

    path: str
    message: str
    expected_hash: str | None
    current_hash: str
    rebased: list[FileChange] | None = None
    description: str = ""


@dataclass
class ToolOutcome:
    success: bool
    content: str
    """What the model reads (or the error it should fix)."""
    data: Any = None
    """Structured result (occurrences, matches…) for programs and ``ipuaro tool``."""
    error: str | None = None
    details: dict[str, Any] | None = None
    """For the UI only: a diff, a tree."""
    conflict: Conflict | None = None
    refused: bool = False
    """The user (or the policy) said no; not a mistake the model can fix by retrying."""
    error_kind: Literal["store", "file", "command"] | None = None
    """Set when the failure is the environment's (a row of the agent's error matrix: the user
    picks retry / skip / abort), not the model's to fix."""

    @classmethod
    def ok(
        cls, content: str, data: Any = None, details: dict[str, Any] | None = None
    ) -> ToolOutcome:
        return cls(True, content, data=data, details=details)

    @classmethod
    def fail(
        cls, error: str, *, refused: bool = False, details: dict[str, Any] | None = None
    ) -> ToolOutcome:
        return cls(False, error, error=error, refused=refused, details=details)


class ToolError(Exception):
    """Raised inside a tool for a wrong call; becomes a failed ToolOutcome with this message."""


class ToolRefused(ToolError):
    """The user or the policy refused; reported with ``refused=True``."""


Reindex = Callable[[list[str], list[str]], object]
"""``reindex(changed, deleted)``: bring the store up to date for these project paths (any
return value, e.g. ``Indexer.update_paths``'s summary, is ignored)."""


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
