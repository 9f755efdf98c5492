"""Every question ipuaro puts to the user, through one protocol.

A front end supplies a :class:`Decider`; the workspace calls ``decide(question)`` whenever it
needs a human: confirm an edit, a command or a secret read (:class:`ConfirmChange`), retry /
skip / abort a failed step (:class:`RecoverError`), a file that changed under an edit
(:class:`ResolveConflict`), the loop guard (:class:`LoopDetected`), a project above
``limits.maxFilesWarning`` (:class:`LargeProject`), an undo that would overwrite newer changes
(:class:`OverwriteChanges`), a project whose extensions run code (:class:`TrustProject`),
a ``memory_patch`` to remember (:class:`ApplyMemory`).

Every question carries what a generic front end needs to put it — a title, a message, its
options (value, label, key) and the ``safe`` value given when nobody can answer (quitting,
an interrupted request) — plus typed fields for front ends that draw it their own way (the
TUI's diff panel). The answer is an option's value, or an :class:`Answer` when it carries
more (the user's own text for ``[E] Edit``). An answer that is not one of the options counts
as ``safe``.

Headless answers by its flags, the TUI by dialogs, the ACP server by
``session/request_permission``. A new question is one subclass here; front ends that do not
know it still put it through its options.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ipuaro.agent.events import AgentError
from ipuaro.domain.edits import ConfirmDecision, ConfirmRequest, FileChange

__all__ = [
    "Answer",
    "ApplyMemory",
    "ConfirmChange",
    "ConfirmDecision",
    "ConfirmRequest",
    "Decider",
    "FileChange",
    "LargeProject",
    "LoopDetected",
    "Option",
    "OverwriteChanges",
    "Question",
    "RecoverError",
    "ResolveConflict",
    "TrustProject",
    "resolve",
]


@dataclass(frozen=True)
class Option:
    value: str
    label: str
    key: str
    """The key a terminal front end binds to it (``y``, ``a``, ``n``…)."""


@dataclass(frozen=True)
class Answer:
    choice: str
    edited: dict[str, str] | None = None
    """``ConfirmChange`` only: path → the text the user wrote instead ([E] Edit)."""
    rejected: frozenset[str] = frozenset()
    """``ConfirmChange`` only: files of the change the user turned down (apply the rest)."""


@dataclass(frozen=True)
class Question:
    title: str
    message: str
    options: tuple[Option, ...]
    safe: str
    """The answer when nobody can be asked: it never changes a file or runs anything."""

    def values(self) -> tuple[str, ...]:
        return tuple(option.value for option in self.options)


@dataclass(frozen=True)
class ConfirmChange(Question):
    """An edit, a delete, a command or a secret read waits for a yes."""

    request: ConfirmRequest = field(
        default_factory=lambda: ConfirmRequest(kind="edit", title="", description="")
    )

    @classmethod
    def of(cls, request: ConfirmRequest) -> ConfirmChange:
        options: tuple[Option, ...]
        if request.kind in ("edit", "delete") and request.per_file:
            options = (  # a plan's change: one decision for it alone
                Option("apply", "Apply", "y"),
                Option("reject", "Reject", "n"),
            )
        elif request.kind in ("edit", "delete"):
            options = (  # "always": this and the session's later edits (security.grants)
                Option("apply", "Apply", "y"),
                Option("always", "Always (this session)", "a"),
                Option("reject", "Reject", "n"),
            )
        elif request.kind == "read_secret":
            options = (
                Option("apply", "Allow once", "y"),
                Option("always", "Always allow", "a"),
                Option("reject", "Refuse", "n"),
            )
        else:
            options = (
                Option("apply", "Run once", "y"),
                Option("always", "Always allow", "a"),
                Option("reject", "Refuse", "n"),
                Option("abort", "Abort", "x"),
            )
        message = request.description
        if request.diff:
            message = f"{message}\n\n{request.diff}" if message else request.diff
        elif request.command:
            message = f"{message}\n\n$ {request.command}" if message else f"$ {request.command}"
        return cls(request.title, message, options, "reject", request)


_ERROR_OPTIONS = {
    "retry": Option("retry", "Retry", "r"),
    "skip": Option("skip", "Skip", "s"),
    "abort": Option("abort", "Abort", "a"),
}
_CONFLICT_OPTIONS = {
    "apply": Option("apply", "Apply", "a"),
    "skip": Option("skip", "Skip", "s"),
    "regenerate": Option("regenerate", "Regenerate", "r"),
}


@dataclass(frozen=True)
class RecoverError(Question):
    error: AgentError = field(default_factory=lambda: AgentError("file", ""))

    @classmethod
    def of(cls, error: AgentError, choices: tuple[str, ...]) -> RecoverError:
        options = tuple(_ERROR_OPTIONS[c] for c in choices if c in _ERROR_OPTIONS)
        message = error.message + (f"\n{error.suggestion}" if error.suggestion else "")
        return cls(f"{error.kind} error", message, options, "abort", error)


@dataclass(frozen=True)
class ResolveConflict(Question):
    path: str = ""
    description: str = ""

    @classmethod
    def of(cls, path: str, description: str, choices: tuple[str, ...]) -> ResolveConflict:
        options = tuple(_CONFLICT_OPTIONS[c] for c in choices if c in _CONFLICT_OPTIONS)
        return cls(f"{path} changed on disk", description, options, "skip", path, description)


@dataclass(frozen=True)
class LoopDetected(Question):
    tool_name: str = ""
    repeats: int = 0

    @classmethod
    def of(cls, tool_name: str, repeats: int) -> LoopDetected:
        return cls(
            "The agent repeats itself",
            f"{tool_name} was called {repeats} times in a row with the same arguments.",
            (Option("continue", "Continue", "c"), Option("stop", "Stop", "s")),
            "stop",
            tool_name,
            repeats,
        )


@dataclass(frozen=True)
class LargeProject(Question):
    project: str = ""
    files: int = 0
    limit: int = 0
    subfolders: tuple[str, ...] = ()
    """The folders offered; answer ``folder-N`` (1-based) indexes only ``subfolders[N-1]``."""

    @classmethod
    def of(
        cls, project: str, files: int, limit: int, folders: Sequence[tuple[str, int]] = ()
    ) -> LargeProject:
        """``folders``: (top-level folder, its files); the largest few below ``files`` are
        offered — index only that sub-folder."""
        smaller = sorted((f for f in folders if 0 < f[1] < files), key=lambda f: -f[1])
        chosen = smaller[:SUBFOLDER_CHOICES]
        subfolders = tuple(
            Option(f"{FOLDER_PREFIX}{i}", f"Index {name}/ only ({count:,} files)", str(i))
            for i, (name, count) in enumerate(chosen, start=1)
        )
        return cls(
            "Large project",
            f"{project} has {files:,} files (more than limits.maxFilesWarning = {limit:,}). "
            "Indexing may take a while; to index less, index a subfolder or add ignore "
            "patterns (project.ignorePatterns).",
            (Option("continue", "Continue", "c"), *subfolders, Option("cancel", "Cancel", "q")),
            "cancel",
            project,
            files,
            limit,
            tuple(name for name, _ in chosen),
        )

    def folder(self, answer: str) -> str | None:
        """The sub-folder ``answer`` chose, None for another answer."""
        number = answer.removeprefix(FOLDER_PREFIX)
        if answer == number or not number.isdigit():
            return None
        index = int(number) - 1
        return self.subfolders[index] if 0 <= index < len(self.subfolders) else None


FOLDER_PREFIX = "folder-"
SUBFOLDER_CHOICES = 3


@dataclass(frozen=True)
class OverwriteChanges(Question):
    direction: str = "undo"

    @classmethod
    def of(cls, direction: str, message: str) -> OverwriteChanges:
        return cls(
            f"{direction.capitalize()} would overwrite changes",
            message,
            (Option("force", "Overwrite", "y"), Option("keep", "Keep", "n")),
            "keep",
            direction,
        )


@dataclass(frozen=True)
class TrustProject(Question):
    """The project's ``.ipuaro.json`` declares script tools, hooks or MCP servers: programs
    that would run with the user's rights. Until the user trusts the project they stay off."""

    project: str = ""
    declared: tuple[str, ...] = ()
    """One line per declaration (``tool lint: npm run lint``)."""

    @classmethod
    def of(cls, project: str, declared: tuple[str, ...]) -> TrustProject:
        listing = "\n".join(f"  • {line}" for line in declared)
        return cls(
            "Trust this project's extensions?",
            f"{project}/.ipuaro.json declares programs ipuaro would run for you:\n{listing}\n"
            "They come with the repository. Trust them only if you trust its authors; "
            "otherwise they stay off (custom commands still work). A changed declaration "
            "asks again.",
            (Option("trust", "Trust and run them", "t"), Option("no", "Keep them off", "n")),
            "no",
            project,
            declared,
        )


