"""Edits and the user's confirmation: the types the edit engine, the tools, the agent and every
front end share (a proposed change, the question put to the user, their answer, a conflict)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

ConfirmKind = Literal["edit", "command", "read_secret", "delete"]
ConfirmChoice = Literal["apply", "reject", "always", "abort"]
"""``abort`` (commands only): refuse this command and stop the whole request."""


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
    per_file: bool = False
    """Files may be turned down one by one (``ConfirmDecision.rejected``): a plan's change.
    An edit's files go together, all or none."""


@dataclass(frozen=True)
class ConfirmDecision:
    choice: ConfirmChoice
    edited: dict[str, str] | None = None
    """Path -> replacement new text the user typed ([E] Edit); validated again before writing."""
    rejected: frozenset[str] = frozenset()
    """Files of a multi-file change the user turned down while applying the rest (a plan's
    change in the TUI); the edit engine's own changes take all or nothing."""


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


Reindex = Callable[[list[str], list[str]], object]
"""``reindex(changed, deleted)``: bring the store up to date for these project paths (any
return value, e.g. ``Indexer.update_paths``'s summary, is ignored)."""
