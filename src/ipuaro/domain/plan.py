"""A plan as the model proposes it in plan mode (the one-JSON contract) and the actions that
apply it: the types the planning package, the core and every front end share.

The model's reply is parsed and validated into a :class:`Plan` by ``ipuaro.planning``; the
actions are checked and applied as one transaction there too. These are plain values: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

PlanMode = Literal["fix-plan", "apply"]
ActionKind = Literal["CREATE_DIR", "CREATE_FILE", "UPDATE_FILE", "DELETE_FILE", "DELETE_DIR"]
ACTION_KINDS: tuple[ActionKind, ...] = (
    "CREATE_DIR",
    "CREATE_FILE",
    "UPDATE_FILE",
    "DELETE_FILE",
    "DELETE_DIR",
)
ContextRequestKind = Literal["read_file", "search", "logs", "env"]


@dataclass(frozen=True)
class Action:
    """One step of a change: ``content`` is the whole new text of CREATE_FILE / UPDATE_FILE
    (None for the other kinds)."""

    kind: ActionKind
    path: str
    content: str | None = None


@dataclass(frozen=True)
class ContextRequest:
    """Something the model asks to see before it plans: a file (optionally lines), a search
    (optionally limited by a glob), recent logs, or the environment."""

    kind: ContextRequestKind
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    query: str | None = None
    glob: str | None = None
    source: str | None = None
    """``logs``: which log (a project path or a name the app knows)."""
    last_n: int | None = None
    """``logs``: how many of the last lines."""


@dataclass(frozen=True)
class PlanStep:
    step: str
    details: str = ""


@dataclass(frozen=True)
class ProposedChanges:
    actions: tuple[Action, ...] = ()
    patch: str | None = None
    """A unified diff, used when ``actions`` is empty."""
    commands_to_run: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plan:
    """The validated answer of plan mode."""

    mode: PlanMode
    summary: str
    questions: tuple[str, ...] = ()
    context_requests: tuple[ContextRequest, ...] = ()
    plan: tuple[PlanStep, ...] = ()
    proposed_changes: ProposedChanges = field(default_factory=ProposedChanges)
    risks: tuple[str, ...] = ()
    memory_patch: dict[str, Any] = field(default_factory=dict)

    @property
    def no_changes(self) -> bool:
        """``NO_CHANGES:`` summary with nothing to do (a valid answer, nothing to apply)."""
        return self.summary.startswith("NO_CHANGES:") and not (
            self.proposed_changes.actions or self.proposed_changes.patch
        )


@dataclass(frozen=True)
class PlanRecord:
    """A validated plan kept for apply (``ok`` in the same run, or ``ipuaro run --apply`` in a
    later one): the request it answers and what the model read while planning."""

    plan: Plan
    request: str
    session_id: str
    read_files: dict[str, str] = field(default_factory=dict)
    """Project path -> sha256 of the text the model was shown; an UPDATE_FILE of a path not
    here is ``ERR_UPDATE_WITHOUT_BASE``, and a file changed since is stale."""
