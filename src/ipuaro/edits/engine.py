"""The one path every change takes: validate → diff → confirm → undo entry → atomic write →
re-index.

Every edit tool computes the new text of one or more files and hands the engine a list of
:class:`FileChange`. The engine checks the paths and the content, shows the user one diff for
the whole group, records the undo entries, writes every file atomically (a failure midway puts
each file back byte for byte) and brings the store up to date through ``ctx.reindex``.
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ipuaro.domain import UndoEntry
from ipuaro.domain.edits import (
    ConfirmCallback,
    ConfirmDecision,
    ConfirmRequest,
    FileChange,
    ReadTracker,
    Reindex,
)
from ipuaro.edits.diffs import changed_region, unified_diff
from ipuaro.edits.text import TextRefused, decode_utf8, split_keepends, text_hash
from ipuaro.edits.transaction import FileWrite, TransactionFailed, read_current, write_all
from ipuaro.store.protocol import StoreError

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.domain.files import FileAST
    from ipuaro.edits.aftercheck import EditCheck
    from ipuaro.security.grants import Grants
    from ipuaro.security.paths import PathPolicy
    from ipuaro.store.protocol import Store


class EditContext(Protocol):
    """What the engine needs of its caller (the tools' ``ToolContext`` is one)."""

    @property
    def config(self) -> Config: ...
    @property
    def store(self) -> Store: ...
    @property
    def paths(self) -> PathPolicy: ...
    @property
    def session_id(self) -> str: ...
    @property
    def reads(self) -> ReadTracker: ...
    @property
    def grants(self) -> Grants:
        """``auto_apply`` (edits apply unasked) and where an "always" answer is recorded."""
        ...

    @property
    def reindex(self) -> Reindex: ...
    @property
    def confirm(self) -> ConfirmCallback | None: ...


@dataclass
class EditResult:
    applied: bool
    message: str
    """For the model: the changed regions with line numbers, or why nothing was written."""
    files: list[FileChange] = field(default_factory=list)
    """What was (or would have been) written, after any edit the user made."""
    diff: str = ""
    group: str | None = None
    refused: bool = False
    """The user or a rule said no (as opposed to a failure)."""
    stale: list[str] = field(default_factory=list)
    """Paths whose content changed on disk after the change was computed."""
    check: EditCheck | None = None
    """What the applied change broke (syntax, callers, imports); None when not applied."""


# Front-ends add their own flag to this (`ipuaro run --auto-apply`, `ipuaro tool --yes`); the
# model reads it too, and a flag name means nothing to it.
NO_CONFIRM = "this change needs the user's confirmation and nobody can be asked in this run"


class EditRefused(Exception):
    """A change breaks a rule (protected path, bad content); nothing was written."""


def _check_content(text: str, path: str) -> None:
    from ipuaro.security.content import ContentRefused, check_text

    try:
        check_text(text, path)
    except ContentRefused as error:
        raise EditRefused(str(error)) from None


class EditEngine:
    def __init__(self, ctx: EditContext) -> None:
        self.ctx = ctx

    async def apply(
        self, changes: list[FileChange], description: str, *, confirm: bool = True
    ) -> EditResult:
        """Apply ``changes`` all or nothing. ``confirm=False`` only for callers that already
        asked the user about exactly this change (a conflict resolution)."""
        from ipuaro.security.paths import PathRefused

        try:
            writes = self._validate(changes)
            stale = self._stale(changes, writes)
        except (EditRefused, PathRefused, TextRefused) as error:
            return EditResult(False, str(error), refused=True)
        if stale:
            return EditResult(
                False,
                "the file changed on disk while the edit was prepared: "
                + ", ".join(stale)
                + "; read it again and redo the edit",
                stale=stale,
            )
        diff = "".join(unified_diff(c.path, c.old_text, c.new_text) for c in changes)
        if not any(c.old_text != c.new_text for c in changes):
            return EditResult(False, "the edit changes nothing; the file already reads that way")
        if confirm and not self.ctx.grants.auto_apply:
            if self.ctx.confirm is None:
                return EditResult(False, NO_CONFIRM, changes, diff, refused=True)
            decision = await self._ask(changes, description, diff)
            if decision.choice == "reject" or decision.rejected:
                # An edit's files go together: turning some down turns the edit down.
                return EditResult(
                    False, "the user rejected this change", changes, diff, refused=True
                )
            if decision.choice == "always":  # this and the session's later edits, unasked
                self.ctx.grants.grant_edits()
            if decision.edited:
                try:
                    changes, writes = self._with_user_text(changes, decision.edited)
                except (EditRefused, PathRefused) as error:
                    return EditResult(False, f"the edited text was refused: {error}", refused=True)
                diff = "".join(unified_diff(c.path, c.old_text, c.new_text) for c in changes)
            # Confirmation can take minutes: make sure nobody wrote the files meanwhile.
            try:
                stale = self._stale(changes, writes)
            except TextRefused as error:
                return EditResult(False, str(error), changes, diff, refused=True)
            if stale:
                return EditResult(
                    False,
                    "the file changed on disk while waiting for confirmation: " + ", ".join(stale),
                    changes,
                    diff,
                    stale=stale,
                )
        return self._commit(changes, writes, description, diff)

    # --- steps ----------------------------------------------------------------------------

    def _validate(self, changes: list[FileChange]) -> list[FileWrite]:
        if not changes:
            raise EditRefused("no file to change")
        seen: set[str] = set()
        writes: list[FileWrite] = []
        for change in changes:
            if change.new_text is None:
                resolved = self.ctx.paths.check_deletable(change.path)
            else:
                resolved = self.ctx.paths.check_writable(change.path)
            if resolved.rel in seen:
                raise EditRefused(f"{resolved.rel} appears twice in one change; merge the edits")
            seen.add(resolved.rel)
            if resolved.abs.is_dir():
                raise EditRefused(f"{resolved.rel} is a directory, not a file")
            if change.new_text is not None:
                _check_content(change.new_text, resolved.rel)
            writes.append(FileWrite(resolved.rel, resolved.abs, change.new_text))
        return writes

    def _stale(self, changes: list[FileChange], writes: list[FileWrite]) -> list[str]:
        stale: list[str] = []
        for change, write in zip(changes, writes, strict=True):
            data = read_current(write.abs)
            current = None if data is None else decode_utf8(data, write.rel)
            if current != change.old_text:
                stale.append(write.rel)
        return stale

    async def _ask(self, changes: list[FileChange], description: str, diff: str) -> ConfirmDecision:
        assert self.ctx.confirm is not None
        deleting = all(c.new_text is None for c in changes)
        names = ", ".join(c.path for c in changes)
        request = ConfirmRequest(
            kind="delete" if deleting else "edit",
            title=("Delete " if deleting else "Edit ") + names,
            description=description,
            diff=diff,
            files=list(changes),
        )
        answer = await self.ctx.confirm(request)
        return answer if isinstance(answer, ConfirmDecision) else ConfirmDecision(answer)

    def _with_user_text(
        self, changes: list[FileChange], edited: dict[str, str]
    ) -> tuple[list[FileChange], list[FileWrite]]:
        updated = [
            FileChange(c.path, c.old_text, edited[c.path]) if c.path in edited else c
            for c in changes
        ]
        return updated, self._validate(updated)

    def _commit(
        self, changes: list[FileChange], writes: list[FileWrite], description: str, diff: str
    ) -> EditResult:
        store, session = self.ctx.store, self.ctx.session_id
        group = uuid.uuid4().hex[:12] if len(changes) > 1 else None
        limit = self.ctx.config.undo.stack_size
        now = time.time()
        entries = [
            UndoEntry(
                id=uuid.uuid4().hex[:12],
                timestamp=now,
                file_path=write.rel,
                previous_content=None if c.old_text is None else split_keepends(c.old_text),
                new_content=None if c.new_text is None else split_keepends(c.new_text),
                description=description,
                group=group,
                group_size=len(changes) if group is not None else None,
                previous_hash=None if c.old_text is None else text_hash(c.old_text),
                new_hash=None if c.new_text is None else text_hash(c.new_text),
                pending=os.getpid(),
            )
            for c, write in zip(changes, writes, strict=True)
        ]
        # The undo entry exists before the first byte is written, marked pending: nothing
        # lands unrecorded, and a kill before the renames leaves an entry the next undo can
        # tell apart from a real change (UndoManager.settle).
        for entry in entries:
            store.push_undo(session, entry, max(limit, len(entries)), "undo")
        ids = [entry.id for entry in entries]
        before = self._before(changes)
        try:
            write_all(writes)
        except TransactionFailed as error:
            store.settle_undo(session, confirmed=(), dropped=ids)
            return EditResult(False, str(error), changes, diff)
        settle_note = ""
        try:
            store.settle_undo(session, confirmed=ids)
        except StoreError as error:  # the entries stay pending; the next undo checks the disk
            settle_note = f"(the undo entry could not be confirmed: {error})"
        store.clear_undo(session, "redo")
        note = self._reindex(writes)
        self._remember_reads(writes)
        check = self._check(changes, before, indexed=not note)
        regions = "\n\n".join(changed_region(c.path, c.old_text, c.new_text) for c in changes)
        checked = check.message() if check is not None else ""
        notes = "\n".join(n for n in (checked, note, settle_note) if n)
        message = f"applied: {description}\n{regions}" + (f"\n{notes}" if notes else "")
        return EditResult(True, message, changes, diff, group=group, check=check)

    def _before(self, changes: list[FileChange]) -> dict[str, FileAST | None]:
        from ipuaro.edits.aftercheck import before_asts

        try:
            return before_asts(self.ctx.store, changes)
        except (StoreError, OSError, ValueError):
            return {}

    def _check(
        self, changes: list[FileChange], before: dict[str, FileAST | None], *, indexed: bool
    ) -> EditCheck | None:
        """The after-edit check; it informs and never undoes a write that happened."""
        from ipuaro.edits.aftercheck import check_edit

        try:
            return check_edit(self.ctx.store, changes, before, indexed=indexed)
        except (StoreError, OSError, ValueError):
            return None

    def _reindex(self, writes: list[FileWrite]) -> str:
        changed = [w.rel for w in writes if w.text is not None]
        deleted = [w.rel for w in writes if w.text is None]
        try:
            self.ctx.reindex(changed, deleted)
        except Exception as error:  # the write stands; the watcher or next index catches up
            return f"(the files were written but re-indexing failed: {error})"
        return ""

    def _remember_reads(self, writes: list[FileWrite]) -> None:
        # The model saw the changed region with its new numbers: later line edits refer to the
        # new version, so the tracker moves to it.
        from ipuaro.edits.text import Lines

        for write in writes:
            if write.text is None:
                self.ctx.reads.forget(write.rel)
            else:
                self.ctx.reads.record(write.rel, text_hash(write.text), Lines.of(write.text).lines)
