"""What the workspace's operations return: small typed records a front end draws as it likes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


def plural(number: int, noun: str) -> str:
    return f"{number:,} {noun}" if number == 1 else f"{number:,} {noun}s"


@dataclass(frozen=True)
class Finding:
    citation: str
    ok: bool
    detail: str

    def line(self) -> str:
        return f"{'✓' if self.ok else '✗'} {self.citation}: {self.detail}"


@dataclass(frozen=True)
class WindowInfo:
    tokens: int
    source: str
    """Where the figure came from (the server, the config, a default)."""


@dataclass(frozen=True)
class IndexReport:
    files: int
    parsed: int
    unchanged: int
    deleted: int = 0
    parse_errors: int = 0
    parse_error_files: tuple[str, ...] = ()
    """Which files: a count alone says something broke, not where."""
    skipped_non_utf8: int = 0
    removed_temp_files: int = 0
    """Temp files of writes killed before their rename, cleaned up by this run."""

    @property
    def changed(self) -> bool:
        return bool(self.parsed or self.deleted or self.removed_temp_files)

    def line(self) -> str:
        """``indexed 12 files · 3 parsed · 9 unchanged``."""
        parts = [
            f"indexed {plural(self.files, 'file')}",
            f"{self.parsed:,} parsed",
            f"{self.unchanged:,} unchanged",
        ]
        if self.deleted:
            parts.append(f"{self.deleted:,} removed")
        if self.parse_errors:
            named = ", ".join(self.parse_error_files[:3])
            more = f" +{len(self.parse_error_files) - 3}" if len(self.parse_error_files) > 3 else ""
            where = f" ({named}{more})" if named else ""
            parts.append(plural(self.parse_errors, "parse error") + where)
        if self.skipped_non_utf8:
            parts.append(f"{self.skipped_non_utf8:,} non-UTF-8 skipped")
        if self.removed_temp_files:
            parts.append(f"{plural(self.removed_temp_files, 'interrupted write')} cleaned up")
        return " · ".join(parts)


@dataclass(frozen=True)
class SessionInfo:
    id: str
    title: str | None
    messages: int
    model: str | None
    created_at: float
    last_activity_at: float
    current: bool = False
    damaged: str | None = None
    """Why the stored session cannot be read (what to do included); the other fields are then
    placeholders."""


DeleteOutcome = Literal["deleted", "current", "missing"]


@dataclass(frozen=True)
class ImportReport:
    session_id: str
    messages: int
    skipped_types: tuple[str, ...] = ()


@dataclass(frozen=True)
class UndoReport:
    direction: Literal["undo", "redo"]
    done: bool
    message: str


@dataclass(frozen=True)
class ModelSwitch:
    switched: bool
    model: str
    """The model in use afterwards (the old one when the switch failed)."""
    window: WindowInfo | None = None
    error: str | None = None
    waited_for: str | None = None
    """What ran when ``/model`` was asked (``the agent is answering a request``): the switch
    waited for it to end, and that task kept the old model."""


@dataclass(frozen=True)
class Evaluation:
    """``/eval``: what the index says about each citation of the last answer, and the request
    that asks the model to critique its answer with that evidence."""

    findings: list[Finding] = field(default_factory=list)
    prompt: str = ""

    def evidence(self) -> str:
        lines = [finding.line() for finding in self.findings] or ["(no paths or names cited)"]
        return "evidence from the index:\n" + "\n".join(lines)


@dataclass(frozen=True)
class StatusReport:
    rows: list[tuple[str, str]]
    """(label, value): store, model, tool format, window, context, index, session, modes."""


@dataclass(frozen=True)
class McpServerInfo:
    """One MCP server as ``/mcp`` shows it."""

    name: str
    transport: str
    """``stdio uvx`` or ``http http://127.0.0.1:8000/mcp``."""
    state: str
    """waiting, running, failed, lost, disabled or untrusted."""
    detail: str
    tools: tuple[str, ...]
