"""The one write path: validate → diff → confirm → stale check → undo entry → atomic write →
re-index → after-edit check.

Edit tools and plan apply both hand the engine a :class:`~ipuaro.edits.changeset.Changeset`
(the tools through :meth:`EditEngine.apply`, a list of :class:`FileChange`). The engine checks
the paths and the content, asks the user ONE question about the whole change (a plan's files
may be turned down one by one), checks that nobody wrote the files while the question waited,
records one undo step (the entries first, marked pending), writes every folder and file as one
transaction (a failure midway puts each file back byte for byte), confirms the entries and
brings the store up to date through ``ctx.reindex``.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import os
import time
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol

from ipuaro.domain import UndoEntry
from ipuaro.domain.edits import (
    ConfirmCallback,
    ConfirmDecision,
    FileChange,
    ReadTracker,
    Reindex,
)
from ipuaro.domain.errors import IpuaroError
from ipuaro.edits.changeset import APPLYING_KEY, Changeset
from ipuaro.edits.diffs import changed_region
from ipuaro.edits.text import TextRefused, decode_utf8, split_keepends, text_hash
from ipuaro.edits.transaction import FileWrite, TransactionFailed, read_current
from ipuaro.store.protocol import StoreError

if TYPE_CHECKING:
    from ipuaro.config.schema import Config
    from ipuaro.domain.files import FileAST
    from ipuaro.edits.aftercheck import EditCheck
    from ipuaro.security.policy.grants import Grants
    from ipuaro.security.policy.paths import PathPolicy
    from ipuaro.store.protocol import Store

EditStatus = Literal[
    "applied", "unchanged", "invalid", "unconfirmed", "rejected", "stale", "failed"
]


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
    status: EditStatus = "applied"
    changeset: Changeset | None = None
    """The change as written (or as it would have been), after the user's answer."""
    notes: str = ""
    """After the write: the after-edit check's findings, a re-index or undo-store problem."""
    rejected: tuple[str, ...] = ()
    """Files of a ``per_file`` change the user turned down (the rest was applied)."""


_REFUSALS = frozenset({"invalid", "unconfirmed", "rejected"})


def _result(
    status: EditStatus,
    message: str,
    changeset: Changeset | None = None,
    diff: str = "",
    rejected: tuple[str, ...] = (),
    *,
    stale: list[str] | None = None,
) -> EditResult:
    """A change that was not written, and why."""
    return EditResult(
        False,
        message,
        list(changeset.files) if changeset is not None else [],
        diff,
        refused=status in _REFUSALS,
        stale=stale or [],
        status=status,
        changeset=changeset,
        rejected=rejected,
    )


def _os_error(error: OSError) -> str:
    reason = error.strerror or errno.errorcode.get(error.errno or 0, "") or str(error)
    where = f" ({error.filename})" if error.filename else ""
    return f"making or removing a folder failed{where}: {reason}; nothing was written"


# Front-ends add their own flag to this (`ipuaro run --auto-apply`, `ipuaro tool --yes`); the
# model reads it too, and a flag name means nothing to it.
NO_CONFIRM = "this change needs the user's confirmation and nobody can be asked in this run"


class EditRefused(IpuaroError):
    """A change breaks a rule (protected path, bad content); nothing was written."""