@dataclass(frozen=True)
class ApplyMemory(Question):
    """The model (a ``remember`` call, or a plan's ``memory_patch``) asks to remember
    preferences; nothing is written unless the answer is ``apply``."""

    source: str = ""
    """Who asks: ``remember`` (the tool), ``plan`` …"""
    changes: tuple[tuple[str, str, str], ...] = ()
    """(key, old value, new value) as shown; ``(not set)`` for none."""
    notes: tuple[str, ...] = ()
    """Keys dropped (not on the whitelist) or refused (wrong type), one line each."""

    @classmethod
    def of(
        cls,
        source: str,
        changes: tuple[tuple[str, str, str], ...],
        notes: tuple[str, ...] = (),
        where: str = "",
    ) -> ApplyMemory:
        lines = [f"The model asks to remember this for later sessions ({source}):"]
        lines += [f"  {key}: {old} → {new}" for key, old, new in changes]
        if notes:
            lines.append("Not remembered:")
            lines += [f"  {note}" for note in notes]
        if where:
            lines.append(where)
        return cls(
            "Remember this?",
            "\n".join(lines),
            (Option("apply", "Remember", "y"), Option("reject", "Don't remember", "n")),
            "reject",
            source,
            changes,
            notes,
        )


class Decider(Protocol):
    """What a front end supplies: the user's answer to one question."""

    async def decide(self, question: Question) -> Answer | str: ...


def resolve(question: Question, answer: Answer | str) -> Answer:
    """``answer`` as an :class:`Answer` among the question's options (anything else: safe)."""
    chosen = answer if isinstance(answer, Answer) else Answer(answer)
    if chosen.choice not in question.values():
        return Answer(question.safe)
    if (chosen.edited is not None or chosen.rejected) and not isinstance(question, ConfirmChange):
        return Answer(chosen.choice)
    return chosen


def confirm_decision(answer: Answer) -> ConfirmDecision:
    choice = answer.choice if answer.choice in ("apply", "reject", "always", "abort") else "reject"
    return ConfirmDecision(
        choice,  # type: ignore[arg-type]
        edited=answer.edited,
        rejected=answer.rejected,
    )