def _check_content(text: str, path: str) -> None:
    from ipuaro.security.policy.content import ContentRefused, check_text

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
        """Commit a changeset of just these files (an edit tool's change)."""
        return await self.commit(Changeset(tuple(changes), description), confirm=confirm)

    async def commit(self, changeset: Changeset, *, confirm: bool = True) -> EditResult:
        """Write ``changeset`` all or nothing, as one undo step. ``confirm=False`` only for
        callers that already asked the user about exactly this change (a conflict
        resolution)."""
        from ipuaro.security.policy.paths import PathRefused

        diff = changeset.diff()
        try:
            writes = self._validate(changeset)
            stale = self._stale(changeset, writes)
        except (EditRefused, PathRefused, TextRefused) as error:
            return _result("invalid", str(error))
        if stale:
            return _result(
                "stale",
                "the file changed on disk while the edit was prepared: "
                + ", ".join(stale)
                + "; read it again and redo the edit",
                stale=stale,
            )
        if changeset.empty:
            return _result("unchanged", "the edit changes nothing; the file already reads that way")
        # The one place auto-apply is read: the caller's flag (the session's grants).
        rejected: tuple[str, ...] = ()
        if confirm and not self.ctx.grants.auto_apply:
            asked = await self._confirmed(changeset, diff)
            if isinstance(asked, EditResult):
                return asked
            changeset, writes, diff, rejected = asked
        return await asyncio.to_thread(self._write, changeset, writes, diff, rejected)

    # --- steps ----------------------------------------------------------------------------

    def _validate(self, changeset: Changeset) -> list[FileWrite]:
        if not changeset.files and not changeset.dirs_created and not changeset.dirs_removed:
            raise EditRefused("no file to change")
        seen: set[str] = set()
        writes: list[FileWrite] = []
        for change in changeset.files:
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
        for folder in changeset.dirs_created:
            self.ctx.paths.check_writable(folder)
        for folder in changeset.dirs_removed:
            self.ctx.paths.check_deletable(folder)
        return writes

    def _stale(self, changeset: Changeset, writes: list[FileWrite]) -> list[str]:
        stale: list[str] = []
        for change, write in zip(changeset.files, writes, strict=True):
            data = read_current(write.abs)
            current = None if data is None else decode_utf8(data, write.rel)
            if current != change.old_text:
                stale.append(write.rel)
        return stale

    async def _confirmed(
        self, changeset: Changeset, diff: str
    ) -> tuple[Changeset, list[FileWrite], str, tuple[str, ...]] | EditResult:
        """The user's one decision on the whole change, then the stale check: the change as
        the user left it (files turned down, text edited), or why nothing is written."""
        from ipuaro.security.policy.paths import PathRefused

        if self.ctx.confirm is None:
            return _result("unconfirmed", NO_CONFIRM, changeset, diff)
        answer = await self.ctx.confirm(changeset.request())
        decision = answer if isinstance(answer, ConfirmDecision) else ConfirmDecision(answer)
        if decision.choice == "reject" or (decision.rejected and not changeset.per_file):
            # An edit's files go together: turning some down turns the edit down.
            return _result("rejected", "the user rejected this change", changeset, diff)
        if decision.choice == "always":  # this and the session's later edits, unasked
            self.ctx.grants.grant_edits()
        rejected = tuple(sorted(set(decision.rejected) & set(changeset.paths)))
        changeset = changeset.without(frozenset(rejected))
        if rejected and changeset.empty:
            return _result("rejected", "the user rejected every file", changeset, "", rejected)
        try:
            if decision.edited:
                changeset = changeset.with_text(decision.edited)
            writes = self._validate(changeset)
        except (EditRefused, PathRefused) as error:
            message = f"the edited text was refused: {error}"
            return _result("invalid", message, changeset, diff, rejected)
        diff = changeset.diff()
        # Confirmation can take minutes: make sure nobody wrote the files meanwhile.
        try:
            stale = self._stale(changeset, writes)
        except TextRefused as error:
            return _result("invalid", str(error), changeset, diff, rejected)
        if stale:
            message = "the file changed on disk while waiting for confirmation: "
            return _result(
                "stale", message + ", ".join(stale), changeset, diff, rejected, stale=stale
            )
        return changeset, writes, diff, rejected

    def _entries(self, changeset: Changeset, writes: list[FileWrite]) -> list[UndoEntry]:
        """One undo entry per folder and file (under its checked project path), one group,
        marked pending by this process."""
        count = len(changeset.files) + len(changeset.dirs_created) + len(changeset.dirs_removed)
        grouped = count > 1 or changeset.all_or_nothing
        group = uuid.uuid4().hex[:12] if grouped else None
        now = time.time()

        def entry(
            path: str, before: list[str] | None, after: list[str] | None, *, is_dir: bool = False
        ) -> UndoEntry:
            return UndoEntry(
                id=uuid.uuid4().hex[:12],
                timestamp=now,
                file_path=path,
                previous_content=before,
                new_content=after,
                description=changeset.description,
                group=group,
                group_size=count if group is not None else None,
                previous_hash=None if before is None or is_dir else text_hash("".join(before)),
                new_hash=None if after is None or is_dir else text_hash("".join(after)),
                pending=os.getpid(),
                is_dir=is_dir,
                all_or_nothing=changeset.all_or_nothing,
            )

        def lines(text: str | None) -> list[str] | None:
            return None if text is None else split_keepends(text)

        return [
            *(entry(d, None, [], is_dir=True) for d in changeset.dirs_created),
            *(
                entry(write.rel, lines(c.old_text), lines(c.new_text))
                for c, write in zip(changeset.files, writes, strict=True)
            ),
            *(entry(d, [], None, is_dir=True) for d in changeset.dirs_removed),
        ]

    def _write(
        self,
        changeset: Changeset,
        writes: list[FileWrite],
        diff: str,
        rejected: tuple[str, ...],
    ) -> EditResult:
        """Undo entries first (pending), then the folders and files, then confirm the entries,
        re-index, and the after-edit check. Runs in a worker thread."""
        from ipuaro.edits.undo import put_states

        store, session = self.ctx.store, self.ctx.session_id
        limit = self.ctx.config.undo.stack_size
        entries = self._entries(changeset, writes)
        ids = [entry.id for entry in entries]
        group = entries[0].group
        before = self._before(list(changeset.files))
        # The undo entries exist before the first byte is written, marked pending: nothing
        # lands unrecorded, and a kill before the renames leaves entries the next undo (or,
        # for an all-or-nothing change, the next opening: the ``applying`` key) can tell
        # apart from a real change (UndoManager.settle).
        try:
            if changeset.all_or_nothing:
                store.set_config(APPLYING_KEY, {"session": session, "group": group})
            for entry in entries:
                store.push_undo(session, entry, max(limit, len(entries)), "undo")
        except StoreError as error:
            with contextlib.suppress(StoreError):
                store.settle_undo(session, confirmed=(), dropped=ids)
                if changeset.all_or_nothing:
                    store.set_config(APPLYING_KEY, None)
            why = f"the undo history could not be stored ({error})"
            return _result("failed", f"nothing was applied: {why}", changeset, diff)
        try:
            put_states(self.ctx.paths.root, [(e, e.new_content) for e in entries])
        except (TransactionFailed, OSError) as error:
            with contextlib.suppress(StoreError):
                store.settle_undo(session, confirmed=(), dropped=ids)
                if changeset.all_or_nothing:
                    store.set_config(APPLYING_KEY, None)
            message = str(error) if isinstance(error, TransactionFailed) else _os_error(error)
            return _result("failed", message, changeset, diff)
        settle_note = ""
        try:
            store.settle_undo(session, confirmed=ids)
            if changeset.all_or_nothing:
                store.set_config(APPLYING_KEY, None)
        except StoreError as error:  # the entries stay pending; the next undo checks the disk
            settle_note = f"(the undo entry could not be confirmed: {error})"
        with contextlib.suppress(StoreError):
            store.clear_undo(session, "redo")
        files = list(changeset.files)
        note = self._reindex(writes)
        self._remember_reads(writes)
        check = self._check(files, before, indexed=not note)
        regions = "\n\n".join(changed_region(c.path, c.old_text, c.new_text) for c in files)
        checked = check.message() if check is not None else ""
        notes = "\n".join(n for n in (checked, note, settle_note) if n)
        message = f"applied: {changeset.description}\n{regions}" + (f"\n{notes}" if notes else "")
        return EditResult(
            True,
            message,
            files,
            diff,
            group=group,
            check=check,
            status="applied",
            changeset=changeset,
            notes=notes,
            rejected=rejected,
        )

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
